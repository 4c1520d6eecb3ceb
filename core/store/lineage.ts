// Lineage of derived runs (retry, repair, fork, compensation): the rows that say where a run came from and why each reused task
// could be reused. The ledger writes them in the transaction that creates the run (linked-runs.ts).
import { createHash } from 'node:crypto';
import type { JsonValue } from '@agentctl/sdk';
import type { TaskArtifact } from './artifacts.js';

/** The digest of a task's output as stored: sha256 of the JSON text in `tasks.output_json`. */
export const outputDigestOf = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Where a derived run came from. `plan` is the reuse plan it was created from (dispositions, reasons, checks). */
export interface Lineage {
  readonly mode: 'retry' | 'repair' | 'fork' | 'compensation' | 'shard' | 'gather';
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
  /** The run the result is taken from, when not the lineage's source (a gather reuses each item from its shard run). */
  readonly sourceRunId?: string;
}
