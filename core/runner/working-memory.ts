// One task attempt's view of working memory: the snapshot taken when the task started, and the attempt's own writes
// (its delta), confined to the task's compiled write set. The driver commits the delta with the task's success.
import { AgentctlError, MAX_WORKING_MEMORY_VALUE_BYTES, type JsonValue, type WorkingMemory } from '@agentctl/sdk';
import type { MemoryDelta } from '../store/working-memory.js';

export type MemorySnapshot = Readonly<Record<string, JsonValue>>;

export class TaskMemory implements WorkingMemory {
  readonly #snapshot: MemorySnapshot;
  readonly #allowed: ReadonlySet<string>;
  readonly #taskId: string;
  /** A sub-workflow task's keys are its invocation's: the kind names them locally, the run's memory with this prefix. */
  readonly #prefix: string;
  readonly #delta = new Map<string, JsonValue>();

  constructor(snapshot: MemorySnapshot, allowed: readonly string[], taskId: string, prefix = '') {
    this.#snapshot = snapshot;
    this.#allowed = new Set(allowed);
    this.#taskId = taskId;
    this.#prefix = prefix;
  }

  has(name: string): boolean {
    const key = this.#prefix + name;
    return this.#delta.has(key) || Object.hasOwn(this.#snapshot, key);
  }

  get(name: string): JsonValue | undefined {
    const key = this.#prefix + name;
    if (this.#delta.has(key)) return structuredClone(this.#delta.get(key)!);
    return Object.hasOwn(this.#snapshot, key) ? structuredClone(this.#snapshot[key]!) : undefined;
  }

  set(name: string, value: JsonValue): void {
    const key = this.#prefix + name;
    if (!this.#allowed.has(key)) {
      const declared = this.#allowed.size > 0 ? `its memoryWrites are ${[...this.#allowed].join(', ')}` : 'it declares no memoryWrites';
      throw new AgentctlError('AGENTCTL_E_MEMORY_WRITE_UNDECLARED', `task ${this.#taskId} wrote working-memory key "${key}", but ${declared}`);
    }
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? 'null');
    if (bytes > MAX_WORKING_MEMORY_VALUE_BYTES) {
      throw new AgentctlError('AGENTCTL_E_MEMORY_VALUE_TOO_LARGE', `task ${this.#taskId} wrote ${bytes} bytes to working-memory key "${key}", more than ${MAX_WORKING_MEMORY_VALUE_BYTES}`);
    }
    this.#delta.set(key, structuredClone(value));
  }

  /** The attempt's writes, or undefined when it wrote nothing. */
  delta(): MemoryDelta | undefined {
    return this.#delta.size === 0 ? undefined : Object.fromEntries(this.#delta);
  }
}
