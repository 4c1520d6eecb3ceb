// What `agentctl plan` shows: order, inputs as far as they are known, effect profiles, and every process.
import { AGENT_KIND, type AgentFields } from './agents/kind.js';
import type { Host } from './host.js';
import type { CompiledPlan, JsonValue, ProcessDescription } from '../sdk/index.js';
import { parseTemplate, renderString, renderValue, type TemplateScope } from './compiler/templates.js';
import { taskScope } from './runner/scope.js';
import type { TaskPolicyView } from './policy-preview.js';

export interface PlanTaskView {
  id: string;
  uses: string;
  kind: string;
  needs: string[];
  /** Inputs rendered where plan-time values suffice; templates on task outputs or memory stay as written. */
  input: JsonValue;
  /** `static`: the input is fully known now; `dynamic`: it depends on earlier task outputs or memory. */
  predictability: 'static' | 'dynamic';
  effectClass: string;
  risk: string;
  idempotency: string;
  when: string | null;
  failure: string;
  retry: { maxAttempts: number; backoffMs: number };
  timeoutSeconds: number;
  /** What policy will say about the task's effects, judged before the run as `run` would. */
  policy: TaskPolicyView;
  /** A foreach, matrix or loop child: its parent, position and binding. */
  expansion: { parent: string; form: string; index: number; binding: JsonValue } | null;
  /** A control task (aggregate, router, sub-workflow boundary), evaluated by agentctl with no effect. */
  control: string | null;
  /** The sub-workflow invocation a task belongs to. */
  subworkflow: { name: string; prefix: string } | null;
  /** The router that decides whether the task runs. */
  routedBy: string | null;
  /** The task's declared inverse, run by `agentctl compensate`. */
  compensate: { uses: string; kind: string; effectClass: string } | null;
}

export interface PlanProcessView extends ProcessDescription {
  action: string;
  kind: string;
  tasks: string[];
}

export interface PlanView {
  workflow: string;
  digest: string;
  order: string[];
  inputs: Record<string, JsonValue>;
  policy: CompiledPlan['policy'];
  runtime: CompiledPlan['runtime'];
  tasks: PlanTaskView[];
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
  const tasks = plan.tasks.map((task): PlanTaskView => {
    const rendered = renderKnown(task.with, taskScope(plan, task, {}));
    return {
      id: task.id,
      uses: task.uses,
      kind: task.kind,
      needs: [...task.needs],
      input: rendered.value,
      predictability: rendered.dynamic ? 'dynamic' : 'static',
      effectClass: task.profile.effectClass,
      risk: task.profile.risk,
      idempotency: task.profile.idempotency,
      when: task.when ?? null,
      failure: task.failure,
      retry: { ...task.retry },
      timeoutSeconds: task.timeoutSeconds ?? plan.runtime.defaultTimeoutSeconds,
      policy: policy.get(task.id)!,
      expansion: task.expansion ? { ...task.expansion } : null,
      control: task.control ? (task.control.type === 'boundary' ? `${task.control.role} boundary of ${task.control.workflow}@${task.control.version}` : task.control.type === 'aggregate' ? `${task.control.form} aggregate` : 'router') : null,
      subworkflow: task.namespace ? { name: task.namespace.workflow, prefix: task.namespace.prefix } : null,
      routedBy: task.route?.router ?? null,
      compensate: task.compensate ? { uses: task.compensate.uses, kind: task.compensate.kind, effectClass: plan.actions[task.compensate.action]?.profile.effectClass ?? 'unknown' } : null,
    };
  });
  const processes: PlanProcessView[] = [];
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
      else groups.set(key, { action: action.name, kind: action.kind, tasks: [task.id], ...description.process });
    }
    processes.push(...groups.values());
  }
  const agents = plan.tasks.flatMap((task): PlanAgentView[] => {
    if (task.kind !== AGENT_KIND) return [];
    const { agent, provider, tools } = plan.actions[task.action]!.fields as unknown as AgentFields;
    return [
      {
        task: task.id,
        agent: agent.name,
        provider: { name: provider.name, kind: provider.kind, endpoint: provider.endpoint ?? null },
        model: agent.model,
        // An action tool's effects act for its action: plan shows the action's profile, as the ledger records it.
        tools: tools.map((tool) => ({ name: tool.name, kind: tool.kind, ...(tool.action === undefined ? tool.profile : plan.actions[tool.action]!.profile), approval: tool.approval })),
        limits: { maxTurns: agent.maxTurns, maxToolCalls: agent.maxToolCalls, maxOutputTokens: agent.maxOutputTokens, timeoutSeconds: agent.timeoutSeconds, retry: { ...agent.retry } },
        structuredOutput: agent.structuredOutput !== undefined,
      },
    ];
  });
  return {
    workflow: plan.name,
    digest: plan.digest,
    order: plan.tasks.map((task) => task.id),
    inputs: { ...plan.inputs },
    policy: plan.policy,
    runtime: plan.runtime,
    tasks,
    processes,
    agents,
  };
}

/** Renders what plan-time values allow; a template on task outputs or memory (or one that fails) stays as written. */
function renderKnown(value: JsonValue, scope: TemplateScope): { value: JsonValue; dynamic: boolean } {
  let dynamic = false;
  const rendered = renderValue(value, scope, (text) => {
    const parsed = parseTemplate(text);
    const later = parsed.segments.some((segment) => 'expression' in segment && (segment.expression.path[0] === 'tasks' || segment.expression.path[0] === 'memory'));
    try {
      if (!later) return renderString(text, scope, parsed);
    } catch {
      // not renderable now: shown as written
    }
    dynamic = true;
    return text;
  });
  return { value: rendered, dynamic };
}
