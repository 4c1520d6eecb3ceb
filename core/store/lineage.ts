// Lineage of derived runs (retry, repair, fork, compensation): the rows that say where a run came from and why each reused task
// could be reused. The Store writes them in the transaction that creates the run (see Store.createDerivedRun).
import { createHash } from 'node:crypto';
import type { JsonValue } from '@agentctl/sdk';
import type { TaskArtifact } from './artifacts.js';

/** The digest of a task's output as stored: sha256 of the JSON text in `tasks.output_json`. */
export const outputDigestOf = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Where a derived run came from. `plan` is the reuse plan it was created from (dispositions, reasons, checks). */
export interface Lineage {
  readonly mode: 'retry' | 'repair' | 'fork' | 'compensation';
  readonly sourceRunId: string;
  readonly roots: readonly string[];
  readonly reason?: string;
  readonly plan: JsonValue;
}

/** A source task's result, materialized in the derived run as its own row (disposition `reused`, attempt 0). */
export interface ReusedTask {
  readonly taskId: string;
  readonly input: JsonValue;
  readonly output: JsonValue;
  readonly artifacts: readonly TaskArtifact[];
  /** The checks that passed, by name, with what each compared. */
  readonly checks: JsonValue;
  /** The source effects whose results this task stands on: reused, never dispatched again. */
  readonly sourceEffectIds: readonly string[];
}

export const INSERT_LINEAGE = `INSERT INTO run_lineage (run_id, source_run_id, mode, roots_json, reason, plan_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`;
export const INSERT_REUSE = `INSERT INTO task_reuse (run_id, task_id, source_run_id, checks_json, source_effect_ids_json) VALUES (?, ?, ?, ?, ?)`;
export const SELECT_LINEAGE = `SELECT * FROM run_lineage WHERE run_id = ?`;
export const SELECT_REUSE = `SELECT r.* FROM task_reuse r JOIN tasks t USING (run_id, task_id) WHERE r.run_id = ? ORDER BY t.position`;
