// The run's working memory in the ledger: the current value on the run (runs.memory_json), and each task's delta in
// the checkpoint of its success (`memoryDelta`), from which resume, derived runs and replay rebuild it.
import type { JsonValue } from '@agentctl/sdk';
import { now, preparedOnce, type LedgerCore } from './ledger-core.js';

/** One task's writes: key → value, in the order it wrote them (the last write of a key wins). */
export type MemoryDelta = Readonly<Record<string, JsonValue>>;

/**
 * The working memory after the deltas of `order`'s tasks, applied in that order (the plan's compiled order) over the
 * initial memory. Committed tasks are always a prefix of what the ledger holds, so this is the memory of the run.
 */
export function foldMemory(initial: Readonly<Record<string, JsonValue>> | undefined, order: readonly string[], deltas: ReadonlyMap<string, MemoryDelta>): Record<string, JsonValue> {
  const memory: Record<string, JsonValue> = { ...initial };
  for (const taskId of order) {
    const delta = deltas.get(taskId);
    if (delta) for (const [key, value] of Object.entries(delta)) memory[key] = value;
  }
  return memory;
}

export class WorkingMemoryLedger {
  readonly #core: LedgerCore;
  readonly #statements;

  constructor(core: LedgerCore) {
    this.#core = core;
    this.#statements = preparedOnce(core.db, {
      set: `UPDATE runs SET memory_json = ?, updated_at = ? WHERE id = ?`,
      checkpoints: `SELECT task_id, state_json FROM checkpoints WHERE run_id = ? AND task_id IS NOT NULL ORDER BY seq`,
    });
  }

  /** Records the run's current working memory. Call inside the transaction that commits what changed it. */
  setMemory(runId: string, memory: Readonly<Record<string, JsonValue>>): void {
    this.#statements.set.run(this.#core.sealJson('runs.memory_json', memory as JsonValue), now(), runId);
  }

  /** The delta of every task whose last checkpoint recorded one: the tasks that succeeded with writes. */
  deltas(runId: string): Map<string, MemoryDelta> {
    const rows = this.#core.read(() => this.#core.openedAll('checkpoints', this.#statements.checkpoints.all(runId) as { task_id: string; state_json: string }[]));
    const deltas = new Map<string, MemoryDelta>();
    for (const row of rows) {
      const state = JSON.parse(row.state_json) as { memoryDelta?: MemoryDelta } | null;
      if (state?.memoryDelta && typeof state.memoryDelta === 'object') deltas.set(row.task_id, state.memoryDelta);
      else deltas.delete(row.task_id);
    }
    return deltas;
  }
}
