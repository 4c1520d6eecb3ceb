// What `agentctl plan` shows: order, inputs as far as they are known, effect profiles, and every process.
import type { Host } from './host.js';
import type { CompiledPlan, JsonValue, ProcessDescription } from '@agentctl/sdk';
import { renderKnown } from './compiler/known-values.js';
import { taskScope } from './runner/scope.js';
import type { TaskPolicyView } from './policy-preview.js';
import type { PropagatedName } from './propagation.js';
import { planDocument, type PlanDocument, type PlanTaskDocument } from './plan-document.js';

/** A task as `plan` shows it: the reference's fields (see plan-document.ts), and agentctl's own beside them. */
export interface PlanTaskView extends Omit<PlanTaskDocument, 'expansion' | 'compensate'> {
  kind: string;
  /** `static`: the input is fully known now; `dynamic`: it depends on earlier task outputs or memory. */
  inputPredictability: 'static' | 'dynamic';
  effectClass: string;
  risk: string;
  idempotency: string;
  /** What policy will say about the task's effects, judged before the run as `run` would. */
  policy: TaskPolicyView;
  /** A foreach, matrix or loop child: its parent, position and bound variables, and (agentctl's) its form and bound value. */
  expansion?: NonNullable<PlanTaskDocument['expansion']> & { form: string; binding: JsonValue };
  /** A control task (aggregate, router, sub-workflow boundary), evaluated by agentctl with no effect. */
  control: string | null;
  /** The sub-workflow invocation a task belongs to. */
  subworkflow: { name: string; prefix: string } | null;
  /** The router that decides whether the task runs. */
  routedBy: string | null;
  /** The task's declared inverse, run by `agentctl compensate`, with the kind and effect class of its action. */
  compensate?: NonNullable<PlanTaskDocument['compensate']> & { kind: string; effectClass: string };
}

export interface PlanProcessView extends ProcessDescription {
  action: string;
  kind: string;
  tasks: string[];
  /** Environment entries registered propagators add to the process (one the workflow sets is not replaced); absent when none. */
  propagatedEnvironment?: PropagatedName[];
}

export interface PlanView extends Omit<PlanDocument, 'tasks'> {
  tasks: Record<string, PlanTaskView>;
  workflow: string;
  /** sha256 (hex) of the workflow text and its variable files; `workflowDigest` is the same, prefixed `sha256:`. */
  digest: string;
  inputs: Record<string, JsonValue>;
  policy: CompiledPlan['policy'];
  runtime: CompiledPlan['runtime'];
  processes: PlanProcessView[];
  agents: PlanAgentView[];
}

/** An agent task as `plan` shows it: who it talks to, what it may call, and its bounds. */
export interface PlanAgentView {
  readonly task: string;
  readonly agent: string;
  readonly provider: { readonly name: string; readonly kind: string; readonly endpoint: string | null };
  readonly model: string;
  readonly tools: { readonly name: string; readonly kind: string; readonly effectClass: string; readonly risk: string; readonly idempotency: string; readonly approval: string }[];
  readonly limits: { readonly maxTurns: number; readonly maxToolCalls: number; readonly maxOutputTokens: number; readonly timeoutSeconds: number; readonly retry: { readonly maxAttempts: number; readonly backoffMs: number } };
  readonly structuredOutput: boolean;
}

export function describePlan(host: Host, plan: CompiledPlan, policy: ReadonlyMap<string, TaskPolicyView>): PlanView {
  const rendered = new Map(plan.tasks.map((task) => [task.id, renderKnown(task.with, taskScope(plan, task, {}))]));
  const document = planDocument(host, plan, new Map([...rendered].map(([id, item]) => [id, item.value!])));
  const tasks: Record<string, PlanTaskView> = {};
  for (const task of plan.tasks) {
    const { expansion, compensate, ...reference } = document.tasks[task.id]!;
    tasks[task.id] = {
      ...reference,
      kind: task.kind,
      inputPredictability: rendered.get(task.id)!.dynamic ? 'dynamic' : 'static',
      effectClass: task.profile.effectClass,
      risk: task.profile.risk,
      idempotency: task.profile.idempotency,
      policy: policy.get(task.id)!,
      ...(expansion ? { expansion: { ...expansion, form: task.expansion!.form, binding: task.expansion!.binding } } : {}),
      control: task.control ? (task.control.type === 'boundary' ? `${task.control.role} boundary of ${task.control.workflow}@${task.control.version}` : task.control.type === 'aggregate' ? `${task.control.form} aggregate` : 'router') : null,
      subworkflow: task.namespace ? { name: task.namespace.workflow, prefix: task.namespace.prefix } : null,
      routedBy: task.route?.router ?? null,
      ...(compensate ? { compensate: { ...compensate, kind: task.compensate!.kind, effectClass: plan.actions[task.compensate!.action]?.profile.effectClass ?? 'unknown' } } : {}),
    };
  }
  const processes: PlanProcessView[] = [];
  const propagated = host.interception.propagation?.environmentNames() ?? [];
  for (const action of Object.values(plan.actions)) {
    const describe = host.actionKind(action.kind)?.describe;
    if (!describe) continue;
    // One entry per distinct set of limits: tasks sharing an action may give it different timeouts.
    const groups = new Map<string, PlanProcessView>();
    for (const task of plan.tasks.filter((candidate) => candidate.action === action.name)) {
      const description = describe(action.fields, { process: host.process, defaultTimeoutSeconds: plan.runtime.defaultTimeoutSeconds, ...(task.timeoutSeconds === undefined ? {} : { taskTimeoutSeconds: task.timeoutSeconds }) });
      if (!description.process) continue;
      const key = JSON.stringify(description.process);
      const group = groups.get(key);
      if (group) group.tasks.push(task.id);
      else groups.set(key, { action: action.name, kind: action.kind, tasks: [task.id], ...description.process, ...propagatedTo(description.process, propagated) });
    }
    processes.push(...groups.values());
  }
  // What each task's body shows under `agents` (the agent body: provider, model, tools and limits).
  const agents = plan.tasks.flatMap((task) => {
    const entry = host.taskBody(task.kind)?.planAgent?.(task, plan);
    return entry === undefined ? [] : [entry as unknown as PlanAgentView];
  });
  return { ...document, tasks, workflow: plan.name, digest: plan.digest, inputs: { ...plan.inputs }, policy: plan.policy, runtime: plan.runtime, processes, agents };
}

/** What propagators add to a process: the entries the workflow does not set itself. */
function propagatedTo(process: ProcessDescription, names: readonly PropagatedName[]): Pick<PlanProcessView, 'propagatedEnvironment'> {
  const added = names.filter((entry) => !process.environment.includes(entry.name));
  return added.length > 0 ? { propagatedEnvironment: added.map((entry) => ({ ...entry })) } : {};
}
