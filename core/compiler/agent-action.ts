// The synthetic action the compiler makes of each agent (`uses: agent:NAME`): its kind, name, fields and profile.
// The agent task body (core/agents/) reads what is written here; nothing else in the core asks what kind it is.
import type { CompiledAgent, CompiledProvider, CompiledTool, EffectProfile } from '@agentctl/sdk';

/** The kind of an agent's synthetic action: the key of the agent task body. */
export const AGENT_KIND = 'agent';

/** The prefix of the synthetic action of an agent: `agent:NAME` (action names cannot contain ":"). */
export const agentActionName = (agent: string) => `agent:${agent}`;

/** What the synthetic action of an agent carries: the agent with its provider entry and its tools. */
export interface AgentFields {
  readonly agent: CompiledAgent;
  readonly provider: CompiledProvider;
  readonly tools: readonly CompiledTool[];
}

/** A model turn: the profile of the agent task as a whole; tool calls carry their own. */
export const MODEL_PROFILE: EffectProfile = { effectClass: 'model', risk: 'medium', idempotency: 'at_most_once' };
