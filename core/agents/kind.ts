// The action kind behind `uses: agent:NAME`: the agent task body's own kind (body.ts). The compiler turns each agent
// into a synthetic action `agent:NAME` of this kind, so plan, policy preview, preflight and budgets treat agent tasks
// like any other; the agent body runs them with the agent loop (loop.ts), never through a dispatch hook.
import { z } from 'zod';
import { AgentctlError, canonicalJson, type ActionKind, type JsonValue, type SecretReference } from '@agentctl/sdk';
import { AGENT_KIND, MODEL_PROFILE, type AgentFields } from '../compiler/agent-action.js';

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
    throw new AgentctlError('AGENTCTL_E_INTERNAL', 'agent tasks are run by the agent task body, not dispatched');
  },
});
