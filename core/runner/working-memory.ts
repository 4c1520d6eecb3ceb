// One task attempt's view of working memory: the snapshot taken when the task started, and the attempt's own writes
// (its delta), confined to the task's compiled write set. The driver commits the delta with the task's success.
import { AgentctlError, MAX_WORKING_MEMORY_VALUE_BYTES, type CompiledPlan, type CompiledTask, type JsonValue, type WorkingMemory } from '@agentctl/sdk';
import { foldMemory, type MemoryDelta } from '../store/working-memory.js';

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

/**
 * The snapshot `task` starts from: the initial memory with the committed deltas of the tasks before it in `order` (the
 * compiled order). One task at a time, that is all of them; with tasks at once, only those it depends on, directly or
 * transitively, so whether an unordered task finished first never changes what it reads.
 */
export function snapshotFor(plan: CompiledPlan, task: CompiledTask, order: readonly string[], deltas: ReadonlyMap<string, MemoryDelta>): MemorySnapshot {
  const before = order.slice(0, Math.max(0, order.indexOf(task.id)));
  if (plan.runtime.maxConcurrency === 1) return foldMemory(plan.workingMemory, before, deltas);
  const needed = ancestorsOf(plan, task);
  return foldMemory(plan.workingMemory, before.filter((id) => needed.has(id)), deltas);
}

/** The tasks `task` depends on, directly or transitively. */
function ancestorsOf(plan: CompiledPlan, task: CompiledTask): Set<string> {
  const byId = new Map(plan.tasks.map((candidate) => [candidate.id, candidate]));
  const found = new Set<string>();
  const pending = [...task.needs];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (found.has(id)) continue;
    found.add(id);
    pending.push(...(byId.get(id)?.needs ?? []));
  }
  return found;
}
