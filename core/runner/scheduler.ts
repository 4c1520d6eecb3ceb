// Ready-task bookkeeping in O(1) per dependency edge: unmet-need counts, dependents, and a ready list in plan order.
import type { TaskState } from '../store/store.js';
import type { CompiledTask } from '@agentctl/sdk';

export interface Skip {
  readonly task: CompiledTask;
  readonly blockedBy: string;
  readonly blockedState: TaskState;
}

export class Scheduler {
  readonly #tasks: readonly CompiledTask[];
  readonly #position = new Map<string, number>();
  readonly #unmet: number[];
  readonly #dependents: number[][];
  readonly #states: TaskState[];
  /** For each aggregate or output boundary: the positions of its children, whose failure or skip it reads instead of inheriting. */
  readonly #tolerated = new Map<number, ReadonlySet<number>>();
  /** Positions of ready tasks, ascending: ties are broken by plan order. */
  #ready: number[] = [];

  constructor(tasks: readonly CompiledTask[]) {
    this.#tasks = tasks;
    tasks.forEach((task, position) => this.#position.set(task.id, position));
    this.#unmet = tasks.map((task) => task.needs.length);
    this.#dependents = tasks.map(() => []);
    this.#states = tasks.map(() => 'pending');
    tasks.forEach((task, position) => {
      for (const need of task.needs) this.#dependents[this.#position.get(need)!]!.push(position);
      if (task.needs.length === 0) this.#ready.push(position);
      if (task.control?.type === 'aggregate') this.#tolerated.set(position, new Set(task.control.children.map((child) => this.#position.get(child)!)));
      // A sub-workflow's output boundary renders its output map after its children whatever they ended as, like the
      // reference's aggregate: a child skipped by its own `when` is read as skipped, never inherited. Its input is not.
      if (task.control?.type === 'boundary' && task.control.role === 'output') {
        this.#tolerated.set(position, new Set(task.needs.filter((need) => need !== task.namespace?.inputs).map((need) => this.#position.get(need)!)));
      }
    });
  }

  /** Removes up to `limit` ready tasks, in plan order, and marks them running. */
  take(limit: number): CompiledTask[] {
    const taken = this.#ready.splice(0, limit);
    for (const position of taken) this.#states[position] = 'running';
    return taken.map((position) => this.#tasks[position]!);
  }

  /**
   * Records a task's end. Returns the pending tasks that can now never run (dependents of a failed or skipped task);
   * an aggregate is not among them for its own children: it runs once they have all ended, to record how.
   */
  complete(taskId: string, state: TaskState): Skip[] {
    const position = this.#position.get(taskId)!;
    this.#states[position] = state;
    if (state === 'succeeded') {
      for (const dependent of this.#dependents[position]!) {
        this.#unmet[dependent]! -= 1;
        if (this.#unmet[dependent] === 0 && this.#states[dependent] === 'pending') this.#insertReady(dependent);
      }
      return [];
    }
    // A cancelled task's dependents stay pending: the run is ending and closes them as cancelled.
    if (state !== 'failed' && state !== 'skipped') return [];
    const skips: Skip[] = [];
    const queue = [position];
    while (queue.length > 0) {
      const blocker = queue.shift()!;
      for (const dependent of this.#dependents[blocker]!) {
        if (this.#states[dependent] !== 'pending') continue;
        if (this.#tolerated.get(dependent)?.has(blocker)) {
          this.#unmet[dependent]! -= 1;
          if (this.#unmet[dependent] === 0) this.#insertReady(dependent);
          continue;
        }
        this.#states[dependent] = 'skipped';
        this.#ready = this.#ready.filter((ready) => ready !== dependent);
        skips.push({ task: this.#tasks[dependent]!, blockedBy: this.#tasks[blocker]!.id, blockedState: this.#states[blocker]! });
        queue.push(dependent);
      }
    }
    return skips;
  }

  /** A task whose end is already recorded (resume): it is not run again; returns the dependents it leaves blocked. */
  restore(taskId: string, state: TaskState): Skip[] {
    const position = this.#position.get(taskId)!;
    this.#ready = this.#ready.filter((ready) => ready !== position);
    return this.complete(taskId, state);
  }

  /** Position of a task in plan order. */
  position(taskId: string): number {
    return this.#position.get(taskId)!;
  }

  state(taskId: string): TaskState {
    return this.#states[this.#position.get(taskId)!]!;
  }

  /** Marks every still-pending task, e.g. `cancelled` or `skipped` when the run ends early. */
  closePending(state: TaskState): CompiledTask[] {
    const closed: CompiledTask[] = [];
    this.#states.forEach((current, position) => {
      if (current !== 'pending') return;
      this.#states[position] = state;
      closed.push(this.#tasks[position]!);
    });
    this.#ready = [];
    return closed;
  }

  snapshot(): Record<string, TaskState> {
    return Object.fromEntries(this.#tasks.map((task, position) => [task.id, this.#states[position]!]));
  }

  #insertReady(position: number): void {
    let low = 0;
    let high = this.#ready.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#ready[middle]! < position) low = middle + 1;
      else high = middle;
    }
    this.#ready.splice(low, 0, position);
  }
}
