// The compiled plan as the reference implementation prints it (`plan`'s `data`, and the digests `check` prints): tasks
// keyed by id with a typed `uses`, the plan's requirements, and a plan digest over exactly those, so `check` and `plan`
// agree on it for the same file, whatever inputs `plan` is given.
import { createHash } from 'node:crypto';
import { canonicalJson, type CompiledPlan, type CompiledTask, type JsonValue, type ProviderCapabilities } from '@agentctl/sdk';
import type { Host } from './host.js';

/** Bumped when the shape of the plan document changes. */
export const PLAN_FORMAT_VERSION = 1;

/** `fully_predictable`: known before the run; `partially_predictable`: inputs wait on earlier outputs; `requires_execution`: a model decides. */
export type Predictability = 'fully_predictable' | 'partially_predictable' | 'requires_execution';

/** What a task runs: `{kind: action|agent, name}`, or a control node with its structure. */
export type TaskUse =
  | { kind: 'action' | 'agent'; name: string }
  | { kind: 'aggregate'; name: string[] }
  | { kind: 'router'; name: { select: string; cases: { equals: JsonValue; tasks: string[] }[]; default: string[] } }
  | { kind: 'loop_aggregate'; name: { children: string[]; condition: string } }
  | { kind: 'subworkflow_input'; name: { name: string; version: string } }
  | { kind: 'subworkflow_aggregate'; name: { name: string; version: string; children: string[] } };

/** One task in the reference's fields. */
export interface PlanTaskDocument {
  id: string;
  uses: TaskUse;
  needs: string[];
  expansion?: { parent: string; index: number; bindings: Record<string, JsonValue> };
  routeGuards: { router: string }[];
  /** Working-memory keys the task may write: its kind's literal keys, or its declared memoryWrites (sorted). */
  memoryWrites: string[];
  when: string | null;
  vars: Record<string, JsonValue>;
  input: JsonValue;
  retry: { maxAttempts: number; backoffMs: number };
  timeoutSeconds: number;
  failure: string;
  compensate?: { uses: string; input: JsonValue; retry: { maxAttempts: number; backoffMs: number }; timeoutSeconds: number };
  outputSchema: JsonValue;
  predictability: Predictability;
}

export interface PlanRequirements {
  providers: { name: string; kind: string; agents: string[]; capabilities: string[] }[];
  tools: { name: string; capability: string; effectClass: string; risk: string; approval: string }[];
  effects: { task: string; operation: string; effectClass: string; approvalPossible: boolean; predictability: Predictability }[];
}

/** The reference's plan fields; `describePlan` adds agentctl's own beside them. */
export interface PlanDocument {
  formatVersion: number;
  workflowName: string;
  workflowDigest: string;
  planDigest: string;
  order: string[];
  maxConcurrency: number;
  tasks: Record<string, PlanTaskDocument>;
  predictability: Predictability;
  requirements: PlanRequirements;
}

const RANK: Record<Predictability, number> = { fully_predictable: 0, partially_predictable: 1, requires_execution: 2 };
const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** The plan document. `rendered`, when given, replaces a task's `input` (plan shows inputs as far as they are known); the digest never sees it. */
export function planDocument(host: Host, plan: CompiledPlan, rendered?: ReadonlyMap<string, JsonValue>): PlanDocument {
  const tasks: Record<string, PlanTaskDocument> = {};
  for (const task of plan.tasks) tasks[task.id] = taskDocument(plan, task);
  const requirements = planRequirements(host, plan, tasks);
  const workflowDigest = `sha256:${plan.digest}`;
  const order = plan.tasks.map((task) => task.id);
  const maxConcurrency = plan.runtime.maxConcurrency;
  const planDigest = sha256(canonicalJson([plan.name, workflowDigest, order, maxConcurrency, tasks, requirements] as unknown as JsonValue));
  if (rendered) for (const [id, input] of rendered) tasks[id]!.input = input;
  const predictability = Object.values(tasks).reduce<Predictability>((worst, task) => (RANK[task.predictability] > RANK[worst] ? task.predictability : worst), 'fully_predictable');
  return { formatVersion: PLAN_FORMAT_VERSION, workflowName: plan.name, workflowDigest, planDigest, order, maxConcurrency, tasks, predictability, requirements };
}

function taskDocument(plan: CompiledPlan, task: CompiledTask): PlanTaskDocument {
  const timeout = (seconds: number | undefined) => seconds ?? plan.runtime.defaultTimeoutSeconds;
  return {
    id: task.id,
    uses: taskUse(plan, task),
    needs: [...task.needs],
    ...(task.expansion ? { expansion: { parent: task.expansion.parent, index: task.expansion.index, bindings: expansionBindings(task) } } : {}),
    routeGuards: task.route ? [{ router: task.route.router }] : [],
    memoryWrites: [...(task.memoryWrites ?? [])],
    when: task.when ?? null,
    vars: { ...(task.vars ?? {}) },
    input: task.with,
    retry: { ...task.retry },
    timeoutSeconds: timeout(task.timeoutSeconds),
    failure: task.failure,
    ...(task.compensate ? { compensate: { uses: task.compensate.uses, input: task.compensate.with, retry: { ...task.compensate.retry }, timeoutSeconds: timeout(task.compensate.timeoutSeconds) } } : {}),
    outputSchema: task.outputSchema ?? null,
    predictability: predictabilityOf(task),
  };
}

