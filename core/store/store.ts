// The effect ledger: every state change commits with the audit event that describes it.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { AgentctlError, errorMessage, isAgentctlError, type AuditEventType, type Disposition, type EffectProfile, type EffectState, type JsonValue, type RunMode, type RunState, type TaskState } from '@agentctl/sdk';
import { databaseError, openDatabase, type SqliteDatabase } from './database.js';
import { collectGarbage, isLargeValue } from './garbage.js';
import { statePaths } from './state-paths.js';
import { BudgetLedger } from './budget.js';
import { CompensationClaims } from './claims.js';
import { Maintenance } from './maintenance.js';
import { UNSAFE_REQUESTED_SQL, type RunDrive } from './doubt.js';
import type { TaskArtifact } from './artifacts.js';
import { INSERT_LINEAGE, INSERT_REUSE, outputDigestOf, SELECT_LINEAGE, SELECT_REUSE, type Lineage, type ReusedTask } from './lineage.js';
import { EFFECT_TRANSITIONS, illegalTransition, predecessorList, RUN_TRANSITIONS, TASK_TRANSITIONS } from './transitions.js';
import { EventSequence } from './event-sequence.js';

/** A row as SQLite returns it. */
export type Row = Record<string, string | number | null>;

export type { Disposition, EffectState, RunState, TaskState } from '@agentctl/sdk';

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
}

export interface NewEffect {
  readonly id: string;
  readonly runId: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly ordinal: number;
  readonly kind: string;
  readonly operation: string;
  readonly profile: EffectProfile;
  readonly input: JsonValue;
  readonly inputDigest: string;
  /** `JSON.stringify(input)`, when the caller has it without serializing the input again (the agent loop does). */
  readonly inputJson?: string;
}

export interface EffectRow {
  id: string;
  run_id: string;
  task_id: string;
  attempt: number;
  ordinal: number;
  kind: string;
  operation: string;
  effect_class: string;
  risk: string;
  idempotency: string;
  input_json: string;
  input_digest: string;
  state: EffectState;
  result_json: string | null;
  error_json: string | null;
  requested_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface TaskPatch {
  readonly state: TaskState;
  readonly attempt?: number;
  readonly input?: JsonValue;
  readonly output?: JsonValue;
  readonly error?: JsonValue;
  readonly disposition?: Disposition;
  readonly started?: boolean;
  readonly finished?: boolean;
}

export interface AuditEvent {
  /** One of the SDK's audit event names: a new kind of event is declared there first. */
  readonly type: AuditEventType;
  readonly taskId?: string;
  readonly effectId?: string;
  readonly data?: Record<string, JsonValue>;
}

const now = () => new Date().toISOString();
const LEASE_MS = 60_000;

/**
 * One open database; the handle never leaves this class. Every JSON document (plan, inputs, outputs, results,
 * errors, audit data) is redacted value by value before it is serialized, and every free-text column (workflow
 * source, paths, operation, approval reasons) as text, as a last line of defence: secret values must never reach the
 * file even if a plugin forgot to redact, or a run input repeats a secret. Every state change goes through the
 * transition table (transitions.ts).
 */
export class Store {
  readonly #db: SqliteDatabase;
  readonly leaseOwner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  #redact: <T>(value: T) => T = (value) => value;
  /** Changes whenever the redactor learns a value: JSON written before then may hold what it would now hide. */
  #redactions: () => number = () => 0;
  /**
   * Succeeded effect results as recorded: object → the effect whose result_json is its JSON, the redactor's
   * generation and the object's members then. A task whose output is that very object, unchanged, copies the column
   * inside SQLite instead of serializing it a second time (a 16 MiB process output would otherwise be stringified,
   * redacted and copied into the binding twice). Only objects of scalars qualify: their members say they are unchanged.
   */
  /** A large value was serialized: its dead copies are collected when the transaction ends. */
  #collectAfterCommit = false;
  readonly #recordedResults = new WeakMap<object, { effectId: string; digest: string; redactions: number; members: unknown[] }>();
  readonly #statements;
  /** One transaction function for every body: better-sqlite3 builds four wrappers each time one is made. */
  readonly #immediate: (body: () => unknown) => unknown;
  readonly #checkpointSeq = new Map<string, number>();
  /** Effect intents waiting for the next group commit (see `recordEffectSoon`). */
  #intents: { effect: NewEffect; extra?: (() => void) | undefined; resolve: () => void; reject: (error: unknown) => void }[] = [];
  /** Inside a durable transaction: a nested one is a savepoint of it. */
  #durable = false;
  /** The audit events of each commit, in order, for the commit observers (core/runner/publisher.ts). */
  readonly events = new EventSequence();
  /** The database file, absolute. */
  readonly path: string;
  /** The database, its companions and the artifact store: policy refuses them to every task. */
  readonly statePaths: readonly string[];

  constructor(path: string, options: { create: boolean; readonly?: boolean }) {
    this.path = resolve(path);
    this.#db = openDatabase(this.path, options);
    this.statePaths = statePaths(this.path);
    const db = this.#db;
    this.#immediate = db.transaction((body: () => unknown) => body()).immediate;
    const guarded = <S extends string>(sql: (from: string) => string, table: Readonly<Record<S, readonly S[]>>) => {
      const cache = new Map<S, ReturnType<SqliteDatabase['prepare']>>();
      return (target: S) => {
        let statement = cache.get(target);
        if (!statement) cache.set(target, (statement = db.prepare(sql(predecessorList(table, target)))));
        return statement;
      };
    };
    this.#statements = {
      insertAudit: db.prepare(`INSERT INTO audit_events (run_id, task_id, effect_id, type, data_json, at) VALUES (?, ?, ?, ?, ?, ?)`),
      updateTask: guarded<TaskState>(
        (from) => `
        UPDATE tasks SET state = @state, attempt = COALESCE(@attempt, attempt), input_json = COALESCE(@input, input_json),
          output_json = COALESCE(@output, (SELECT result_json FROM effects WHERE id = @outputFrom), output_json), output_digest = COALESCE(@outputDigest, output_digest),
          error_json = COALESCE(@error, error_json),
          disposition = COALESCE(@disposition, disposition),
          started_at = CASE WHEN @started = 1 THEN COALESCE(started_at, @at) ELSE started_at END,
          finished_at = CASE WHEN @finished = 1 THEN @at ELSE finished_at END, updated_at = @at
        WHERE run_id = @runId AND task_id = @taskId AND state IN (${from})`,
        TASK_TRANSITIONS,
      ),
      taskState: db.prepare(`SELECT state FROM tasks WHERE run_id = ? AND task_id = ?`),
      selectEffect: db.prepare(`SELECT * FROM effects WHERE id = ?`),
      attemptHasEffects: db.prepare(`SELECT 1 FROM effects WHERE run_id = ? AND task_id = ? AND attempt = ? LIMIT 1`),
      insertEffect: db.prepare(`
        INSERT INTO effects (id, run_id, task_id, attempt, ordinal, kind, operation, effect_class, risk, idempotency,
          input_json, input_digest, state, requested_at, updated_at)
        VALUES (@id, @runId, @taskId, @attempt, @ordinal, @kind, @operation, @effectClass, @risk, @idempotency,
          @input, @inputDigest, @state, @at, @at)`),
      updateEffect: guarded<EffectState>(
        (from) => `
        UPDATE effects SET state = @state, result_json = COALESCE(@result, result_json), error_json = COALESCE(@error, error_json),
          started_at = CASE WHEN @state = 'started' THEN @at ELSE started_at END,
          finished_at = CASE WHEN @state IN ('succeeded','failed','uncertain','cancelled') THEN @at ELSE finished_at END,
          updated_at = @at WHERE id = @id AND state IN (${from})`,
        EFFECT_TRANSITIONS,
      ),
      finishRun: guarded<RunState>(
        (from) => `
        UPDATE runs SET state = @state, output_json = COALESCE(@output, output_json), error_json = @error, memory_json = COALESCE(@memory, memory_json),
          updated_at = @at, finished_at = @finishedAt, lease_owner = NULL, lease_expires_at = NULL WHERE id = @id AND state IN (${from})`,
        RUN_TRANSITIONS,
      ),
      runState: db.prepare(`SELECT state FROM runs WHERE id = ?`),
      checkpointSeq: db.prepare(`SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM checkpoints WHERE run_id = ?`),
      insertCheckpoint: db.prepare(`INSERT INTO checkpoints (run_id, seq, task_id, state_json, at) VALUES (?, ?, ?, ?, ?)`),
      synchronousFull: db.prepare('PRAGMA synchronous = FULL'),
      synchronousNormal: db.prepare('PRAGMA synchronous = NORMAL'),
    };
  }

