// The ledger's one sequence of what happened: every audit event a transaction appends, held until the outermost
// transaction commits (then handed to the observers' drain, in `seq` order) and dropped if it rolls back.
import type { JsonValue } from '@agentctl/sdk';

/** One committed audit row, as observers receive it: its data is already redacted. */
export interface LedgerEvent {
  /** The row's `audit_events.seq`: strictly increasing in commit order. */
  readonly seq: number;
  /** When the row was written (ISO 8601, the row's `at`). */
  readonly at: string;
  readonly runId: string;
  readonly type: string;
  readonly taskId?: string;
  readonly effectId?: string;
  readonly data: Readonly<Record<string, JsonValue>>;
}

/** Receives the events of one commit, in `seq` order; called synchronously after the commit, so it must not throw. */
export type LedgerListener = (events: readonly LedgerEvent[]) => void;

export class EventSequence {
  #pending: LedgerEvent[] = [];
  readonly #listeners = new Set<LedgerListener>();

  /** Whether anyone listens: while nobody does, nothing is queued (a run without observers pays nothing). */
  get observed(): boolean {
    return this.#listeners.size > 0;
  }

  /** Starts receiving committed events; the returned function stops it. */
  observe(listener: LedgerListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Queues an event of the open transaction. */
  append(event: LedgerEvent): void {
    this.#pending.push(event);
  }

  /** Where a transaction (or a savepoint of one) starts in the queue. */
  mark(): number {
    return this.#pending.length;
  }

  /** The transaction or savepoint begun at `mark` rolled back: its events never happened. */
  rollback(mark: number): void {
    this.#pending.length = Math.min(this.#pending.length, mark);
  }

  /** The outermost transaction committed: its events go to the listeners. */
  release(): void {
    if (this.#pending.length === 0) return;
    const events = this.#pending;
    this.#pending = [];
    for (const listener of this.#listeners) listener(events);
  }
}
