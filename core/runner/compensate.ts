// Compensation: a terminal run's applied effects undone by the inverse actions its tasks declare (`compensate`), as
// a new run linked to it (mode `compensation`). The plan is read from the source's durable effects and nothing of the
// source changes, except that each effect a compensation task undid gets a `compensated` reconciliation appended.
import { setMaxListeners } from 'node:events';
import { AgentctlError, diagnostic, type CompensationSettings, type CompiledPlan, type CompiledTask, type Disposition, type EffectClass, type JsonValue, type ResolvedPolicy } from '@agentctl/sdk';
import { parser } from '../store/inspection.js';
import type { Lineage } from '../store/lineage.js';
import { hasEnded, requireEnded, type Row, type Store } from '../store/store.js';
import { effectsByTask } from './derive-plan.js';
import { newRunIdentity } from './identity.js';
import { drive, newRunRecord, preflight, type RunRequest, type RunResult } from './run.js';
import { Scheduler } from './scheduler.js';
import { RunPublisher } from './publisher.js';
import { SecretVault } from './secrets.js';
import type { SourceEffect } from './reuse-checks.js';

/** Effect classes that change nothing: there is nothing of theirs to undo. */
const NO_CHANGE: ReadonlySet<string> = new Set<EffectClass>(['pure', 'internal_state', 'observe']);

/**
 * What planning decided for one source task that declares `compensate`:
 * - `compensate`: effects of it happened (succeeded, or reconciled applied) and are not compensated yet;
 * - `compensated`: every one that happened is already compensated;
 * - `nothing_applied`: none happened (failed, not applied, never dispatched);
 * - `blocked`: one of its effects (or of an earlier compensation of it) may or may not have happened;
 * - `claimed`: every one left to compensate is claimed by another compensation run, which undoes it (or did).
 */
export type CompensationDisposition = 'compensate' | 'compensated' | 'nothing_applied' | 'blocked' | 'claimed';

/** A source effect another compensation run holds: only that run may undo it. */
export interface ClaimedEffect {
  readonly effectId: string;
  readonly runId: string;
  readonly runState: string;
}

export interface PlannedCompensation {
  readonly taskId: string;
  readonly disposition: CompensationDisposition;
  readonly reason: string;
  /** The inverse action, `action:NAME`. */
  readonly uses: string;
  /** The source effects the compensation task undoes (with `compensate`), or those that block it. */
  readonly effectIds: readonly string[];
  /** The id of the task the compensation run gives it (with `compensate`). */
  readonly compensationTaskId?: string;
  /** Its effects left to compensate that other compensation runs have claimed (with `compensate` and `claimed`). */
  readonly claimedBy?: readonly ClaimedEffect[];
}

export interface CompensationBlock {
  readonly taskId: string;
  readonly effectId: string;
  readonly message: string;
}

/** What `compensate --plan` prints (kind `CompensationPlan`) and what the compensation run is made from. */
export interface CompensationPlan {
  readonly sourceRunId: string;
  readonly workflow: string;
  readonly sourceState: string;
  readonly onFailure: CompensationSettings['onFailure'];
  readonly approval: CompensationSettings['approval'];
  /** False when a selected task is blocked: nothing is run. */
  readonly executable: boolean;
  /** Tasks that declare `compensate` (those selected by --task), in reverse compiled order: the order they run in. */
  readonly tasks: readonly PlannedCompensation[];
  readonly blocks: readonly CompensationBlock[];
}

const DEFAULTS: CompensationSettings = { onFailure: 'manual', approval: 'policy' };

export const compensationTaskId = (sourceTaskId: string) => `compensate-${sourceTaskId}`;

/** The source run, which must exist and have ended. */
export function compensationSource(store: Store, runId: string): Row {
  return requireEnded(store.existingRun(runId), { to: 'compensated', help: 'resume the run (or let the process driving it finish) first, then compensate it' });
}

