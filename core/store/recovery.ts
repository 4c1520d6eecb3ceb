// Recovery in the ledger: a run taken up again by `resume`, and runs stopped without an end of their own (a lost
// ledger, a second signal, a failed or cancelled end that leaves nothing waiting). Each is one transaction.
import { AgentctlError, type JsonValue, type TaskState } from '@agentctl/sdk';
import type { ApprovalLedger } from './approvals.js';
import type { CompensationClaims } from './claims.js';
import { UNSAFE_REQUESTED_SQL } from './doubt.js';
import type { EffectLedger } from './effects.js';
import { now, preparedOnce, type LedgerCore } from './ledger-core.js';
import type { RunRow } from './rows.js';
import { LEASE_MS, runNotFound, type RunLedger } from './runs.js';
import type { TaskLedger } from './tasks.js';

export interface RecoveryParts {
  readonly runs: RunLedger;
  readonly tasks: TaskLedger;
  readonly effects: EffectLedger;
  readonly approvals: ApprovalLedger;
  readonly claims: CompensationClaims;
}

// An interrupted run's `requested` effect may have been dispatched: its `started` mark is not synced (doubt.ts).
const REQUESTED = ` OR ${UNSAFE_REQUESTED_SQL}`;
// An effect in doubt whose protocol call committed a remote id, and that no operator reconciled, is continued by
// observing that remote work: it is not in doubt for resume, and the runner takes it up again (protocol-calls.ts).
const CONTINUABLE = `(e.state IN ('started','uncertain') AND EXISTS (SELECT 1 FROM protocol_calls p WHERE p.effect_id = e.id AND p.remote_id IS NOT NULL)
          AND NOT EXISTS (SELECT 1 FROM reconciliations r WHERE r.effect_id = e.id))`;
const doubtful = (requested: string) => `SELECT e.id, e.task_id, e.operation, e.state FROM effects e WHERE e.run_id = ? AND (e.state IN ('started','uncertain')${requested})
          AND NOT ${CONTINUABLE} AND NOT EXISTS (SELECT 1 FROM reconciliations r WHERE r.effect_id = e.id) ORDER BY e.requested_at, e.id`;
const started = (requested: string) => `SELECT e.id, e.task_id, e.state FROM effects e WHERE e.run_id = ? AND (e.state = 'started'${requested}) AND NOT ${CONTINUABLE}`;

export class RunRecovery {
  readonly #core: LedgerCore;
  readonly #parts: RecoveryParts;
  readonly #statements;

