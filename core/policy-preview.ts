// Policy before the run: `check` and `plan` judge every effect a task will request, as far as the workflow and the
// known inputs determine it, with the core policy phase itself — the same verdicts and codes `run` would give.
import type { CompiledPlan, CompiledTask, DescribedEffect, Diagnostic, JsonValue, PolicyVerdict } from '@agentctl/sdk';
import type { Host } from './host.js';
import { corePolicy } from './policy/engine.js';
import { knownValue } from './compiler/known-values.js';
import type { TemplateScope } from './compiler/templates.js';
import { taskScope } from './runner/scope.js';

/** What policy will say about one task, before the run. */
export interface TaskPolicyView {
  /**
   * `allow`, `needs_approval` or `deny`: the verdict on the task's effects (the most restrictive one). `no_effect`: the
   * kind records no effect, so policy never applies. `unknown`: the access depends on values known only at run time.
   */
  decision: 'allow' | 'needs_approval' | 'deny' | 'no_effect' | 'unknown';
  /** The operations judged, e.g. `filesystem.write`. */
  operations: string[];
  /** For a denial, the code `run` would fail the task with. */
  code: string | null;
  /** Why: the denial, or the approval reason. */
  message: string | null;
  help: string | null;
}

const RESTRICTIVENESS = { allow: 0, needs_approval: 1, deny: 2 } as const;

/** The verdict for every task of the plan, in plan order. `workspaceRoot` is absolute, as `run` resolves it. */
/**
 * `statePaths` are the database and artifact-store paths a run with the same --db would protect; check and plan use the
 * default database unless told otherwise, so a task aimed at agentctl's own state is flagged before the run.
 */
export function previewPolicy(host: Host, plan: CompiledPlan, workspaceRoot: string, statePaths: readonly string[] = []): Map<string, TaskPolicyView> {
  const views = new Map<string, TaskPolicyView>();
  for (const task of plan.tasks) views.set(task.id, previewTask(host, plan, task, taskScope(plan, task, {}), workspaceRoot, statePaths));
  return views;
}

function previewTask(host: Host, plan: CompiledPlan, task: CompiledTask, scope: TemplateScope, workspaceRoot: string, statePaths: readonly string[]): TaskPolicyView {
  const kind = host.actionKind(task.kind)!;
  const view = (decision: TaskPolicyView['decision'], operations: string[] = [], verdict?: PolicyVerdict): TaskPolicyView => ({
    decision,
    operations,
    code: verdict?.decision === 'deny' ? String(verdict.diagnostic.code) : null,
    message: verdict?.decision === 'deny' ? verdict.diagnostic.message : verdict?.decision === 'needs_approval' ? verdict.reason : null,
    help: verdict?.decision === 'deny' ? (verdict.diagnostic.help ?? null) : null,
  });
  const input = knownValue(task.with, scope);
  let effects: readonly DescribedEffect[] | undefined;
  try {
    effects = kind.describe?.(plan.actions[task.action]!.fields, {
      process: host.process,
      defaultTimeoutSeconds: plan.runtime.defaultTimeoutSeconds,
      ...(task.timeoutSeconds === undefined ? {} : { taskTimeoutSeconds: task.timeoutSeconds }),
      ...(input === undefined ? {} : { input }),
    }).effects;
  } catch {
    // A describe that fails says nothing: the run will judge the effect.
    effects = undefined;
  }
  const profile = plan.actions[task.action]!.profile;
  if (effects === undefined || effects.length === 0) return view(profile.effectClass === 'pure' ? 'no_effect' : 'unknown');
  let strongest: PolicyVerdict = { decision: 'allow' };
  for (const effect of effects) {
    const verdict = corePolicy({
      runId: '',
      taskId: task.id,
      kind: kind.name,
      operation: effect.operation,
      access: effect.access,
      profile: { ...profile, ...effect.profile },
      policy: plan.policy,
      workspaceRoot,
      statePaths,
    });
    if (RESTRICTIVENESS[verdict.decision] > RESTRICTIVENESS[strongest.decision]) strongest = verdict;
  }
  return view(strongest.decision, effects.map((effect) => effect.operation), strongest);
}

/**
 * The diagnostics `check` reports: a denial is an error with the code `run` would fail the task with; an approval is a
 * warning with the code a run without a terminal would end with (per policy.nonInteractive).
 */
export function policyDiagnostics(plan: CompiledPlan, views: ReadonlyMap<string, TaskPolicyView>, locate: (task: CompiledTask) => Pick<Diagnostic, 'file' | 'line' | 'column' | 'path'>): Diagnostic[] {
  const approvalCode = { pause: 'AGENTCTL_E_APPROVAL_PENDING', deny_approval: 'AGENTCTL_E_APPROVAL_DENIED', fail: 'AGENTCTL_E_APPROVAL_REQUIRED' }[plan.policy.nonInteractive];
  const approvalOutcome = { pause: 'the run pauses', deny_approval: 'the effect is denied', fail: 'the run fails' }[plan.policy.nonInteractive];
  const out: Diagnostic[] = [];
  for (const task of plan.tasks) {
    const view = views.get(task.id)!;
    if (view.decision === 'deny') {
      out.push({ code: view.code!, severity: 'error', message: `task ${task.id} will be denied: ${view.message}`, ...locate(task), ...(view.help ? { help: view.help } : {}), taskId: task.id });
    } else if (view.decision === 'needs_approval') {
      out.push({
        code: approvalCode,
        severity: 'warning',
        message: `task ${task.id} will need an approval: ${view.message}`,
        ...locate(task),
        help: `at a terminal, run asks; without one, ${approvalOutcome} (policy.nonInteractive: ${plan.policy.nonInteractive}); set policy.approval to change this`,
        taskId: task.id,
      });
    }
  }
  return out;
}