/** Plans the compensation of `source` from its durable effects. Reads only: `--plan` writes nothing. */
export function planCompensation(store: Store, source: Row, selected: readonly string[] = []): CompensationPlan {
  const sourceRunId = String(source.id);
  const plan = parser(sourceRunId)('runs', 'plan_json', source) as unknown as CompiledPlan;
  const settings = plan.compensation ?? DEFAULTS;
  const declared = chosenTasks(plan, sourceRunId, selected);
  const effects = sourceEffects(store, sourceRunId);
  const earlier = earlierCompensations(store, sourceRunId);
  const held = store.claims.held(sourceRunId);
  const tasks: PlannedCompensation[] = [];
  const blocks: CompensationBlock[] = [];
  for (const task of declared) {
    const uses = task.compensate!.uses;
    const own = effects.get(task.id) ?? [];
    const doubtful = own.filter((effect) => (effect.state === 'started' || effect.state === 'uncertain') && effect.reconciled === null);
    const pending = earlier.inDoubt.get(task.id) ?? [];
    if (doubtful.length > 0 || pending.length > 0) {
      for (const effect of doubtful) {
        blocks.push({ taskId: task.id, effectId: effect.id, message: `task ${task.id}'s effect ${effect.id} (${effect.operation}) is ${effect.state} in run ${sourceRunId}: it may or may not have happened` });
      }
      for (const effect of pending) {
        blocks.push({ taskId: task.id, effectId: effect.id, message: `the compensation of task ${task.id} in run ${effect.runId} has effect ${effect.id} (${effect.operation}) ${effect.state}: it may or may not have happened` });
      }
      tasks.push({ taskId: task.id, disposition: 'blocked', reason: 'unreconciled_effect', uses, effectIds: [...doubtful.map((effect) => effect.id), ...pending.map((effect) => effect.id)] });
      continue;
    }
    const happened = own.filter((effect) => effect.reconciled === 'applied' || (effect.state === 'succeeded' && effect.reconciled === null));
    const undone = own.filter((effect) => effect.reconciled === 'compensated' || earlier.applied.has(effect.id));
    const remaining = happened.filter((effect) => !earlier.applied.has(effect.id));
    const free = remaining.filter((effect) => !held.has(effect.id)).map((effect) => effect.id);
    const claimedBy = remaining.filter((effect) => held.has(effect.id)).map((effect): ClaimedEffect => ({ effectId: effect.id, runId: held.get(effect.id)!.runId, runState: held.get(effect.id)!.runState }));
    const claims = claimedBy.length > 0 ? { claimedBy } : {};
    if (free.length > 0) {
      tasks.push({ taskId: task.id, disposition: 'compensate', reason: 'applied_effect', uses, effectIds: free, compensationTaskId: compensationTaskId(task.id), ...claims });
    } else if (claimedBy.length > 0) {
      tasks.push({ taskId: task.id, disposition: 'claimed', reason: 'claimed_by_run', uses, effectIds: claimedBy.map((claim) => claim.effectId), ...claims });
    } else if (undone.length > 0) {
      tasks.push({ taskId: task.id, disposition: 'compensated', reason: 'already_compensated', uses, effectIds: undone.map((effect) => effect.id) });
    } else {
      const reason = own.some((effect) => effect.reconciled === 'not_applied') ? 'reconciled_not_applied' : own.length === 0 ? 'no_effect' : 'no_applied_effect';
      tasks.push({ taskId: task.id, disposition: 'nothing_applied', reason, uses, effectIds: [] });
    }
  }
  return { sourceRunId, workflow: plan.name, sourceState: String(source.state), onFailure: settings.onFailure, approval: settings.approval, executable: blocks.length === 0, tasks, blocks };
}

/** The source tasks with a `compensate`, latest first; `--task` narrows them (each must exist and declare one). */
function chosenTasks(plan: CompiledPlan, sourceRunId: string, selected: readonly string[]): CompiledTask[] {
  const byId = new Map(plan.tasks.map((task) => [task.id, task]));
  for (const id of selected) {
    const task = byId.get(id);
    if (!task) throw new AgentctlError('AGENTCTL_E_UNKNOWN_TASK', `--task ${id}: run ${sourceRunId} has no task ${id}`, { help: `tasks that declare compensate: ${declaredIds(plan) || '(none)'}` });
    if (!task.compensate) {
      throw new AgentctlError('AGENTCTL_E_COMPENSATION_NOT_DECLARED', `--task ${id}: task ${id} of run ${sourceRunId} declares no compensate`, { help: `tasks that declare compensate: ${declaredIds(plan) || '(none)'}` });
    }
  }
  return plan.tasks.filter((task) => task.compensate && (selected.length === 0 || selected.includes(task.id))).reverse();
}

