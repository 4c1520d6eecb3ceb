// Working memory as an action kind sees it: the task's snapshot of the run's key-value memory, plus its own writes.
import type { JsonValue } from './json.js';

/**
 * The run's working memory during one task attempt. Reads see the immutable snapshot taken when the task started
 * (the run's initial `spec.memory.working` with the writes of the tasks before it in compiled order that committed;
 * with tasks at once, of those it depends on), then the attempt's own writes. Writes are recorded as the task's
 * delta: it is committed with the task's success, in compiled order, and discarded when the attempt fails. A write to
 * a key outside the task's compiled `memoryWrites` fails the task (`AGENTCTL_E_MEMORY_WRITE_UNDECLARED`).
 */
export interface WorkingMemory {
  /** The value of `key` (a structured copy), or undefined when the snapshot and the attempt's writes lack it. */
  get(key: string): JsonValue | undefined;
  /** Records `value` under `key` in the task's delta. Throws when `key` is not declared or the value is over the limit. */
  set(key: string, value: JsonValue): void;
  /** Whether the key has a value (in the snapshot or the attempt's writes). */
  has(key: string): boolean;
}

/**
 * The working-memory keys a task of a kind writes, as the compiler sees them before the run (`ActionKind.memoryWrites`).
 * `keys` are the literal keys; `dynamic` says that some key is only known at run time (a template), so the task must
 * declare every key it may write in its `memoryWrites` field.
 */
export interface MemoryWriteKeys {
  readonly keys: readonly string[];
  readonly dynamic?: boolean;
}

/** The largest working-memory value a task may write, as UTF-8 JSON (1 MiB). */
export const MAX_WORKING_MEMORY_VALUE_BYTES = 1024 * 1024;
