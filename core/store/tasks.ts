// The tasks part of the ledger: each task's state, attempt, input, output and error, moved through the transition table.
import type { Disposition, JsonValue, TaskState } from '@agentctl/sdk';
import type { EffectLedger } from './effects.js';
import { guardedStatements, now, preparedOnce, type AuditEvent, type LedgerCore } from './ledger-core.js';
import { outputDigestOf } from './lineage.js';
import type { Row, TaskRow } from './rows.js';
import { illegalTransition, TASK_TRANSITIONS } from './transitions.js';

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

export class TaskLedger {
  readonly #core: LedgerCore;
  readonly #effects: EffectLedger;
  readonly #statements;
  readonly #update;

  constructor(core: LedgerCore, effects: EffectLedger) {
    this.#core = core;
    this.#effects = effects;
    this.#statements = preparedOnce(core.db, {
      state: `SELECT state FROM tasks WHERE run_id = ? AND task_id = ?`,
      byRun: `SELECT * FROM tasks WHERE run_id = ? ORDER BY position`,
      recorded: `
        SELECT task_id, kind, state, attempt, CASE WHEN state = 'failed' THEN error_json END AS error_json,
          (input_json IS NULL OR json_valid(input_json)) AND (output_json IS NULL OR json_valid(output_json)) AND (error_json IS NULL OR json_valid(error_json)) AS valid
        FROM tasks WHERE run_id = ? ORDER BY position`,
      // SQLite cannot see into envelopes: on an encrypted database the documents are opened and checked here.
      recordedSealed: `SELECT task_id, kind, state, attempt, input_json, output_json, error_json FROM tasks WHERE run_id = ? ORDER BY position`,
    });
    this.#update = guardedStatements<TaskState>(
      core.db,
      (from) => `
        UPDATE tasks SET state = @state, attempt = COALESCE(@attempt, attempt), input_json = COALESCE(@input, input_json),
          output_json = COALESCE(@output, (SELECT result_json FROM effects WHERE id = @outputFrom), output_json), output_digest = COALESCE(@outputDigest, output_digest),
          error_json = COALESCE(@error, error_json),
          disposition = COALESCE(@disposition, disposition),
          started_at = CASE WHEN @started = 1 THEN COALESCE(started_at, @at) ELSE started_at END,
          finished_at = CASE WHEN @finished = 1 THEN @at ELSE finished_at END, updated_at = @at
        WHERE run_id = @runId AND task_id = @taskId AND state IN (${from})`,
      TASK_TRANSITIONS,
    );
  }

  updateTask(runId: string, taskId: string, patch: TaskPatch, event?: AuditEvent): void {
    this.#core.transaction(() => this.writeTask(runId, taskId, patch, event));
  }

  /** The task update and its audit event; call inside a transaction. */
  writeTask(runId: string, taskId: string, patch: TaskPatch, event?: AuditEvent): void {
    const core = this.#core;
    // An effect's result copied by SQL would carry the effect column's envelope: an encrypted database seals it again.
    const recorded = core.encrypted ? null : this.#effects.recordedResult(patch.output);
    const output = recorded === null ? core.json(patch.output) : null;
    const { changes } = this.#update(patch.state).run({
      runId,
      taskId,
      state: patch.state,
      attempt: patch.attempt ?? null,
      input: core.sealJson('tasks.input_json', patch.input),
      output: core.seal('tasks.output_json', output),
      outputFrom: recorded?.effectId ?? null,
      // Recorded with the output: a repair reuses a result only while its row still hashes to this digest.
      outputDigest: recorded ? recorded.digest : output === null ? null : outputDigestOf(output),
      error: core.sealJson('tasks.error_json', patch.error),
      disposition: patch.disposition ?? null,
      started: patch.started ? 1 : 0,
      finished: patch.finished ? 1 : 0,
      at: now(),
    });
    if (changes !== 1) {
      const current = this.#statements.state.get(runId, taskId) as { state: string } | undefined;
      throw illegalTransition('task', `${runId}/${taskId}`, current?.state, patch.state);
    }
    if (event) core.audit(runId, { taskId, ...event });
  }

  taskRows(runId: string): TaskRow[] {
    return this.#core.read(() => this.#core.openedAll('tasks', this.#statements.byRun.all(runId) as TaskRow[]));
  }

  /**
   * A run's tasks in plan order for a linked run: state and attempt, the error of a failed task, and whether every
   * JSON column of the row is valid JSON (checked by SQLite, so the documents themselves are not read into the process).
   */
  recordedTasks(runId: string): Row[] {
    const core = this.#core;
    if (!core.encrypted) return core.read(() => this.#statements.recorded.all(runId) as Row[]);
    return core.read(() =>
      core.openedAll('tasks', this.#statements.recordedSealed.all(runId) as Row[]).map(({ input_json, output_json, error_json, ...row }) => ({
        ...row,
        error_json: row.state === 'failed' ? error_json! : null,
        valid: [input_json, output_json, error_json].every((text) => text === null || isJson(String(text))) ? 1 : 0,
      })),
    );
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