const declaredIds = (plan: CompiledPlan) => plan.tasks.filter((task) => task.compensate).map((task) => task.id).join(', ');

/** The source's effects that change something, by task, with their latest reconciliation. */
function sourceEffects(store: Store, runId: string): Map<string, SourceEffect[]> {
  const byTask = effectsByTask(store, runId);
  for (const [taskId, effects] of byTask) byTask.set(taskId, effects.filter((effect) => !NO_CHANGE.has(effect.effectClass)));
  return byTask;
}

/**
 * What earlier compensation runs of the source left: compensation effects of ended runs still in doubt (by source task), and the
 * source effects whose compensation effect an operator reconciled `applied` (their compensation happened).
 */
function earlierCompensations(store: Store, sourceRunId: string) {
  const inDoubt = new Map<string, { id: string; runId: string; operation: string; state: string }[]>();
  const applied = new Set<string>();
  for (const run of store.compensationRuns(sourceRunId)) {
    const runId = String(run.id);
    const ended = hasEnded(run.state);
    const plan = parser(runId)('runs', 'plan_json', run) as unknown as CompiledPlan;
    const targets = new Map(plan.tasks.filter((task) => task.compensates).map((task) => [task.id, task.compensates!]));
    const reconciled = store.latestReconciliations(runId);
    for (const effect of store.effectRows(runId)) {
      const target = targets.get(String(effect.task_id));
      if (!target) continue;
      const outcome = reconciled.get(String(effect.id))?.outcome;
      // A run that has not ended (running, paused, interrupted) holds the claim on what it undoes: the claim decides.
      if ((effect.state === 'started' || effect.state === 'uncertain') && outcome === undefined && ended) {
        inDoubt.set(target.taskId, [...(inDoubt.get(target.taskId) ?? []), { id: String(effect.id), runId, operation: String(effect.operation), state: String(effect.state) }]);
      } else if (outcome === 'applied') {
        for (const id of target.effectIds) applied.add(id);
      }
    }
  }
  return { inDoubt, applied };
}

/** The error a blocked plan ends the command with (exit 3): one diagnostic per effect in doubt, nothing written. */
export function compensationBlocked(plan: CompensationPlan): AgentctlError {
  const diagnostics = plan.blocks.map((block) =>
    diagnostic('AGENTCTL_E_COMPENSATION_BLOCKED', {
      message: block.message,
      path: `tasks.${block.taskId}`,
      taskId: block.taskId,
      help: `check whether it happened, then: agentctl effects reconcile ${block.effectId} --status applied|not-applied --reason TEXT (or leave the task out with --task)`,
    }),
  );
  const tasks = [...new Set(plan.blocks.map((block) => block.taskId))].join(', ');
  return new AgentctlError('AGENTCTL_E_COMPENSATION_BLOCKED', `the compensation of run ${plan.sourceRunId} is blocked by effects in doubt (task ${tasks}); nothing was written`, { diagnostics });
}

/** Whether the plan leaves a task to compensate. */
export const hasWork = (plan: CompensationPlan) => plan.tasks.some((task) => task.disposition === 'compensate');

/** The error a plan whose every task left to compensate is claimed ends the command with (exit 3); nothing written. */
export function compensationClaimed(plan: CompensationPlan): AgentctlError {
  const claimed = plan.tasks.filter((task) => task.disposition === 'claimed');
  const diagnostics = claimed.map((task) => {
    const runs = [...new Set(task.claimedBy!.map((claim) => `${claim.runId} (${claim.runState})`))].join(', ');
    return diagnostic('AGENTCTL_E_COMPENSATION_CLAIMED', {
      message: `task ${task.taskId}'s effect(s) ${task.effectIds.join(', ')} are claimed by compensation run ${runs}`,
      path: `tasks.${task.taskId}`,
      taskId: task.taskId,
      help: `only that run undoes them: continue it (agentctl approvals list RUN, agentctl resume RUN) or wait for it to end`,
    });
  });
  const runs = [...new Set(claimed.flatMap((task) => task.claimedBy!.map((claim) => claim.runId)))].join(', ');
  return new AgentctlError('AGENTCTL_E_COMPENSATION_CLAIMED', `every effect of run ${plan.sourceRunId} left to compensate is claimed by compensation run ${runs}; nothing was written`, { diagnostics });
}

