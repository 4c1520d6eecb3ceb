// The action kind behind `uses: agent:NAME`. It is the core's own, not a plugin's: the compiler turns each agent
// into a synthetic action `agent:NAME` of this kind, so plan, policy preview, preflight and budgets treat agent tasks
// like any other; the task runner gives its dispatch to the agent loop (loop.ts) instead of a dispatch hook.
import { z } from 'zod';
import { AgentctlError, canonicalJson, type ActionKind, type JsonValue, type CompiledAgent, type CompiledProvider, type CompiledTool, type EffectProfile, type SecretReference } from '@agentctl/sdk';

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

/**
 * `with` of an agent task: any object. The user message is `with.prompt` when that is a string, otherwise the JSON
 * text of the whole `with` (the reference's rule), so a typed payload reaches the model whole.
 */
export const agentInputSchema = z.record(z.string(), z.json());

/** The user message an agent task's input becomes. */
export const promptOf = (input: Readonly<Record<string, unknown>>): string => (typeof input.prompt === 'string' ? input.prompt : canonicalJson(input as JsonValue));

export const agentKind: ActionKind<z.ZodType<AgentFields>, typeof agentInputSchema> = Object.freeze({
  name: AGENT_KIND,
  description: 'A bounded model loop (uses: agent:NAME); every model turn and tool call is a recorded effect.',
  actionSchema: z.custom<AgentFields>(() => true),
  inputSchema: agentInputSchema,
  effect: MODEL_PROFILE,
  secretReferences: (fields: AgentFields): SecretReference[] => [
    ...(fields.provider.credential ? [fields.provider.credential] : []),
    ...Object.values(fields.provider.headers),
    ...fields.tools.flatMap((tool) => tool.secrets),
  ],
  // Every turn is a model.request effect: plan and check judge it by policy like any known effect.
  describe: () => ({ effects: [{ operation: 'model.request', access: { tool: 'model.request' } }] }),
  dispatch: async () => {
    throw new AgentctlError('AGENTCTL_E_INTERNAL', 'agent tasks are run by the agent loop, not dispatched');
  },
});