  static open(path: string, options: { create: boolean; readonly?: boolean } = { create: true }): Store {
    return new Store(path, options);
  }

  #budgets: BudgetLedger | undefined;
  /** The run budget ledger of this database (core/store/budget.ts). */
  get budgets(): BudgetLedger {
    return (this.#budgets ??= new BudgetLedger(this.#db, (body) => this.transaction(body)));
  }

  #claims: CompensationClaims | undefined;
  /** Which compensation run may undo each source effect (core/store/claims.ts). */
  get claims(): CompensationClaims {
    return (this.#claims ??= new CompensationClaims(this.#db));
  }

  /** Counts, the artifact catalogue and the removal of old runs, for the state commands (core/store/maintenance.ts). */
  get maintenance(): Maintenance {
    return new Maintenance(this.#db, this.path, (body) => this.transaction(body));
  }

  /**
   * Sets the value redactor for the run this store is driving; `redactions` counts what it redacts (while it is 0, the
   * redactor changes nothing).
   */
  setRedactor(redact: <T>(value: T) => T, redactions: () => number): void {
    this.#redact = redact;
    this.#redactions = redactions;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  json(value: JsonValue | undefined): string | null {
    if (value === undefined) return null;
    if (!isLargeValue(value)) return JSON.stringify(this.#redact(value));
    // What made this value (a process's output buffer) is dead by now: free it before the copies are made, and the
    // copies themselves once the transaction ends.
    collectGarbage();
    this.#collectAfterCommit = true;
    return JSON.stringify(this.#redact(value));
  }

  #text(value: string): string {
    return this.#redact(value);
  }

  /**
   * The key of the recorded digests of secret values (32 random bytes), created the first time it is asked for and
   * kept in the database's metadata, so every digest of one database uses the same key and no two databases do.
   */
  digestKey(): Buffer {
    const read = () => (this.#db.prepare(`SELECT value FROM metadata WHERE key = 'secret_digest_key'`).get() as { value: Buffer } | undefined)?.value;
    const existing = read();
    if (existing) return existing;
    // OR IGNORE: another process may have created it meanwhile; everyone then reads the one stored.
    return this.transaction(() => {
      this.#db.prepare(`INSERT OR IGNORE INTO metadata (key, value) VALUES ('secret_digest_key', ?)`).run(randomBytes(32));
      return read()!;
    });
  }

  /** Runs `body` in one IMMEDIATE transaction; database failures become exit-5 errors. */
  transaction<T>(body: () => T): T {
    const mark = this.events.mark();
    try {
      const result = this.#immediate(body) as T;
      // Only the outermost commit makes its events facts; a savepoint's events wait for it.
      if (!this.#db.inTransaction) this.events.release();
      return result;
    } catch (error) {
      this.events.rollback(mark);
      if (isAgentctlError(error)) throw error;
      throw databaseError(error, 'database write failed', 'AGENTCTL_E_DB_WRITE');
    } finally {
      if (this.#collectAfterCommit) {
        this.#collectAfterCommit = false;
        collectGarbage();
      }
    }
  }

  /** A read outside a transaction; a damaged file is AGENTCTL_E_DB_CORRUPT, never an internal error. */
  #read<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw databaseError(error, `database ${this.path} cannot be read`, 'AGENTCTL_E_DB_OPEN');
    }
  }

  /**
   * Like `transaction`, but the commit is synced to disk before returning (for effect intents). Inside another durable
   * transaction it is a savepoint of that one, whose commit is the synced one.
   */
  durableTransaction<T>(body: () => T): T {
    if (this.#durable) return this.transaction(body);
    this.#statements.synchronousFull.run();
    this.#durable = true;
    try {
      return this.transaction(body);
    } finally {
      this.#durable = false;
      this.#statements.synchronousNormal.run();
    }
  }

  /** Appends an audit row, and queues it for the commit observers when anyone observes (see `events`). */
  audit(runId: string, event: AuditEvent): void {
    const at = now();
    const data = event.data ?? {};
    const row = this.#statements.insertAudit.run(runId, event.taskId ?? null, event.effectId ?? null, event.type, this.json(data), at);
    if (!this.events.observed) return;
    const { taskId, effectId } = event;
    this.events.append({ seq: Number(row.lastInsertRowid), at, runId, type: event.type, ...(taskId ? { taskId } : {}), ...(effectId ? { effectId } : {}), data: this.#redact(data) });
    if (!this.#db.inTransaction) this.events.release();
  }

  createRun(run: NewRun): void {
    const at = now();
    this.transaction(() => {
      this.#db
        .prepare(`
          INSERT INTO runs (id, trace_id, workflow_name, workflow_digest, workflow_file, workflow_source, plan_json, inputs_json,
            workspace, state, mode, source_run_id, lease_owner, lease_expires_at, created_at, updated_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)`)
        .run(run.id, run.traceId, run.workflowName, run.workflowDigest, this.#text(run.workflowFile), this.#text(run.workflowSource), this.json(run.plan), this.json(run.inputs), this.#text(run.workspace), run.mode ?? 'execute', run.sourceRunId ?? null, this.leaseOwner, Date.now() + LEASE_MS, at, at);
      const insertTask = this.#db.prepare(`INSERT INTO tasks (run_id, task_id, position, kind, state, updated_at) VALUES (?, ?, ?, ?, 'pending', ?)`);
      run.tasks.forEach((task, position) => insertTask.run(run.id, task.id, position, task.kind, at));
      this.audit(run.id, { type: 'run.started', data: { workflow: run.workflowName, digest: run.workflowDigest, traceId: run.traceId } });
    });
  }

  /** Extends this process's lease on a run; another live owner means exit 5. */
  renewLease(runId: string): void {
    this.transaction(() => {
      const row = this.#db.prepare(`SELECT lease_owner, lease_expires_at FROM runs WHERE id = ?`).get(runId) as { lease_owner: string | null; lease_expires_at: number | null } | undefined;
      if (!row) throw new AgentctlError('AGENTCTL_E_RUN_NOT_FOUND', `run ${runId} does not exist`);
      if (row.lease_owner && row.lease_owner !== this.leaseOwner && (row.lease_expires_at ?? 0) > Date.now()) {
        throw new AgentctlError('AGENTCTL_E_RUN_LEASED', `run ${runId} is being driven by ${row.lease_owner}`, { help: 'wait for that process to finish, or for its lease to expire' });
      }
      this.#db.prepare(`UPDATE runs SET lease_owner = ?, lease_expires_at = ? WHERE id = ?`).run(this.leaseOwner, Date.now() + LEASE_MS, runId);
    });
  }

  updateTask(runId: string, taskId: string, patch: TaskPatch, event?: AuditEvent): void {
    this.transaction(() => this.writeTask(runId, taskId, patch, event));
  }

  /** The task update and its audit event; call inside a transaction. */
  writeTask(runId: string, taskId: string, patch: TaskPatch, event?: AuditEvent): void {
    const recorded = this.#recordedResult(patch.output);
    const output = recorded === null ? this.json(patch.output) : null;
    const { changes } = this.#statements.updateTask(patch.state).run({
      runId,
      taskId,
      state: patch.state,
      attempt: patch.attempt ?? null,
      input: this.json(patch.input),
      output,
      outputFrom: recorded?.effectId ?? null,
      // Recorded with the output: a repair reuses a result only while its row still hashes to this digest.
      outputDigest: recorded ? recorded.digest : output === null ? null : outputDigestOf(output),
      error: this.json(patch.error),
      disposition: patch.disposition ?? null,
      started: patch.started ? 1 : 0,
      finished: patch.finished ? 1 : 0,
      at: now(),
    });
    if (changes !== 1) {
      const current = this.#statements.taskState.get(runId, taskId) as { state: string } | undefined;
      throw illegalTransition('task', `${runId}/${taskId}`, current?.state, patch.state);
    }
    if (event) this.audit(runId, { taskId, ...event });
  }

  /** Call inside a transaction. Sequence numbers are kept in memory: this process holds the run's lease. */
  checkpoint(runId: string, taskId: string | null, state: JsonValue): void {
    const next = this.#checkpointSeq.get(runId) ?? (this.#statements.checkpointSeq.get(runId) as { next: number }).next;
    this.#statements.insertCheckpoint.run(runId, next, taskId, this.json(state), now());
    this.#checkpointSeq.set(runId, next + 1);
  }

  effect(id: string): EffectRow | undefined {
    return this.#read(() => this.#statements.selectEffect.get(id) as EffectRow | undefined);
  }

  /** Whether a task attempt has recorded any effect. */
  attemptHasEffects(runId: string, taskId: string, attempt: number): boolean {
    return this.#read(() => this.#statements.attemptHasEffects.get(runId, taskId, attempt) !== undefined);
  }

  /** Records an effect before it is dispatched, synced to disk. */
  recordEffect(effect: NewEffect, state: 'requested' | 'waiting_for_approval', extra?: () => void): void {
    this.durableTransaction(() => {
      this.#statements.insertEffect.run({
        id: effect.id,
        runId: effect.runId,
        taskId: effect.taskId,
        attempt: effect.attempt,
        ordinal: effect.ordinal,
        kind: effect.kind,
        operation: this.#text(effect.operation),
        effectClass: effect.profile.effectClass,
        risk: effect.profile.risk,
        idempotency: effect.profile.idempotency,
        input: effect.inputJson !== undefined && this.#redactions() === 0 && !isLargeValue(effect.input) ? effect.inputJson : this.json(effect.input),
        inputDigest: effect.inputDigest,
        state,
        at: now(),
      });
      // After `extra`: the task becomes running (and an approval is asked) before its effect is requested.
      extra?.();
      this.audit(effect.runId, { type: `effect.${state}`, taskId: effect.taskId, effectId: effect.id, data: { operation: effect.operation } });
    });
  }

  /**
   * Records an effect intent, synced to disk, with the intents other tasks asked for in the same turn of the event
   * loop: one transaction and one sync for all of them (group commit). The promise settles after that commit, so every
   * intent is durable before its own dispatch; an intent whose rows are refused fails alone (its savepoint is undone).
   */
  recordEffectSoon(effect: NewEffect, extra?: () => void): Promise<void> {
    return new Promise((resolvePromise, reject) => {
      this.#intents.push({ effect, extra, resolve: resolvePromise, reject });
      if (this.#intents.length === 1) setImmediate(() => this.#flushIntents());
    });
  }

  #flushIntents(): void {
    const batch = this.#intents;
    this.#intents = [];
    if (batch.length === 1) {
      // Alone, an intent is its own durable transaction: no savepoint is needed to undo it without the others.
      const intent = batch[0]!;
      try {
        this.recordEffect(intent.effect, 'requested', intent.extra);
      } catch (error) {
        intent.reject(error);
        return;
      }
      intent.resolve();
      return;
    }
    let failures: unknown[];
    try {
      failures = this.durableTransaction(() =>
        batch.map((intent) => {
          try {
            this.recordEffect(intent.effect, 'requested', intent.extra);
            return undefined;
          } catch (error) {
            return error;
          }
        }),
      );
    } catch (error) {
      const failure = databaseError(error, 'database write failed', 'AGENTCTL_E_DB_WRITE');
      for (const intent of batch) intent.reject(failure);
      return;
    }
    batch.forEach((intent, index) => (failures[index] === undefined ? intent.resolve() : intent.reject(failures[index])));
  }

  /** `facts` are the audit event's data (e.g. the operation, and the code of a failure). */
  updateEffect(runId: string, effectId: string, state: EffectState, update: { result?: JsonValue; error?: JsonValue; taskId?: string; facts?: Record<string, JsonValue> } = {}): void {
    const redactions = this.#redactions();
    const result = this.json(update.result);
    this.transaction(() => {
      this.#changeEffect(effectId, state, { result, error: this.json(update.error), at: now() });
      this.audit(runId, { type: `effect.${state}`, effectId, ...(update.taskId ? { taskId: update.taskId } : {}), ...(update.facts ? { data: update.facts } : {}) });
    });
    const members = state === 'succeeded' && result !== null ? scalarMembers(update.result) : undefined;
    // The digest the task row records if its output is this result, taken while the text is at hand.
    if (members) this.#recordedResults.set(update.result as object, { effectId, digest: outputDigestOf(result!), redactions, members });
  }

  /** The effect whose recorded result is exactly the JSON `value` would be written as now, if there is one. */
  #recordedResult(value: JsonValue | undefined): { readonly effectId: string; readonly digest: string } | null {
    const recorded = typeof value === 'object' && value !== null ? this.#recordedResults.get(value) : undefined;
    if (!recorded || recorded.redactions !== this.#redactions()) return null;
    const members = scalarMembers(value);
    const same = members !== undefined && members.length === recorded.members.length && members.every((member, index) => member === recorded.members[index]);
    return same ? recorded : null;
  }

  #changeEffect(id: string, state: EffectState, values: { result: string | null; error: string | null; at: string }): void {
    const { changes } = this.#statements.updateEffect(state).run({ id, state, ...values });
    if (changes !== 1) throw illegalTransition('effect', id, this.effect(id)?.state, state);
  }

  /** A pending request, or one already decided by an operator at the terminal. Call inside a transaction. */
  insertApproval(approval: { id: string; runId: string; taskId: string; effectId: string; reason: string; decision?: { actor: string; reason: string } }): void {
    const at = now();
    const decision = approval.decision;
    this.#db
      .prepare(`INSERT INTO approvals (id, run_id, task_id, effect_id, state, reason, actor, decision_reason, requested_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(approval.id, approval.runId, approval.taskId, approval.effectId, decision ? 'approved' : 'pending', this.#text(approval.reason), decision ? this.#text(decision.actor) : null, decision ? this.#text(decision.reason) : null, at, decision ? at : null);
    this.audit(approval.runId, { type: 'approval.requested', taskId: approval.taskId, effectId: approval.effectId, data: { approvalId: approval.id, reason: approval.reason } });
    if (decision) this.audit(approval.runId, { type: 'approval.approved', taskId: approval.taskId, effectId: approval.effectId, data: { approvalId: approval.id, actor: decision.actor, reason: decision.reason } });
  }

  /**
   * A run that ends failed or cancelled leaves nothing waiting: tasks waiting for approval are cancelled with their
   * effects, and pending approvals are cancelled (nobody can approve an effect of a finished run).
   */
  closeWaiting(runId: string, reason: string): string[] {
    const at = now();
    const tasks = this.#db.prepare(`SELECT task_id FROM tasks WHERE run_id = ? AND state = 'waiting_for_approval'`).all(runId) as { task_id: string }[];
    for (const { task_id: taskId } of tasks) this.writeTask(runId, taskId, { state: 'cancelled', finished: true }, { type: 'task.cancelled', data: { reason } });
    const effects = this.#db.prepare(`SELECT id, task_id FROM effects WHERE run_id = ? AND state = 'waiting_for_approval'`).all(runId) as { id: string; task_id: string }[];
    for (const effect of effects) {
      this.#changeEffect(effect.id, 'cancelled', { result: null, error: null, at });
      this.audit(runId, { type: 'effect.cancelled', taskId: effect.task_id, effectId: effect.id, data: { reason } });
    }
    const approvals = this.#db.prepare(`SELECT id, task_id, effect_id FROM approvals WHERE run_id = ? AND state = 'pending'`).all(runId) as { id: string; task_id: string; effect_id: string }[];
    for (const approval of approvals) {
      this.#db.prepare(`UPDATE approvals SET state = 'cancelled', decision_reason = ?, actor = 'agentctl', decided_at = ? WHERE id = ?`).run(reason, at, approval.id);
      this.audit(runId, { type: 'approval.cancelled', taskId: approval.task_id, effectId: approval.effect_id, data: { approvalId: approval.id, reason } });
    }
    return tasks.map((task) => task.task_id);
  }

  /**
   * The run stops without an end because its ledger failed under an effect: every effect still `started` becomes
   * `uncertain`, the error is kept and the lease released. The run stays `running`, shown as interrupted.
   */
  interruptRun(runId: string, error: JsonValue): void {
    this.transaction(() => {
      const at = now();
      const started = this.#db.prepare(`SELECT id, task_id FROM effects WHERE run_id = ? AND state = 'started'`).all(runId) as { id: string; task_id: string }[];
      for (const effect of started) {
        this.#changeEffect(effect.id, 'uncertain', { result: null, error: this.json(error), at });
        this.audit(runId, { type: 'effect.uncertain', taskId: effect.task_id, effectId: effect.id, data: { reason: 'its outcome could not be recorded' } });
      }
      this.#db.prepare(`UPDATE runs SET error_json = ?, lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND state = 'running'`).run(this.json(error), at, runId);
      this.audit(runId, { type: 'run.interrupted', data: { error } });
    });
  }

  /**
   * Ends every run this process drives as `cancelled`, at once (a second signal): effects still `started` become
   * `uncertain` (a killed process may have done part of its work), recorded effects not yet started are cancelled,
   * and so is every unfinished task and pending approval. Returns each run with its tasks' final states.
   */
  stopDrivenRuns(reason: string): { runId: string; traceId: string; tasks: Record<string, TaskState> }[] {
    return this.transaction(() => {
      const at = now();
      const error = this.json({ code: 'AGENTCTL_E_CANCELLED', message: reason });
      const runs = this.#db.prepare(`SELECT id, trace_id FROM runs WHERE lease_owner = ? AND state = 'running'`).all(this.leaseOwner) as { id: string; trace_id: string }[];
      return runs.map(({ id: runId, trace_id: traceId }) => {
        const open = this.#db.prepare(`SELECT id, task_id, state FROM effects WHERE run_id = ? AND state IN ('started', 'requested')`).all(runId) as { id: string; task_id: string; state: string }[];
        for (const effect of open) {
          const next = effect.state === 'started' ? 'uncertain' : 'cancelled';
          this.#changeEffect(effect.id, next, { result: null, error, at });
          this.audit(runId, { type: `effect.${next}`, taskId: effect.task_id, effectId: effect.id, data: { reason } });
        }
        this.closeWaiting(runId, reason);
        const unfinished = this.#db.prepare(`SELECT task_id FROM tasks WHERE run_id = ? AND state IN ('pending', 'ready', 'running', 'retry_scheduled') ORDER BY position`).all(runId) as { task_id: string }[];
        for (const { task_id: taskId } of unfinished) this.writeTask(runId, taskId, { state: 'cancelled', finished: true }, { type: 'task.cancelled', data: { reason } });
        this.finishRun(runId, 'cancelled', { error: { code: 'AGENTCTL_E_CANCELLED', message: reason } });
        const tasks = this.#db.prepare(`SELECT task_id, state FROM tasks WHERE run_id = ? ORDER BY position`).all(runId) as { task_id: string; state: TaskState }[];
        return { runId, traceId, tasks: Object.fromEntries(tasks.map((task) => [task.task_id, task.state])) };
      });
    });
  }

  finishRun(runId: string, state: RunState, result: { output?: JsonValue; error?: JsonValue; memory?: JsonValue }): void {
    this.transaction(() => {
      const at = now();
      const terminal = state !== 'paused' && state !== 'running';
      const { changes } = this.#statements.finishRun(state).run({
        id: runId,
        state,
        output: this.json(result.output),
        error: this.json(result.error),
        memory: this.json(result.memory),
        at,
        finishedAt: terminal ? at : null,
      });
      if (changes !== 1) throw illegalTransition('run', runId, (this.#statements.runState.get(runId) as { state: string } | undefined)?.state, state);
      this.audit(runId, { type: `run.${state}`, ...(result.error === undefined ? {} : { data: { error: result.error } }) });
      // A compensation run that ends without having undone a source effect lets another run undo it.
      if (terminal) this.claims.release(runId, at);
    });
  }

  /**
   * Whether `agentctl cancel` asked the process driving the run to stop: a `run.cancel_requested` event after the
   * run's latest start or resume (a request an earlier drive already honoured does not stop a resumed run).
   */
  cancelRequested(runId: string): boolean {
    const row = this.#read(() => this.#db.prepare(CANCEL_REQUESTED).get({ run: runId })) as { requested: number };
    return row.requested === 1;
  }

  // Read-only views for inspection. Rows are returned as SQLite gives them; inspection.ts shapes them.

  runRow(runId: string): Row | undefined {
    return this.#read(() => this.#db.prepare(`SELECT * FROM runs WHERE id = ?`).get(runId) as Row | undefined);
  }

  taskRows(runId: string): Row[] {
    return this.#read(() => this.#db.prepare(`SELECT * FROM tasks WHERE run_id = ? ORDER BY position`).all(runId) as Row[]);
  }

  effectRows(runId: string): Row[] {
    return this.#read(() => this.#db.prepare(`SELECT * FROM effects WHERE run_id = ? ORDER BY requested_at, task_id, attempt, ordinal`).all(runId) as Row[]);
  }

  /** What modelUsage reads of a run's effects: operation and state, and the recorded response of each model turn. */
  usageRows(runId: string): Row[] {
    return this.#read(
      () =>
        this.#db
          .prepare(`SELECT operation, state, CASE WHEN operation = 'model.request' AND state = 'succeeded' THEN result_json END AS result_json FROM effects WHERE run_id = ?`)
          .all(runId) as Row[],
    );
  }

  approvalRows(runId: string): Row[] {
    return this.#read(() => this.#db.prepare(`SELECT * FROM approvals WHERE run_id = ? ORDER BY requested_at`).all(runId) as Row[]);
  }

  checkpointRows(runId: string): Row[] {
    return this.#read(() => this.#db.prepare(`SELECT * FROM checkpoints WHERE run_id = ? ORDER BY seq`).all(runId) as Row[]);
  }

  auditRows(runId: string): Row[] {
    return this.#read(() => this.#db.prepare(`SELECT * FROM audit_events WHERE run_id = ? ORDER BY seq`).all(runId) as Row[]);
  }

  /** The newest runs first, with their lease (for liveness). */
  recentRuns(limit: number): Row[] {
    return this.#read(
      () =>
        this.#db
          .prepare(`SELECT id, workflow_name, state, mode, created_at, finished_at, lease_owner, lease_expires_at FROM runs ORDER BY created_at DESC, id DESC LIMIT ?`)
          .all(limit) as Row[],
    );
  }

  // The artifact store's rows (artifacts.ts holds the bytes): which task wrote which path with which blob.

  /** Call inside the transaction of the task's outcome: the blobs are already stored, so every row names bytes on disk. */
  recordArtifacts(runId: string, taskId: string, artifacts: readonly TaskArtifact[]): void {
    const at = now();
    const blob = this.#db.prepare(`INSERT INTO artifacts (digest, size, created_at) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING`);
    const reference = this.#db.prepare(`INSERT INTO task_artifacts (run_id, task_id, path, digest) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, task_id, path) DO UPDATE SET digest = excluded.digest`);
    for (const artifact of artifacts) {
      blob.run(artifact.digest, artifact.size, at);
      reference.run(runId, taskId, this.#text(artifact.path), artifact.digest);
      this.audit(runId, { type: 'artifact.recorded', taskId, data: { path: artifact.path, digest: artifact.digest, size: artifact.size } });
    }
  }

  /** A run's artifacts by task, in plan order then path. */
  taskArtifactRows(runId: string): Row[] {
    return this.#read(
      () =>
        this.#db
          .prepare(`SELECT r.run_id, r.task_id, r.path, r.digest, a.size, a.created_at FROM task_artifacts r JOIN artifacts a USING (digest) JOIN tasks t USING (run_id, task_id) WHERE r.run_id = ? ORDER BY t.position, r.path`)
          .all(runId) as Row[],
    );
  }

  /** Every stored blob (or those a run refers to), oldest first, and the references to them (of that run only). */
  artifactRows(runId?: string): { blobs: Row[]; references: Row[] } {
    return this.#read(() => {
      const filter = runId === undefined ? '' : 'WHERE digest IN (SELECT digest FROM task_artifacts WHERE run_id = @runId)';
      const blobs = this.#db.prepare(`SELECT digest, size, created_at FROM artifacts ${filter} ORDER BY created_at, digest`).all(runId === undefined ? {} : { runId }) as Row[];
      const references = this.#db
        .prepare(`SELECT run_id, task_id, path, digest FROM task_artifacts ${runId === undefined ? '' : 'WHERE run_id = @runId'} ORDER BY run_id, task_id, path`)
        .all(runId === undefined ? {} : { runId }) as Row[];
      return { blobs, references };
    });
  }

  artifactRow(digest: string): Row | undefined {
    return this.#read(() => this.#db.prepare(`SELECT digest, size, created_at FROM artifacts WHERE digest = ?`).get(digest) as Row | undefined);
  }

  // Linked runs: a run made from a recorded one (replay). `taskRows` and `runRow` read the source.

  /**
   * Creates a run linked to `run.sourceRunId`, copies every task's recorded result into it (disposition `recorded`;
   * a task still `pending` in the source stays so), records `event` and ends the run in `end.state`, all in one
   * transaction: a replay leaves a complete run or nothing. No effect, approval or checkpoint is written.
   * `tasks` are the source's tasks in plan order (see `recordedTasks`). Their JSON columns and the plan are copied inside SQLite,
   * as stored: they were redacted when they were recorded, and parsing and re-serializing them would change nothing.
   */
  createRecordedRun(
    run: NewRun & { readonly mode: RunMode; readonly sourceRunId: string },
    tasks: readonly RecordedTask[],
    end: { readonly state: RunState; readonly output: JsonValue; readonly error?: JsonValue; readonly memory?: JsonValue; readonly event: AuditEvent },
  ): void {
    this.transaction(() => {
      this.createRun({ ...run, tasks: [] });
      // The plan, the largest document, is copied as stored too (`run.plan` is not read).
      this.#db.prepare(`UPDATE runs SET plan_json = (SELECT plan_json FROM runs WHERE id = ?) WHERE id = ?`).run(run.sourceRunId, run.id);
      this.#db
        .prepare(`
          INSERT INTO tasks (run_id, task_id, position, kind, state, attempt, input_json, output_json, output_digest, error_json, disposition, started_at, finished_at, updated_at)
          SELECT @runId, task_id, position, kind, state, CASE WHEN state = 'pending' THEN 0 ELSE attempt END,
            CASE WHEN state = 'pending' THEN NULL ELSE input_json END, CASE WHEN state = 'pending' THEN NULL ELSE output_json END,
            CASE WHEN state = 'pending' THEN NULL ELSE output_digest END,
            CASE WHEN state = 'pending' THEN NULL ELSE error_json END, CASE WHEN state = 'pending' THEN NULL ELSE 'recorded' END,
            CASE WHEN state <> 'pending' AND started_at IS NOT NULL THEN @at END, CASE WHEN state <> 'pending' AND finished_at IS NOT NULL THEN @at END, @at
          FROM tasks WHERE run_id = @sourceRunId ORDER BY position`)
        .run({ runId: run.id, sourceRunId: run.sourceRunId, at: now() });
      for (const task of tasks) {
        if (task.state === 'pending') continue;
        this.audit(run.id, { type: `task.${task.state}`, taskId: task.taskId, data: { attempt: task.attempt, disposition: 'recorded' } });
        if (task.artifacts?.length) this.recordArtifacts(run.id, task.taskId, task.artifacts);
      }
      this.audit(run.id, end.event);
      this.finishRun(run.id, end.state, { output: end.output, ...(end.error === undefined ? {} : { error: end.error }), ...(end.memory === undefined ? {} : { memory: end.memory }) });
    });
  }

  /**
   * Creates a derived run (retry, repair, fork) with its lineage, in one transaction: the run, its reused tasks as its
   * own rows (succeeded, disposition `reused`, attempt 0, the source's input, output and artifact references) with the
   * checks that allowed each reuse. Nothing of the source is changed; the run is left `running` for the driver.
   */
  createDerivedRun(run: NewRun & { readonly sourceRunId: string }, reused: readonly ReusedTask[], lineage: Lineage): void {
    this.transaction(() => {
      this.createRun({ ...run, mode: lineage.mode });
      this.#db.prepare(INSERT_LINEAGE).run(run.id, lineage.sourceRunId, lineage.mode, this.json(lineage.roots as JsonValue), lineage.reason === undefined ? null : this.#text(lineage.reason), this.json(lineage.plan), now());
      const insertReuse = this.#db.prepare(INSERT_REUSE);
      for (const task of reused) {
        this.writeTask(run.id, task.taskId, { state: 'succeeded', attempt: 0, input: task.input, output: task.output, disposition: 'reused', finished: true }, { type: 'task.reused', data: { sourceRunId: lineage.sourceRunId } });
        if (task.artifacts.length > 0) this.recordArtifacts(run.id, task.taskId, task.artifacts);
        insertReuse.run(run.id, task.taskId, lineage.sourceRunId, this.json(task.checks), this.json(task.sourceEffectIds as JsonValue));
        this.checkpoint(run.id, task.taskId, { task: task.taskId, state: 'succeeded', disposition: 'reused' });
      }
      this.audit(run.id, { type: `run.${lineage.mode}`, data: { sourceRunId: lineage.sourceRunId, roots: [...lineage.roots], reused: reused.map((task) => task.taskId) } });
    });
  }

  /** A derived run's lineage row, or undefined for a run made by `run` or `replay`. */
  lineageRow(runId: string): Row | undefined {
    return this.#read(() => this.#db.prepare(SELECT_LINEAGE).get(runId) as Row | undefined);
  }

  /** The reuse checks of each reused task of a derived run, in plan order. */
  taskReuseRows(runId: string): Row[] {
    return this.#read(() => this.#db.prepare(SELECT_REUSE).all(runId) as Row[]);
  }

  /** Whether a run's stored plan is valid JSON, checked by SQLite without reading it into the process. */
  planIsJson(runId: string): boolean {
    return this.#read(() => Boolean((this.#db.prepare(`SELECT plan_json IS NULL OR json_valid(plan_json) AS valid FROM runs WHERE id = ?`).get(runId) as { valid: number } | undefined)?.valid));
  }

  /**
   * A run's tasks in plan order for a linked run: state and attempt, the error of a failed task, and whether every
   * JSON column of the row is valid JSON (checked by SQLite, so the documents themselves are not read into the process).
   */
  recordedTasks(runId: string): Row[] {
    return this.#read(
      () =>
        this.#db
          .prepare(`
            SELECT task_id, kind, state, attempt, CASE WHEN state = 'failed' THEN error_json END AS error_json,
              (input_json IS NULL OR json_valid(input_json)) AND (output_json IS NULL OR json_valid(output_json)) AND (error_json IS NULL OR json_valid(error_json)) AS valid
            FROM tasks WHERE run_id = ? ORDER BY position`)
          .all(runId) as Row[],
    );
  }

  // Recovery: resume, approvals and reconciliations. Every decision is appended with its audit event, never rewritten.

  /**
   * Takes a `paused`, `cancelled` or interrupted run for this process and reopens its unfinished tasks as `pending`, in
   * one transaction: a second process gets RUN_LEASED (exit 5), and an effect in doubt without a reconciliation refuses
   * the resume (exit 3) before anything changes. Reconciled `started` effects of a dead owner become `uncertain`.
   */
  /**
   * Takes a run up for `resume`, refusing what cannot continue. `workspace`, when it is not the recorded one (`resume
   * --workspace`), becomes the run's workspace in the same transaction, with a `run.workspace_moved` event.
   */
  acquireRun(runId: string, isLive: (row: Row) => boolean, workspace?: string): void {
    this.transaction(() => {
      const row = this.#db.prepare(`SELECT * FROM runs WHERE id = ?`).get(runId) as Row | undefined;
      if (!row) throw new AgentctlError('AGENTCTL_E_RUN_NOT_FOUND', `run ${runId} does not exist in this database`, { help: 'list runs with `agentctl runs list`' });
      const state = String(row.state);
      // A refusal names the run it refused, like any error once a run exists.
      const correlation = { runId, traceId: String(row.trace_id) };
      // A run that failed on an effect in doubt (a timeout, a lost connection) continues once that effect is
      // reconciled: until then resume refuses below, like any run with an effect in doubt.
      const failedInDoubt =
        state === 'failed' && (this.#db.prepare(`SELECT count(*) AS n FROM effects WHERE run_id = ? AND state IN ('started','uncertain')`).get(runId) as { n: number }).n > 0;
      if (state === 'succeeded' || (state === 'failed' && !failedInDoubt)) {
        throw new AgentctlError('AGENTCTL_E_RUN_NOT_RESUMABLE', `run ${runId} ended ${state} and cannot be resumed`, { help: 'see docs/recovery.md for what can be done with a finished run', ...correlation });
      }
      if (state === 'running' && row.lease_owner !== this.leaseOwner && isLive(row)) {
        throw new AgentctlError('AGENTCTL_E_RUN_LEASED', `run ${runId} is being driven by ${String(row.lease_owner)}`, { help: 'wait for that process to finish, or for its lease to expire', ...correlation });
      }
      // An interrupted run's `requested` effect may have been dispatched: its `started` mark is not synced (doubt.ts).
      const requested = state === 'running' ? ` OR ${UNSAFE_REQUESTED_SQL}` : '';
      const doubtful = this.#db
        .prepare(`SELECT e.id, e.task_id, e.operation, e.state FROM effects e WHERE e.run_id = ? AND (e.state IN ('started','uncertain')${requested})
          AND NOT EXISTS (SELECT 1 FROM reconciliations r WHERE r.effect_id = e.id) ORDER BY e.requested_at, e.id`)
        .all(runId) as { id: string; task_id: string; operation: string; state: string }[];
      if (doubtful.length > 0) {
        const names = doubtful.map((effect) => `${effect.id} (${effect.operation}, task ${effect.task_id}, ${effect.state})`).join(', ');
        const blocked = new AgentctlError('AGENTCTL_E_EFFECT_UNRECONCILED', `run ${runId} has effects that may or may not have happened: ${names}`, {
          help: 'check each one, then record what happened: agentctl effects reconcile EFFECT --status applied|not-applied|compensated --reason TEXT',
          ...correlation,
        });
        // The refusal is about this run: its error document names it, as the reference's does.
        throw Object.assign(blocked, { runId, traceId: String(row.trace_id) });
      }
      const at = now();
      const started = this.#db.prepare(`SELECT e.id, e.task_id, e.state FROM effects e WHERE e.run_id = ? AND (e.state = 'started'${requested})`).all(runId) as { id: string; task_id: string; state: string }[];
      for (const effect of started) {
        this.#changeEffect(effect.id, 'uncertain', { result: null, error: null, at });
        const reason = effect.state === 'started' ? 'its process ended before the outcome was recorded' : 'its process ended after it was recorded requested; a power loss may have lost its started mark';
        this.audit(runId, { type: 'effect.uncertain', taskId: effect.task_id, effectId: effect.id, data: { reason } });
      }
      if (failedInDoubt) {
        // The tasks that failed on an effect in doubt run again (their reconciled effects decide how), and so does
        // everything the failure skipped; a task skipped by its own `when` is skipped again from the same outputs.
        this.#db
          .prepare(
            `UPDATE tasks SET state = 'pending', error_json = NULL, finished_at = NULL, updated_at = ? WHERE run_id = ? AND (state = 'skipped'
              OR (state = 'failed' AND task_id IN (SELECT task_id FROM effects WHERE run_id = ? AND state IN ('started','uncertain'))))`,
          )
          .run(at, runId, runId);
      }
      // Resume reopens what did not finish; a succeeded, failed or skipped task keeps its record and is reused.
      this.#db
        .prepare(`UPDATE tasks SET state = 'pending', finished_at = NULL, updated_at = ? WHERE run_id = ? AND state IN ('ready','running','waiting_for_approval','retry_scheduled','cancelled')`)
        .run(at, runId);
      this.#db
        .prepare(`UPDATE runs SET state = 'running', error_json = NULL, finished_at = NULL, lease_owner = ?, lease_expires_at = ?, updated_at = ? WHERE id = ?`)
        .run(this.leaseOwner, Date.now() + LEASE_MS, at, runId);
      this.audit(runId, { type: 'run.resumed', data: { from: state, owner: this.leaseOwner, workflow: String(row.workflow_name), traceId: String(row.trace_id) } });
      if (workspace !== undefined && workspace !== String(row.workspace)) {
        this.#db.prepare(`UPDATE runs SET workspace = ? WHERE id = ?`).run(workspace, runId);
        this.audit(runId, { type: 'run.workspace_moved', data: { from: String(row.workspace), to: workspace } });
      }
      // A resumed compensation run holds the claims of the tasks it runs again (or is refused if another run has them).
      this.claims.retake(runId);
    });
  }

  approvalRow(approvalId: string): Row | undefined {
    return this.#read(() => this.#db.prepare(`SELECT * FROM approvals WHERE id = ?`).get(approvalId) as Row | undefined);
  }

  approvalForEffect(effectId: string): Row | undefined {
    return this.#read(() => this.#db.prepare(`SELECT * FROM approvals WHERE effect_id = ? ORDER BY requested_at DESC LIMIT 1`).get(effectId) as Row | undefined);
  }

  /** Records an operator's decision on a pending approval, once. */
  decideApproval(approvalId: string, decision: 'approved' | 'rejected', actor: string, reason: string): Row {
    return this.transaction(() => {
      const row = this.#db.prepare(`SELECT * FROM approvals WHERE id = ?`).get(approvalId) as Row | undefined;
      if (!row) throw new AgentctlError('AGENTCTL_E_APPROVAL_NOT_FOUND', `approval ${approvalId} does not exist in this database`, { help: 'list approvals with `agentctl approvals list RUN`' });
      if (row.state !== 'pending') {
        throw new AgentctlError('AGENTCTL_E_APPROVAL_NOT_PENDING', `approval ${approvalId} is already ${String(row.state)}${row.actor ? ` (by ${String(row.actor)})` : ''}; a decision is never changed`, {
          help: 'only a pending approval can be approved or rejected',
        });
      }
      const at = now();
      this.#db.prepare(`UPDATE approvals SET state = ?, actor = ?, decision_reason = ?, decided_at = ? WHERE id = ? AND state = 'pending'`).run(decision, this.#text(actor), this.#text(reason), at, approvalId);
      const runId = String(row.run_id);
      this.audit(runId, { type: `approval.${decision}`, taskId: String(row.task_id), effectId: String(row.effect_id), data: { approvalId, actor, reason } });
      return this.#db.prepare(`SELECT * FROM approvals WHERE id = ?`).get(approvalId) as Row;
    });
  }

  /** The approved effect goes back to `requested` with the task's first record; call inside a transaction. */
  releaseApprovedEffect(runId: string, effectId: string, taskId: string, operation: string): void {
    this.#changeEffect(effectId, 'requested', { result: null, error: null, at: now() });
    this.audit(runId, { type: 'effect.requested', taskId, effectId, data: { approved: true, operation } });
  }

  reconciliationRows(effectId: string): Row[] {
    return this.#read(() => this.#db.prepare(`SELECT * FROM reconciliations WHERE effect_id = ? ORDER BY seq`).all(effectId) as Row[]);
  }

  /** Appends an operator's account of an effect in doubt; `check` refuses contradictions against the earlier rows. */
  reconcileEffect(effectId: string, entry: ReconciliationEntry, check: (effect: EffectRow, earlier: Row[], run: RunDrive) => void, isLive: (row: Row) => boolean): number {
    return this.transaction(() => {
      const effect = this.#statements.selectEffect.get(effectId) as EffectRow | undefined;
      if (!effect) throw new AgentctlError('AGENTCTL_E_EFFECT_NOT_FOUND', `effect ${effectId} does not exist in this database`, { help: 'list effects with `agentctl effects list RUN`' });
      const earlier = this.#db.prepare(`SELECT * FROM reconciliations WHERE effect_id = ? ORDER BY seq`).all(effectId) as Row[];
      const run = this.#db.prepare(`SELECT * FROM runs WHERE id = ?`).get(effect.run_id) as Row;
      check(effect, earlier, { state: run.state, live: isLive(run) });
      const { lastInsertRowid } = this.#db
        .prepare(`INSERT INTO reconciliations (effect_id, outcome, reason, actor, created_at, result_json, compensation_effect_id) VALUES (?, ?, ?, ?, ?, ?, ?)`)
        .run(effectId, entry.outcome, this.#text(entry.reason), this.#text(entry.actor), now(), this.json(entry.result), entry.compensationEffectId ?? null);
      // The evidence, result schema and authorization have no column: the audit event of the reconciliation keeps them.
      const data = { outcome: entry.outcome, actor: entry.actor, reason: entry.reason, ...(entry.compensationEffectId === undefined ? {} : { compensationEffectId: entry.compensationEffectId }), ...entry.account };
      this.audit(effect.run_id, { type: 'effect.reconciled', taskId: effect.task_id, effectId, data });
      // An inverse in doubt that did not happen after all releases the claim of its ended compensation run.
      if (entry.outcome === 'not_applied') this.claims.release(effect.run_id, now());
      return Number(lastInsertRowid);
    });
  }

  /** Every reconciliation of a run's effects, oldest first. */
  runReconciliations(runId: string): Row[] {
    return this.#read(() => this.#db.prepare(`SELECT r.* FROM reconciliations r JOIN effects e ON e.id = r.effect_id WHERE e.run_id = ? ORDER BY r.seq`).all(runId) as Row[]);
  }

  /** The compensation runs made from a run, oldest first. */
  compensationRuns(sourceRunId: string): Row[] {
    return this.#read(() => this.#db.prepare(`SELECT * FROM runs WHERE source_run_id = ? AND mode = 'compensation' ORDER BY created_at, id`).all(sourceRunId) as Row[]);
  }

  /**
   * Appends a `compensated` reconciliation to each source effect a compensation task undid, linking the compensation
   * run, task and effect; call inside the transaction that records the compensation task's success. An effect
   * already reconciled `compensated` is left as it is.
   */
  recordCompensation(compensation: { runId: string; taskId: string; effectId: string | null }, sourceEffectIds: readonly string[]): void {
    const latest = this.#db.prepare(`SELECT outcome FROM reconciliations WHERE effect_id = ? ORDER BY seq DESC LIMIT 1`);
    const insert = this.#db.prepare(`
      INSERT INTO reconciliations (effect_id, outcome, reason, actor, created_at, compensation_run_id, compensation_task_id, compensation_effect_id)
      VALUES (?, 'compensated', ?, 'agentctl', ?, ?, ?, ?)`);
    for (const effectId of sourceEffectIds) {
      const effect = this.#statements.selectEffect.get(effectId) as EffectRow | undefined;
      if (!effect || (latest.get(effectId) as { outcome: string } | undefined)?.outcome === 'compensated') continue;
      const reason = `compensated by task ${compensation.taskId} of run ${compensation.runId}`;
      insert.run(effectId, this.#text(reason), now(), compensation.runId, this.#text(compensation.taskId), compensation.effectId);
      const data = { outcome: 'compensated', actor: 'agentctl', reason, compensationRunId: compensation.runId, compensationTaskId: compensation.taskId, compensationEffectId: compensation.effectId };
      this.audit(effect.run_id, { type: 'effect.reconciled', taskId: effect.task_id, effectId, data });
      this.audit(compensation.runId, { type: 'effect.compensated', taskId: compensation.taskId, effectId, data: { sourceRunId: effect.run_id, sourceTaskId: effect.task_id, compensationEffectId: compensation.effectId } });
    }
  }

  /** The latest reconciliation of each effect of a run, keyed by effect id. */
  latestReconciliations(runId: string): Map<string, Row> {
    const rows = this.#read(
      () => this.#db.prepare(`SELECT r.* FROM reconciliations r JOIN effects e ON e.id = r.effect_id WHERE e.run_id = ? ORDER BY r.seq`).all(runId) as Row[],
    );
    return new Map(rows.map((row) => [String(row.effect_id), row]));
  }
}

/** An operator's account of an effect in doubt, as `effects reconcile` records it. */
export interface ReconciliationEntry {
  readonly outcome: 'applied' | 'not_applied' | 'compensated';
  readonly reason: string;
  readonly actor: string;
  readonly result?: JsonValue;
  /** With `compensated`: the effect of the same run that undid it. */
  readonly compensationEffectId?: string;
  /** What backs the account (`evidence`, `resultSchema`, `authorization`): kept in its audit event. */
  readonly account?: Readonly<Record<string, JsonValue>>;
}

/** A task of the source run, as a linked run copies it (its recorded documents are copied by the store). */
export interface RecordedTask {
  readonly taskId: string;
  readonly kind: string;
  readonly state: TaskState;
  readonly attempt: number;
  /** The recorded error of a failed task (null otherwise): what the linked run reports. */
  readonly error: JsonValue;
  /** The files the task wrote, by digest: the linked run refers to the same blobs. */
  readonly artifacts?: readonly TaskArtifact[];
}

/** Keys and values, in order, of an object or array whose members are all scalars; otherwise undefined. */
function scalarMembers(value: JsonValue | undefined): unknown[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const members: unknown[] = [];
  for (const [key, member] of Object.entries(value)) {
    if (typeof member === 'object' && member !== null) return undefined;
    members.push(key, member);
  }
  return members;
}

const CANCEL_REQUESTED = `SELECT EXISTS (SELECT 1 FROM audit_events WHERE run_id = @run AND type = 'run.cancel_requested'
  AND seq > (SELECT coalesce(max(seq), 0) FROM audit_events WHERE run_id = @run AND type IN ('run.started', 'run.resumed'))) AS requested`;