/** Nothing of the plan can run: it is blocked, or what is left is claimed by other runs (then the error says so). */
export function refusal(plan: CompensationPlan): AgentctlError | undefined {
  if (!plan.executable) return compensationBlocked(plan);
  if (!hasWork(plan) && plan.tasks.some((task) => task.disposition === 'claimed')) return compensationClaimed(plan);
  return undefined;
}

/** The approval rule of `spec.compensation.approval` applied to the source's policy. */
function compensationPolicy(policy: ResolvedPolicy, approval: CompensationSettings['approval']): ResolvedPolicy {
  return approval === 'policy' ? policy : { ...policy, approval };
}

/**
 * The plan a compensation run executes: one task per task to compensate, in the order planned, each running the
 * declared action with `failure: continue` (a failed inverse never stops the others), one at a time.
 */
export function compensationRunPlan(source: CompiledPlan, planned: CompensationPlan): CompiledPlan {
  const byId = new Map(source.tasks.map((task) => [task.id, task]));
  const tasks = planned.tasks
    .filter((entry) => entry.disposition === 'compensate')
    .map((entry, index): CompiledTask => {
      const task = byId.get(entry.taskId)!;
      const declared = task.compensate!;
      const prefix = task.namespace?.prefix ?? '';
      const written = (task.expansion?.parent ?? task.id).slice(prefix.length);
      return {
        id: entry.compensationTaskId!,
        index,
        uses: declared.uses,
        action: declared.action,
        kind: declared.kind,
        needs: [],
        with: declared.with,
        retry: declared.retry,
        ...(declared.timeoutSeconds === undefined ? {} : { timeoutSeconds: declared.timeoutSeconds }),
        failure: 'continue',
        profile: source.actions[declared.action]!.profile,
        ...(task.vars ? { vars: task.vars } : {}),
        ...(task.varsFiles ? { varsFiles: task.varsFiles } : {}),
        ...(task.bindings ? { bindings: task.bindings } : {}),
        ...(task.namespace ? { namespace: task.namespace } : {}),
        compensates: { sourceRunId: planned.sourceRunId, taskId: task.id, self: written, effectIds: entry.effectIds, reads: [...task.needs, prefix + written] },
      };
    });
  const { compensation: _compensation, ...rest } = source;
  return { ...rest, outputs: {}, policy: compensationPolicy(source.policy, planned.approval), runtime: { ...source.runtime, maxConcurrency: 1 }, tasks };
}

/** The outputs of the source's tasks, as its compensation templates read them. */
export function sourceOutputs(store: Store, sourceRunId: string): Record<string, { output: JsonValue }> {
  const parse = parser(sourceRunId);
  const outputs: Record<string, { output: JsonValue }> = {};
  for (const row of store.taskRows(sourceRunId)) {
    if (row.output_json !== null) outputs[String(row.task_id)] = { output: parse('tasks', 'output_json', row, `task ${String(row.task_id)}`) };
  }
  return outputs;
}

export interface CompensateRequest extends Omit<RunRequest, 'plan'> {
  readonly sourceRow: Row;
  readonly planned: CompensationPlan;
  readonly reason?: string;
}