/** The expansion's bound variables (the item and its index, the matrix cell, the loop index), as the task's vars hold them. */
function expansionBindings(task: CompiledTask): Record<string, JsonValue> {
  const names = { foreach: /Index$/, matrix: /^matrix(Index)?$/, loop: /^loop(Index|Previous)$/ }[task.expansion!.form];
  const vars = task.vars ?? {};
  const bound = Object.entries(vars).filter(([name]) => names.test(name));
  // A foreach item is bound under its `as` name: the var holding exactly the bound item, besides the index.
  if (task.expansion!.form === 'foreach') bound.push(...Object.entries(vars).filter(([name, value]) => !names.test(name) && canonicalJson(value) === canonicalJson(task.expansion!.binding)).slice(0, 1));
  for (const [name, source] of Object.entries(task.bindings ?? {})) bound.push([name, `\${{ tasks.${source}.output }}`]);
  return Object.fromEntries(bound.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function taskUse(plan: CompiledPlan, task: CompiledTask): TaskUse {
  const control = task.control;
  if (!control) {
    const separator = task.uses.indexOf(':');
    return { kind: task.uses.slice(0, separator) as 'action' | 'agent', name: task.uses.slice(separator + 1) };
  }
  if (control.type === 'router') return { kind: 'router', name: { select: control.select, cases: control.cases.map((item) => ({ equals: item.equals, tasks: [...item.tasks] })), default: [...control.default] } };
  if (control.type === 'aggregate') {
    return control.loop ? { kind: 'loop_aggregate', name: { children: [...control.children], condition: control.loop.while } } : { kind: 'aggregate', name: [...control.children] };
  }
  if (control.role === 'input') return { kind: 'subworkflow_input', name: { name: control.workflow, version: control.version } };
  // The invocation's own tasks, without its input boundary, in plan order.
  const children = plan.tasks.filter((other) => other.namespace?.prefix === `${task.id}--` && other.control?.type !== 'boundary').map((other) => other.id);
  return { kind: 'subworkflow_aggregate', name: { name: control.workflow, version: control.version, children } };
}

function predictabilityOf(task: CompiledTask): Predictability {
  if (task.control) return 'fully_predictable';
  if (task.uses.startsWith('agent:')) return 'requires_execution';
  const text = JSON.stringify(task.with);
  return /\$\{\{\s*(not\s+)?(tasks|memory)\./.test(text) ? 'partially_predictable' : 'fully_predictable';
}

/** The reference's capability names for what a provider kind declares; every provider answers text, reports usage and can be cancelled. */
export function capabilityNames(capabilities: ProviderCapabilities): string[] {
  const names = ['text', 'usage', 'cancellation'];
  if (capabilities.tools) names.push('function_tools', 'continuation');
  if (capabilities.structuredOutput) names.push('structured_output');
  if (capabilities.reasoning) names.push('reasoning_effort');
  if (capabilities.streaming) names.push('streaming');
  return names.sort();
}

function planRequirements(host: Host, plan: CompiledPlan, tasks: Record<string, PlanTaskDocument>): PlanRequirements {
  const agents = Object.values(plan.agents ?? {});
  const providers = Object.values(plan.providers ?? {}).map((provider) => ({
    name: provider.name,
    kind: provider.kind,
    agents: agents.filter((agent) => agent.provider === provider.name).map((agent) => agent.name).sort(),
    capabilities: capabilityNames(host.provider(provider.kind)?.capabilities ?? { tools: false, structuredOutput: false, reasoning: false, streaming: false }),
  }));
  const tools = Object.values(plan.tools ?? {}).map((tool) => {
    const profile = tool.action === undefined ? tool.profile : (plan.actions[tool.action]?.profile ?? tool.profile);
    return { name: tool.name, capability: tool.capability, effectClass: profile.effectClass, risk: profile.risk, approval: tool.approval };
  });
  const approval = plan.policy.approval;
  const approvalPossible = (effectClass: string, risk: string) =>
    approval === 'always' || (approval === 'mutations' && !['pure', 'observe', 'model'].includes(effectClass)) || (approval === 'high_risk' && (risk === 'high' || risk === 'critical'));
  const effects: PlanRequirements['effects'] = [];
  for (const task of plan.tasks) {
    if (task.control) continue;
    const predictability = tasks[task.id]!.predictability;
    effects.push({ task: task.id, operation: task.uses, effectClass: task.profile.effectClass, approvalPossible: approvalPossible(task.profile.effectClass, task.profile.risk), predictability });
    if (task.compensate) {
      const profile = plan.actions[task.compensate.action]?.profile ?? task.profile;
      effects.push({ task: task.id, operation: `compensate:${task.compensate.uses}`, effectClass: profile.effectClass, approvalPossible: approvalPossible(profile.effectClass, profile.risk), predictability });
    }
  }
  return { providers, tools, effects };
}
