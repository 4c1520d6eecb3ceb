// Linked runs: a run made from a recorded one, either replayed from its record (`replay`) or derived with its reused
// tasks and lineage (retry, repair, fork, compensation). Each is created whole in one transaction, or not at all.
import type { JsonValue, RunMode, RunState, TaskState } from '@agentctl/sdk';
import type { TaskArtifact } from './artifacts.js';
import { now, preparedOnce, type AuditEvent, type LedgerCore } from './ledger-core.js';
import type { Lineage, ReusedTask } from './lineage.js';
import type { Row } from './rows.js';
import type { NewRun, RunLedger } from './runs.js';
import type { TaskArtifactLedger } from './task-artifacts.js';
import type { TaskLedger } from './tasks.js';
import type { WorkingMemoryLedger } from './working-memory.js';

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

export class LinkedRunLedger {
  readonly #core: LedgerCore;
  readonly #runs: RunLedger;
  readonly #tasks: TaskLedger;
  readonly #artifacts: TaskArtifactLedger;
  readonly #memory: WorkingMemoryLedger;
  readonly #statements;

  constructor(core: LedgerCore, parts: { readonly runs: RunLedger; readonly tasks: TaskLedger; readonly artifacts: TaskArtifactLedger; readonly workingMemory: WorkingMemoryLedger }) {
    this.#core = core;
    this.#runs = parts.runs;
    this.#tasks = parts.tasks;
    this.#artifacts = parts.artifacts;
    this.#memory = parts.workingMemory;
    this.#statements = preparedOnce(core.db, {
      copyPlan: `UPDATE runs SET plan_json = (SELECT plan_json FROM runs WHERE id = ?) WHERE id = ?`,
      copyTasks: `
          INSERT INTO tasks (run_id, task_id, position, kind, state, attempt, input_json, output_json, output_digest, error_json, disposition, started_at, finished_at, updated_at)
          SELECT @runId, task_id, position, kind, state, CASE WHEN state = 'pending' THEN 0 ELSE attempt END,
            CASE WHEN state = 'pending' THEN NULL ELSE input_json END, CASE WHEN state = 'pending' THEN NULL ELSE output_json END,
            CASE WHEN state = 'pending' THEN NULL ELSE output_digest END,
            CASE WHEN state = 'pending' THEN NULL ELSE error_json END, CASE WHEN state = 'pending' THEN NULL ELSE 'recorded' END,
            CASE WHEN state <> 'pending' AND started_at IS NOT NULL THEN @at END, CASE WHEN state <> 'pending' AND finished_at IS NOT NULL THEN @at END, @at
          FROM tasks WHERE run_id = @sourceRunId ORDER BY position`,
      insertLineage: `INSERT INTO run_lineage (run_id, source_run_id, mode, roots_json, reason, plan_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      insertReuse: `INSERT INTO task_reuse (run_id, task_id, source_run_id, checks_json, source_effect_ids_json) VALUES (?, ?, ?, ?, ?)`,
      lineage: `SELECT * FROM run_lineage WHERE run_id = ?`,
      sourceTrace: `SELECT trace_id FROM runs WHERE id = ?`,
      reuse: `SELECT r.* FROM task_reuse r JOIN tasks t USING (run_id, task_id) WHERE r.run_id = ? ORDER BY t.position`,
    });
  }

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
    const core = this.#core;
    core.transaction(() => {
      this.#runs.createRun({ ...run, tasks: [] });
      // The plan, the largest document, is copied as stored too (`run.plan` is not read).
      this.#statements.copyPlan.run(run.sourceRunId, run.id);
      this.#statements.copyTasks.run({ runId: run.id, sourceRunId: run.sourceRunId, at: now() });
      for (const task of tasks) {
        if (task.state === 'pending') continue;
        core.audit(run.id, { type: `task.${task.state}`, taskId: task.taskId, data: { attempt: task.attempt, disposition: 'recorded' } });
        if (task.artifacts?.length) this.#artifacts.recordArtifacts(run.id, task.taskId, task.artifacts);
      }
      core.audit(run.id, end.event);
      this.#runs.finishRun(run.id, end.state, { output: end.output, ...(end.error === undefined ? {} : { error: end.error }), ...(end.memory === undefined ? {} : { memory: end.memory }) });
    });
  }

  /**
   * Creates a derived run (retry, repair, fork) with its lineage, in one transaction: the run, its reused tasks as its
   * own rows (succeeded, disposition `reused`, attempt 0, the source's input, output and artifact references) with the
   * checks that allowed each reuse. Nothing of the source is changed; the run is left `running` for the driver.
   */
  createDerivedRun(run: NewRun & { readonly sourceRunId: string }, reused: readonly ReusedTask[], lineage: Lineage): void {
    const core = this.#core;
    // A reused task's working-memory delta comes with it: the derived run's driver rebuilds memory from checkpoints.
    const deltasOf = new Map<string, ReturnType<WorkingMemoryLedger['deltas']>>();
    const deltas = (runId: string) => deltasOf.get(runId) ?? deltasOf.set(runId, this.#memory.deltas(runId)).get(runId)!;
    core.transaction(() => {
      this.#runs.createRun({ ...run, mode: lineage.mode });
      this.#statements.insertLineage.run(run.id, lineage.sourceRunId, lineage.mode, core.json(lineage.roots as JsonValue), lineage.reason === undefined ? null : core.sealText('run_lineage.reason', lineage.reason), core.sealJson('run_lineage.plan_json', lineage.plan), now());
      for (const task of reused) {
        const from = task.sourceRunId ?? lineage.sourceRunId;
        this.#tasks.writeTask(run.id, task.taskId, { state: 'succeeded', attempt: 0, input: task.input, output: task.output, disposition: 'reused', finished: true }, { type: 'task.reused', data: { sourceRunId: from } });
        if (task.artifacts.length > 0) this.#artifacts.recordArtifacts(run.id, task.taskId, task.artifacts);
        this.#statements.insertReuse.run(run.id, task.taskId, from, core.sealJson('task_reuse.checks_json', task.checks), core.json(task.sourceEffectIds as JsonValue));
        const delta = deltas(from).get(task.taskId);
        this.#runs.checkpoint(run.id, task.taskId, { task: task.taskId, state: 'succeeded', disposition: 'reused', ...(delta ? { memoryDelta: delta } : {}) });
      }
      // The source's trace id lets an observer link the derived run's trace to the source's (docs/telemetry.md).
      const source = this.#statements.sourceTrace.get(lineage.sourceRunId) as { trace_id?: unknown } | undefined;
      const sourceTraceId: Record<string, JsonValue> = typeof source?.trace_id === 'string' ? { sourceTraceId: source.trace_id } : {};
      core.audit(run.id, { type: `run.${lineage.mode}`, data: { sourceRunId: lineage.sourceRunId, ...sourceTraceId, roots: [...lineage.roots], reused: reused.map((task) => task.taskId) } });
    });
  }

  /** A derived run's lineage row, or undefined for a run made by `run` or `replay`. */
  lineageRow(runId: string): Row | undefined {
    return this.#core.read(() => this.#core.opened('run_lineage', this.#statements.lineage.get(runId) as Row | undefined));
  }

  /** The reuse checks of each reused task of a derived run, in plan order. */
  taskReuseRows(runId: string): Row[] {
    return this.#core.read(() => this.#core.openedAll('task_reuse', this.#statements.reuse.all(runId) as Row[]));
  }
}