/** Runs the compensation planned for a source run as a new linked run; the plan must be executable. */
export async function compensateRun(request: CompensateRequest): Promise<RunResult> {
  const { store, sourceRow } = request;
  const refused = refusal(request.planned);
  if (refused) throw refused;
  setMaxListeners(0, request.signal);
  const sourceRunId = request.planned.sourceRunId;
  const source = parser(sourceRunId)('runs', 'plan_json', sourceRow) as unknown as CompiledPlan;
  // An effect whose earlier compensation an operator reconciled applied is marked compensated now.
  finalizeReconciledCompensations(store, sourceRunId);
  const vault = new SecretVault(() => store.digestKey());
  // Secrets are resolved for the tasks planned; the run takes those of them still unclaimed when it is created.
  const preflighted = compensationRunPlan(source, request.planned);
  await preflight({ ...request, plan: preflighted }, vault, preflighted.tasks);
  store.setRedactor(vault.redactor.redactValue, () => vault.redactor.size);

  const { runId, traceId } = newRunIdentity();
  const publisher = new RunPublisher(request.host, store, runId);
  const { plan, run } = claimAndCreate(request, source, runId, traceId);
  const roots = plan.tasks.map((task) => task.compensates!.taskId);
  const dispositions: Record<string, Disposition> = Object.fromEntries(plan.tasks.map((task) => [task.id, 'executed' as Disposition]));
  const result = await drive(run, { runId, traceId, scheduler: new Scheduler(plan.tasks), outputs: sourceOutputs(store, sourceRunId), attempts: new Map(), dispositions, vault, publisher });
  return { ...result, details: { mode: 'compensation', sourceRunId, compensated: roots } };
}

/**
 * Plans again under the write lock, then creates the compensation run and claims each source effect it undoes, in one
 * transaction: of concurrent `compensate` commands, each source effect goes to one run, whatever each planned before.
 * Tasks that became compensable only since the first plan are left to a later compensate (their secrets were not
 * resolved). Nothing is written when nothing is left to run.
 */
function claimAndCreate(request: CompensateRequest, source: CompiledPlan, runId: string, traceId: string) {
  const { store, sourceRow } = request;
  const first = new Set(request.planned.tasks.filter((task) => task.disposition === 'compensate').map((task) => task.taskId));
  return store.transaction(() => {
    const again = planCompensation(store, sourceRow, request.planned.tasks.map((task) => task.taskId));
    const planned = { ...again, tasks: again.tasks.filter((task) => task.disposition !== 'compensate' || first.has(task.taskId)) };
    const refused = refusal(planned);
    if (refused) throw refused;
    if (!hasWork(planned)) throw new AgentctlError('AGENTCTL_E_COMPENSATION_CLAIMED', `nothing of run ${planned.sourceRunId} is left to compensate: another compensation run undid it meanwhile; nothing was written`, { help: `see agentctl compensate ${planned.sourceRunId} --plan` });
    const plan = compensationRunPlan(source, planned);
    const run: RunRequest = { ...request, plan };
    const roots = plan.tasks.map((task) => task.compensates!.taskId);
    const lineage: Lineage = { mode: 'compensation', sourceRunId: planned.sourceRunId, roots, ...(request.reason === undefined ? {} : { reason: request.reason }), plan: planned as unknown as JsonValue };
    store.createDerivedRun({ ...newRunRecord(run, runId, traceId), sourceRunId: planned.sourceRunId }, [], lineage);
    const claims = plan.tasks.flatMap((task) => task.compensates!.effectIds.map((effectId) => ({ effectId, sourceRunId: planned.sourceRunId, compensationRunId: runId, compensationTaskId: task.id })));
    store.claims.take(claims, new Date().toISOString());
    return { planned, plan, run };
  });
}

/** `compensated` reconciliations for source effects whose compensation effect was reconciled `applied` by an operator. */
function finalizeReconciledCompensations(store: Store, sourceRunId: string): void {
  store.transaction(() => {
    for (const run of store.compensationRuns(sourceRunId)) {
      const runId = String(run.id);
      const plan = parser(runId)('runs', 'plan_json', run) as unknown as CompiledPlan;
      const reconciled = store.latestReconciliations(runId);
      for (const task of plan.tasks) {
        if (!task.compensates) continue;
        const applied = store.effectRows(runId).filter((effect) => effect.task_id === task.id && reconciled.get(String(effect.id))?.outcome === 'applied');
        if (applied.length > 0) store.recordCompensation({ runId, taskId: task.id, effectId: String(applied.at(-1)!.id) }, task.compensates.effectIds);
      }
    }
  });
}