  constructor(core: LedgerCore, parts: RecoveryParts) {
    this.#core = core;
    this.#parts = parts;
    this.#statements = preparedOnce(core.db, {
      inDoubtCount: `SELECT count(*) AS n FROM effects WHERE run_id = ? AND state IN ('started','uncertain')`,
      doubtful: doubtful(''),
      doubtfulOfRunning: doubtful(REQUESTED),
      started: started(''),
      startedOfRunning: started(REQUESTED),
      reopenFailedInDoubt: `UPDATE tasks SET state = 'pending', error_json = NULL, finished_at = NULL, updated_at = ? WHERE run_id = ? AND (state = 'skipped'
              OR (state = 'failed' AND task_id IN (SELECT task_id FROM effects WHERE run_id = ? AND state IN ('started','uncertain'))))`,
      reopenUnfinished: `UPDATE tasks SET state = 'pending', finished_at = NULL, updated_at = ? WHERE run_id = ? AND state IN ('ready','running','waiting_for_approval','retry_scheduled','cancelled')`,
      reopenRun: `UPDATE runs SET state = 'running', error_json = NULL, finished_at = NULL, lease_owner = ?, lease_expires_at = ?, updated_at = ? WHERE id = ?`,
      moveWorkspace: `UPDATE runs SET workspace = ? WHERE id = ?`,
      waitingTasks: `SELECT task_id FROM tasks WHERE run_id = ? AND state = 'waiting_for_approval'`,
      waitingEffects: `SELECT id, task_id FROM effects WHERE run_id = ? AND state = 'waiting_for_approval'`,
      startedEffects: `SELECT id, task_id FROM effects WHERE run_id = ? AND state = 'started'`,
      interrupt: `UPDATE runs SET error_json = ?, lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND state = 'running'`,
      drivenRuns: `SELECT id, trace_id FROM runs WHERE lease_owner = ? AND state = 'running'`,
      openEffects: `SELECT id, task_id, state FROM effects WHERE run_id = ? AND state IN ('started', 'requested')`,
      unfinishedTasks: `SELECT task_id FROM tasks WHERE run_id = ? AND state IN ('pending', 'ready', 'running', 'retry_scheduled') ORDER BY position`,
      taskStates: `SELECT task_id, state FROM tasks WHERE run_id = ? ORDER BY position`,
    });
  }

  /**
   * Takes a `paused`, `cancelled` or interrupted run for this process and reopens its unfinished tasks as `pending`, in
   * one transaction: a second process gets RUN_LEASED (exit 5), and an effect in doubt without a reconciliation refuses
   * the resume (exit 3) before anything changes. Reconciled `started` effects of a dead owner become `uncertain`.
   * `workspace`, when it is not the recorded one (`resume --workspace`), becomes the run's workspace in the same
   * transaction, with a `run.workspace_moved` event.
   */
  acquireRun(runId: string, isLive: (row: RunRow) => boolean, workspace?: string): void {
    const { runs, effects, claims } = this.#parts;
    const core = this.#core;
    const sql = this.#statements;
    core.transaction(() => {
      const row = runs.row(runId);
      if (!row) throw runNotFound(runId);
      const state = String(row.state);
      // A refusal names the run it refused, like any error once a run exists.
      const correlation = { runId, traceId: String(row.trace_id) };
      // A run that failed on an effect in doubt (a timeout, a lost connection) continues once that effect is
      // reconciled: until then resume refuses below, like any run with an effect in doubt.
      const failedInDoubt = state === 'failed' && (sql.inDoubtCount.get(runId) as { n: number }).n > 0;
      if (state === 'succeeded' || (state === 'failed' && !failedInDoubt)) {
        throw new AgentctlError('AGENTCTL_E_RUN_NOT_RESUMABLE', `run ${runId} ended ${state} and cannot be resumed`, { help: 'see docs/recovery.md for what can be done with a finished run', ...correlation });
      }
      if (state === 'running' && row.lease_owner !== runs.leaseOwner && isLive(row)) {
        throw new AgentctlError('AGENTCTL_E_RUN_LEASED', `run ${runId} is being driven by ${String(row.lease_owner)}`, { help: 'wait for that process to finish, or for its lease to expire', ...correlation });
      }
      const running = state === 'running';
      const doubts = (running ? sql.doubtfulOfRunning : sql.doubtful).all(runId) as { id: string; task_id: string; operation: string; state: string }[];
      if (doubts.length > 0) {
        const names = doubts.map((effect) => `${effect.id} (${effect.operation}, task ${effect.task_id}, ${effect.state})`).join(', ');
        const blocked = new AgentctlError('AGENTCTL_E_EFFECT_UNRECONCILED', `run ${runId} has effects that may or may not have happened: ${names}`, {
          help: 'check each one, then record what happened: agentctl effects reconcile EFFECT --status applied|not-applied|compensated --reason TEXT',
          ...correlation,
        });
        // The refusal is about this run: its error document names it, as the reference's does.
        throw Object.assign(blocked, { runId, traceId: String(row.trace_id) });
      }
      const at = now();
      for (const effect of (running ? sql.startedOfRunning : sql.started).all(runId) as { id: string; task_id: string; state: string }[]) {
        effects.change(effect.id, 'uncertain', { result: null, error: null, at });
        const reason = effect.state === 'started' ? 'its process ended before the outcome was recorded' : 'its process ended after it was recorded requested; a power loss may have lost its started mark';
        core.audit(runId, { type: 'effect.uncertain', taskId: effect.task_id, effectId: effect.id, data: { reason } });
      }
      // The tasks that failed on an effect in doubt run again (their reconciled effects decide how), and so does
      // everything the failure skipped; a task skipped by its own `when` is skipped again from the same outputs.
      if (failedInDoubt) sql.reopenFailedInDoubt.run(at, runId, runId);
      // Resume reopens what did not finish; a succeeded, failed or skipped task keeps its record and is reused.
      sql.reopenUnfinished.run(at, runId);
      sql.reopenRun.run(runs.leaseOwner, Date.now() + LEASE_MS, at, runId);
      core.audit(runId, { type: 'run.resumed', data: { from: state, owner: runs.leaseOwner, workflow: String(row.workflow_name), traceId: String(row.trace_id) } });
      if (workspace !== undefined && workspace !== String(row.workspace)) {
        sql.moveWorkspace.run(workspace, runId);
        core.audit(runId, { type: 'run.workspace_moved', data: { from: String(row.workspace), to: workspace } });
      }
      // A resumed compensation run holds the claims of the tasks it runs again (or is refused if another run has them).
      claims.retake(runId);
    });
  }

  /**
   * A run that ends failed or cancelled leaves nothing waiting: tasks waiting for approval are cancelled with their
   * effects, and pending approvals are cancelled (nobody can approve an effect of a finished run).
   */
  closeWaiting(runId: string, reason: string): string[] {
    const { tasks, effects, approvals } = this.#parts;
    const at = now();
    const waiting = this.#statements.waitingTasks.all(runId) as { task_id: string }[];
    for (const { task_id: taskId } of waiting) tasks.writeTask(runId, taskId, { state: 'cancelled', finished: true }, { type: 'task.cancelled', data: { reason } });
    for (const effect of this.#statements.waitingEffects.all(runId) as { id: string; task_id: string }[]) {
      effects.change(effect.id, 'cancelled', { result: null, error: null, at });
      this.#core.audit(runId, { type: 'effect.cancelled', taskId: effect.task_id, effectId: effect.id, data: { reason } });
    }
    approvals.cancelPending(runId, reason, at);
    return waiting.map((task) => task.task_id);
  }

  /**
   * The run stops without an end because its ledger failed under an effect: every effect still `started` becomes
   * `uncertain`, the error is kept and the lease released. The run stays `running`, shown as interrupted.
   */
  interruptRun(runId: string, error: JsonValue): void {
    const core = this.#core;
    core.transaction(() => {
      const at = now();
      for (const effect of this.#statements.startedEffects.all(runId) as { id: string; task_id: string }[]) {
        this.#parts.effects.change(effect.id, 'uncertain', { result: null, error: core.sealJson('effects.error_json', error), at });
        core.audit(runId, { type: 'effect.uncertain', taskId: effect.task_id, effectId: effect.id, data: { reason: 'its outcome could not be recorded' } });
      }
      this.#statements.interrupt.run(core.sealJson('runs.error_json', error), at, runId);
      core.audit(runId, { type: 'run.interrupted', data: { error } });
    });
  }

  /**
   * Ends every run this process drives as `cancelled`, at once (a second signal): effects still `started` become
   * `uncertain` (a killed process may have done part of its work), recorded effects not yet started are cancelled,
   * and so is every unfinished task and pending approval. Returns each run with its tasks' final states.
   */
  stopDrivenRuns(reason: string): { runId: string; traceId: string; tasks: Record<string, TaskState> }[] {
    const { runs, tasks, effects } = this.#parts;
    const core = this.#core;
    const sql = this.#statements;
    return core.transaction(() => {
      const at = now();
      const error = core.sealJson('effects.error_json', { code: 'AGENTCTL_E_CANCELLED', message: reason });
      const driven = sql.drivenRuns.all(runs.leaseOwner) as { id: string; trace_id: string }[];
      return driven.map(({ id: runId, trace_id: traceId }) => {
        for (const effect of sql.openEffects.all(runId) as { id: string; task_id: string; state: string }[]) {
          const next = effect.state === 'started' ? 'uncertain' : 'cancelled';
          effects.change(effect.id, next, { result: null, error, at });
          core.audit(runId, { type: `effect.${next}`, taskId: effect.task_id, effectId: effect.id, data: { reason } });
        }
        this.closeWaiting(runId, reason);
        const unfinished = sql.unfinishedTasks.all(runId) as { task_id: string }[];
        for (const { task_id: taskId } of unfinished) tasks.writeTask(runId, taskId, { state: 'cancelled', finished: true }, { type: 'task.cancelled', data: { reason } });
        runs.finishRun(runId, 'cancelled', { error: { code: 'AGENTCTL_E_CANCELLED', message: reason } });
        const states = sql.taskStates.all(runId) as { task_id: string; state: TaskState }[];
        return { runId, traceId, tasks: Object.fromEntries(states.map((task) => [task.task_id, task.state])) };
      });
    });
  }
}
