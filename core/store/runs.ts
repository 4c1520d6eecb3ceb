// The runs part of the ledger: a run's creation with its tasks, its lease, its end, its checkpoints and its reads.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { AgentctlError, type JsonValue, type RunMode, type RunState } from '@agentctl/sdk';
import type { CompensationClaims } from './claims.js';
import { guardedStatements, now, preparedOnce, type LedgerCore } from './ledger-core.js';
import type { RecentRunRow, Row, RunRow } from './rows.js';
import { illegalTransition, RUN_TRANSITIONS } from './transitions.js';

export interface NewRun {
  readonly id: string;
  readonly traceId: string;
  readonly workflowName: string;
  readonly workflowDigest: string;
  readonly workflowFile: string;
  readonly workflowSource: string;
  readonly plan: JsonValue;
  readonly inputs: JsonValue;
  readonly workspace: string;
  readonly tasks: readonly { readonly id: string; readonly kind: string }[];
  /** How the run was created (default `execute`) and, for a linked run, the run it was made from. */
  readonly mode?: RunMode;
  readonly sourceRunId?: string;
  /** The scale-out stage the run executes (`runs.stage_json`); absent for an ordinary run. */
  readonly stage?: JsonValue;
}

export const LEASE_MS = 60_000;

/** The states a run ends in: nothing drives it any more, and nothing but an operator's account changes it. */
export const ENDED_RUN_STATES: readonly RunState[] = ['succeeded', 'failed', 'cancelled'];
export const hasEnded = (state: unknown): boolean => ENDED_RUN_STATES.includes(state as RunState);

/** The refusal of a run id the database does not hold (AGENTCTL_E_RUN_NOT_FOUND, exit 2). */
export const runNotFound = (runId: string): AgentctlError =>
  new AgentctlError('AGENTCTL_E_RUN_NOT_FOUND', `run ${runId} does not exist in this database`, { help: 'list runs with `agentctl runs list`' });

/**
 * Refuses a run that has not ended (AGENTCTL_E_RUN_NOT_TERMINAL, exit 3) for a command that needs one:
 * `run ID is STATE; only a succeeded, failed or cancelled run can be <to>`, with the command's own `help`.
 */
export function requireEnded<R extends { readonly id: unknown; readonly state: unknown }>(run: R, need: { readonly to: string; readonly help: string }): R {
  if (hasEnded(run.state)) return run;
  throw new AgentctlError('AGENTCTL_E_RUN_NOT_TERMINAL', `run ${String(run.id)} is ${String(run.state)}; only a succeeded, failed or cancelled run can be ${need.to}`, { help: need.help });
}

// A `run.cancel_requested` event after the run's latest start or resume, looking only at events after `@after` (every
// event up to it was looked at before and held no such request), and the newest event's seq, the next call's `@after`.
// Seqs only grow (AUTOINCREMENT, one writer at a time): an event committed later always lies after the mark.
const CANCEL_REQUESTED = `SELECT EXISTS (SELECT 1 FROM audit_events WHERE run_id = @run AND seq > @after AND type = 'run.cancel_requested'
  AND seq > (SELECT coalesce(max(seq), 0) FROM audit_events WHERE run_id = @run AND seq > @after AND type IN ('run.started', 'run.resumed')))
  AS requested, (SELECT coalesce(max(seq), 0) FROM audit_events) AS last`;

export class RunLedger {
  readonly #core: LedgerCore;
  readonly #claims: CompensationClaims;
  /** This process, as the owner of the runs it drives: `host:pid:nonce` (liveness.ts reads it back). */
  readonly leaseOwner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly #checkpointSeq = new Map<string, number>();
  /** Per run: the seq up to which the audit events hold no cancellation request for this drive of it. */
  readonly #cancelCheckedTo = new Map<string, number>();
  readonly #statements;
  readonly #finish;

