// What the agent loop works with: the task's dispatch context and effect call, the agent's compiled fields, and the
// runner's callbacks. Its own module, so the loop and the tool calls it makes import it without importing each other.
import type { CompiledTool, DispatchContext, JsonValue, NetworkClient, PricingTable } from '@agentctl/sdk';
import type { Host } from '../host.js';
import type { AgentFields } from '../compiler/agent-action.js';
import type { EffectCall } from '../runner/effect-call.js';
import type { AgentBudget } from './budget.js';

/** Runs the declared action of a `kind: action` tool with the call's input, as that action runs in a task. */
export type ActionRunner = (tool: CompiledTool, callId: string, input: JsonValue) => Promise<JsonValue>;

/** What the agent loop needs beyond the task's dispatch context. */
export interface AgentLoop {
  readonly host: Host;
  readonly context: DispatchContext;
  /** The task's effect runner, with the approval override that tool contracts may declare. */
  readonly effect: EffectCall;
  readonly fields: AgentFields;
  /** The user message (see promptOf). */
  readonly prompt: string;
  /** The run's HTTP client under the network policy (absent when no plugin provides one). */
  readonly network?: NetworkClient;
  /** Reserves each request's worst case and each tool call; absent when the run has no agent budget. */
  readonly budget?: AgentBudget;
  /** Runs a declared action for a `kind: action` tool. */
  readonly runAction: ActionRunner;
  /** The run's pricing table: the output's `costMicrousd` when the agent's model is priced. */
  readonly pricing?: PricingTable;
  /** Records one piece of a streamed answer (`stream: true`) as an event of the task, tied to the turn's effect. */
  readonly progress?: (type: string, data: Record<string, JsonValue>, effectId: string) => Promise<void>;
}
