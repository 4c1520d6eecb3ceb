// The agent task body: runs `uses: agent:NAME` tasks with the agent loop, and tells the core what such a task needs
// (its provider's credential and headers, its tools' secrets, its provider's URLs) and what `plan` shows about it.
import type { CompiledAction, CompiledPlan, CompiledTask, JsonValue, SectionSecret, TaskBodyLookup } from '@agentctl/sdk';
import { AGENT_KIND, type AgentFields } from '../compiler/agent-action.js';
import { actionContext, dispatchActionTool } from '../runner/action-dispatch.js';
import type { EffectBudget } from '../runner/budget.js';
import type { CoreBodyContext, CoreTaskBody } from '../runner/task-body.js';
import { AgentBudget } from './budget.js';
import { agentKind, promptOf } from './kind.js';
import { runAgent } from './loop.js';

const fieldsOf = (action: CompiledAction) => action.fields as unknown as AgentFields;

/** The secret references of one agent task, each named by where it is written. */
export function agentSecretUses(fields: AgentFields): SectionSecret[] {
  const { provider, tools } = fields;
  return [
    ...(provider.credential ? [{ reference: provider.credential, where: `spec.providers.${provider.name}.credential` }] : []),
    ...Object.entries(provider.headers).map(([name, reference]) => ({ reference, where: `spec.providers.${provider.name}.headers.${name}` })),
    ...tools.flatMap((tool) => tool.secrets.map((reference, index) => ({ reference, where: `spec.tools.${tool.name}.secrets[${index}]` }))),
  ];
}

/** What `plan` lists under `agents` for one agent task. */
function planAgent(task: CompiledTask, plan: CompiledPlan): Record<string, JsonValue> {
  const { agent, provider, tools } = fieldsOf(plan.actions[task.action]!);
  return {
    task: task.id,
    agent: agent.name,
    provider: { name: provider.name, kind: provider.kind, endpoint: provider.endpoint ?? null },
    model: agent.model,
    // An action tool's effects act for its action: plan shows the action's profile, as the ledger records it.
    tools: tools.map((tool) => ({ name: tool.name, kind: tool.kind, ...(tool.action === undefined ? tool.profile : plan.actions[tool.action]!.profile), approval: tool.approval })),
    limits: { maxTurns: agent.maxTurns, maxToolCalls: agent.maxToolCalls, maxOutputTokens: agent.maxOutputTokens, timeoutSeconds: agent.timeoutSeconds, retry: { ...agent.retry } },
    structuredOutput: agent.structuredOutput !== undefined,
  };
}

/** One attempt: the agent loop, its own effects reserving under the agent budgets, its action tools run as tasks run them. */
async function run(context: CoreBodyContext): Promise<JsonValue> {
  const { shared, bounds, progress } = context.internals!;
  const { budget, plan } = shared;
  const agentBudget = (processes: EffectBudget | undefined) => (budget && AgentBudget.applies(budget) ? new AgentBudget(budget, context.task.id, context.attempt, plan.runtime.pricing, processes) : processes);
  const { context: dispatch, actor } = actionContext(shared, context.action, context.input, { ...bounds, budget: agentBudget });
  return runAgent({
    host: shared.host,
    context: dispatch,
    effect: shared.effects.actingFor(actor),
    fields: fieldsOf(context.action),
    prompt: promptOf(context.input as Record<string, JsonValue>),
    ...(shared.network ? { network: shared.network } : {}),
    ...(plan.runtime.pricing ? { pricing: plan.runtime.pricing } : {}),
    ...(actor.budget instanceof AgentBudget ? { budget: actor.budget } : {}),
    runAction: (tool, callId, toolInput) => dispatchActionTool(shared, tool, callId, toolInput, bounds),
    progress,
  });
}

export const agentBody: CoreTaskBody = Object.freeze({
  kind: AGENT_KIND,
  description: 'A bounded model loop (uses: agent:NAME); every model turn and tool call is a recorded effect.',
  action: agentKind,
  usesProvider: true,
  secrets: (action: CompiledAction) => agentSecretUses(fieldsOf(action)),
  urls: (action: CompiledAction, lookup: TaskBodyLookup) => {
    const { provider } = fieldsOf(action);
    return (lookup.provider(provider.kind)?.urls?.(provider) ?? []).map((url) => ({ url, where: `spec.providers.${provider.name}` }));
  },
  // Tried again only for a definite retryable provider answer (429, 5xx), as the reference does: a refusal (4xx)
  // would be refused again, and an uncertain request is never sent twice.
  retries: (error: { code: string }) => error.code === 'AGENTCTL_E_PROVIDER_UNAVAILABLE',
  planAgent,
  run,
});