  constructor(core: LedgerCore, claims: CompensationClaims) {
    this.#core = core;
    this.#claims = claims;
    this.#statements = preparedOnce(core.db, {
      insert: `
          INSERT INTO runs (id, trace_id, workflow_name, workflow_digest, workflow_file, workflow_source, plan_json, inputs_json, memory_json,
            workspace, state, mode, source_run_id, lease_owner, lease_expires_at, created_at, updated_at, stage_json)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)`,
      insertTask: `INSERT INTO tasks (run_id, task_id, position, kind, state, updated_at) VALUES (?, ?, ?, ?, 'pending', ?)`,
      lease: `SELECT lease_owner, lease_expires_at FROM runs WHERE id = ?`,
      takeLease: `UPDATE runs SET lease_owner = ?, lease_expires_at = ? WHERE id = ?`,
      state: `SELECT state FROM runs WHERE id = ?`,
      checkpointSeq: `SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM checkpoints WHERE run_id = ?`,
      insertCheckpoint: `INSERT INTO checkpoints (run_id, seq, task_id, state_json, at) VALUES (?, ?, ?, ?, ?)`,
      cancelRequested: CANCEL_REQUESTED,
      row: `SELECT * FROM runs WHERE id = ?`,
      recent: `SELECT id, workflow_name, state, mode, created_at, finished_at, lease_owner, lease_expires_at, stage_json FROM runs ORDER BY created_at DESC, id DESC LIMIT ?`,
      compensations: `SELECT * FROM runs WHERE source_run_id = ? AND mode = 'compensation' ORDER BY created_at, id`,
      staged: `SELECT * FROM runs WHERE stage_json IS NOT NULL ORDER BY created_at, id`,
      planIsJson: `SELECT plan_json IS NULL OR json_valid(plan_json) AS valid FROM runs WHERE id = ?`,
      checkpoints: `SELECT * FROM checkpoints WHERE run_id = ? ORDER BY seq`,
      audit: `SELECT * FROM audit_events WHERE run_id = ? ORDER BY seq`,
    });
    this.#finish = guardedStatements<RunState>(
      core.db,
      (from) => `
        UPDATE runs SET state = @state, output_json = COALESCE(@output, output_json), error_json = @error, memory_json = COALESCE(@memory, memory_json),
          updated_at = @at, finished_at = @finishedAt, lease_owner = NULL, lease_expires_at = NULL WHERE id = @id AND state IN (${from})`,
      RUN_TRANSITIONS,
    );
  }

  createRun(run: NewRun): void {
    const core = this.#core;
    const at = now();
    core.transaction(() => {
      this.#statements.insert.run(run.id, run.traceId, run.workflowName, run.workflowDigest, core.text(run.workflowFile), core.sealText('runs.workflow_source', run.workflowSource), core.sealJson('runs.plan_json', run.plan), core.sealJson('runs.inputs_json', run.inputs), this.#emptyMemory(), core.text(run.workspace), run.mode ?? 'execute', run.sourceRunId ?? null, this.leaseOwner, Date.now() + LEASE_MS, at, at, run.stage === undefined ? null : core.json(run.stage));
      run.tasks.forEach((task, position) => this.#statements.insertTask.run(run.id, task.id, position, task.kind, at));
      core.audit(run.id, { type: 'run.started', data: { workflow: run.workflowName, digest: run.workflowDigest, traceId: run.traceId } });
    });
  }

  /** The working memory a run starts with (the column's default, `{}`), sealed like any other. */
  #emptyMemory(): string {
    return this.#core.encrypted ? this.#core.seal('runs.memory_json', '{}')! : '{}';
  }

  /** Extends this process's lease on a run; another live owner means exit 5. */
  renewLease(runId: string): void {
    this.#core.transaction(() => {
      const row = this.#statements.lease.get(runId) as { lease_owner: string | null; lease_expires_at: number | null } | undefined;
      if (!row) throw runNotFound(runId);
      if (row.lease_owner && row.lease_owner !== this.leaseOwner && (row.lease_expires_at ?? 0) > Date.now()) {
        throw new AgentctlError('AGENTCTL_E_RUN_LEASED', `run ${runId} is being driven by ${row.lease_owner}`, { help: 'wait for that process to finish, or for its lease to expire' });
      }
      this.takeLease(runId);
    });
  }

  /** Gives this process the run's lease for the next minute; call inside a transaction. */
  takeLease(runId: string): void {
    this.#statements.takeLease.run(this.leaseOwner, Date.now() + LEASE_MS, runId);
  }

  finishRun(runId: string, state: RunState, result: { output?: JsonValue; error?: JsonValue; memory?: JsonValue }): void {
    const core = this.#core;
    core.transaction(() => {
      const at = now();
      const terminal = state !== 'paused' && state !== 'running';
      const { changes } = this.#finish(state).run({
        id: runId,
        state,
        output: core.sealJson('runs.output_json', result.output),
        error: core.sealJson('runs.error_json', result.error),
        memory: core.sealJson('runs.memory_json', result.memory),
        at,
        finishedAt: terminal ? at : null,
      });
      if (changes !== 1) throw illegalTransition('run', runId, (this.#statements.state.get(runId) as { state: string } | undefined)?.state, state);
      core.audit(runId, { type: `run.${state}`, ...(result.error === undefined ? {} : { data: { error: result.error } }) });
      // A compensation run that ends without having undone a source effect lets another run undo it.
      if (terminal) this.#claims.release(runId, at);
    });
  }

  /** Call inside a transaction. Sequence numbers are kept in memory: this process holds the run's lease. */
  checkpoint(runId: string, taskId: string | null, state: JsonValue): void {
    const next = this.#checkpointSeq.get(runId) ?? (this.#statements.checkpointSeq.get(runId) as { next: number }).next;
    this.#statements.insertCheckpoint.run(runId, next, taskId, this.#core.sealJson('checkpoints.state_json', state), now());
    this.#checkpointSeq.set(runId, next + 1);
  }

  /**
   * Whether `agentctl cancel` asked the process driving the run to stop: a `run.cancel_requested` event after the
   * run's latest start or resume (a request an earlier drive already honoured does not stop a resumed run).
   */
  cancelRequested(runId: string): boolean {
    const after = this.#cancelCheckedTo.get(runId) ?? 0;
    const row = this.#core.read(() => this.#statements.cancelRequested.get({ run: runId, after })) as { requested: number; last: number };
    if (row.requested === 1) return true;
    // Only committed events make the mark: rows of an open transaction of ours could still be rolled back.
    if (!this.#core.db.inTransaction) this.#cancelCheckedTo.set(runId, row.last);
    return false;
  }

  /** The run's row inside the caller's transaction (no read wrapper). */
  row(runId: string): RunRow | undefined {
    return this.#core.opened('runs', this.#statements.row.get(runId) as RunRow | undefined);
  }

  runRow(runId: string): RunRow | undefined {
    return this.#core.read(() => this.row(runId));
  }

  /** The run's row; a run the database does not hold is AGENTCTL_E_RUN_NOT_FOUND. */
  existingRun(runId: string): RunRow {
    const run = this.runRow(runId);
    if (!run) throw runNotFound(runId);
    return run;
  }

  /** The newest runs first, with their lease (for liveness). */
  recentRuns(limit: number): RecentRunRow[] {
    return this.#core.read(() => this.#statements.recent.all(limit) as RecentRunRow[]);
  }

  /** The compensation runs made from a run, oldest first. */
  compensationRuns(sourceRunId: string): RunRow[] {
    return this.#core.read(() => this.#core.openedAll('runs', this.#statements.compensations.all(sourceRunId) as RunRow[]));
  }

  /** The runs of a scale-out stage (prepare, shard, gather), oldest first. */
  stagedRuns(): RunRow[] {
    return this.#core.read(() => this.#core.openedAll('runs', this.#statements.staged.all() as RunRow[]));
  }

  /**
   * Whether a run's stored plan is valid JSON, checked by SQLite without reading it into the process. SQLite cannot see
   * into an envelope: on an encrypted database this is false, and the plan is read (opened and parsed) to know.
   */
  planIsJson(runId: string): boolean {
    if (this.#core.encrypted) return false;
    return this.#core.read(() => Boolean((this.#statements.planIsJson.get(runId) as { valid: number } | undefined)?.valid));
  }

  checkpointRows(runId: string): Row[] {
    return this.#core.read(() => this.#core.openedAll('checkpoints', this.#statements.checkpoints.all(runId) as Row[]));
  }

  auditRows(runId: string): Row[] {
    return this.#core.read(() => this.#core.openedAll('audit_events', this.#statements.audit.all(runId) as Row[]));
  }
}
