// The one publisher of what happened in a run: the ledger's committed audit events (and the notices between them) go
// to the `commit` observers in `seq` order, after the commit and off the effects' critical path. No code that records
// a fact tells observers about it: what the ledger commits is what they see.
import { diagnostic, errorMessage, type CommitEvent, type Diagnostic, type JsonValue } from '@agentctl/sdk';
import type { CommitSink } from '../hooks.js';
import type { Host } from '../host.js';
import type { LedgerEvent } from '../store/event-sequence.js';
import type { Store } from '../store/store.js';

/** How long one observer may take over one event; past it, the observer sees no later event of the run. */
export const OBSERVER_TIMEOUT_MS = 5_000;
/** How long the end of a run waits for the observers to catch up; what is left then is not delivered. */
export const SETTLE_TIMEOUT_MS = 10_000;

/** A tap of the commit hook as tapable holds it (the facade of plugin-api.ts adds the plugin's name). */
interface ObserverTap {
  readonly name: string;
  readonly type: 'sync' | 'async' | 'promise';
  readonly fn: (...args: unknown[]) => unknown;
  readonly plugin?: string;
}

type Delivery = { readonly done: true } | { readonly error: unknown } | { readonly timedOut: true };

export class RunPublisher {
  readonly #taps: readonly ObserverTap[];
  readonly #queue: CommitEvent[] = [];
  #draining: Promise<void> | undefined;
  #closed = false;
  readonly #stopListening: () => void;
  /** Per observer: the first failure's message and how many events it failed on. */
  readonly #failures = new Map<ObserverTap, { message: string; count: number }>();
  readonly #timedOut = new Set<ObserverTap>();

  /**
   * Starts listening to the store for `runId`'s events: call it before the run's first record (its `run.started` or
   * `run.resumed`). Without any observer it listens to nothing, so a run nobody watches queues nothing.
   */
  constructor(host: Host, store: Store, private readonly runId: string) {
    this.#taps = host.hooks.commit.taps as unknown as ObserverTap[];
    this.#stopListening = this.#taps.length === 0 ? () => undefined : store.events.observe((events) => this.#enqueue(events.filter((event) => event.runId === runId).map(commitEvent)));
  }

  /** A notice that is not an audit fact (a plugin's log line, an agent's stream piece): delivered in order, without a `seq`. */
  notice(type: string, data: Readonly<Record<string, JsonValue>>, taskId?: string, effectId?: string): void {
    if (this.#taps.length === 0) return;
    this.#enqueue([Object.freeze({ at: new Date().toISOString(), type, runId: this.runId, ...(taskId ? { taskId } : {}), ...(effectId ? { effectId } : {}), data: Object.freeze({ ...data }) })]);
  }

  /**
   * At the run's end, once: waits (at most SETTLE_TIMEOUT_MS) until every event is delivered, stops listening, and
   * returns the observers' failures as warnings, one per observer.
   */
  async settle(): Promise<Diagnostic[]> {
    this.#stopListening();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), SETTLE_TIMEOUT_MS)));
    const idle = (async () => {
      while (this.#draining) await this.#draining;
    })();
    const late = await Promise.race([idle.then(() => false), expired]);
    clearTimeout(timer);
    this.#closed = true;
    const warnings = [...this.#failures].map(([, failure]) => warning(failure.count > 1 ? `${failure.message} (on ${failure.count} events)` : failure.message));
    if (late) {
      const left = this.#queue.length + 1;
      this.#queue.length = 0;
      warnings.push(warning(`commit observers did not catch up within ${SETTLE_TIMEOUT_MS / 1000} s of the run's end: ${left} event(s) were not delivered`));
    }
    return warnings;
  }

  #enqueue(events: readonly CommitEvent[]): void {
    if (events.length === 0 || this.#closed) return;
    this.#queue.push(...events);
    // Delivered from a later turn of the event loop: never inside the commit, never awaited by the code that recorded.
    this.#draining ??= new Promise<void>((resolve) => setImmediate(() => void this.#drain().then(resolve)));
  }

  async #drain(): Promise<void> {
    try {
      for (let event = this.#queue.shift(); event && !this.#closed; event = this.#queue.shift()) await this.#deliver(event);
    } finally {
      this.#draining = undefined;
    }
  }

  /** Every observer in turn, each bounded by its timeout; nothing an observer does reaches the others or the run. */
  async #deliver(event: CommitEvent): Promise<void> {
    for (const tap of this.#taps) {
      if (this.#timedOut.has(tap) || this.#closed) continue;
      let failed: unknown;
      const sink: CommitSink = { fail: (error) => void (failed ??= error) };
      const delivery = await bounded(invoke(tap, event, sink));
      if ('timedOut' in delivery) {
        this.#timedOut.add(tap);
        this.#fail(tap, `commit observer ${tap.plugin ?? tap.name} did not finish within ${OBSERVER_TIMEOUT_MS / 1000} s on ${event.type}${event.seq === undefined ? '' : ` (seq ${event.seq})`}; it receives no later event of this run`);
      } else if ('error' in delivery || failed !== undefined) {
        this.#fail(tap, errorMessage('error' in delivery ? delivery.error : failed));
      }
    }
  }

  #fail(tap: ObserverTap, message: string): void {
    const failure = this.#failures.get(tap);
    if (failure) failure.count += 1;
    else this.#failures.set(tap, { message, count: 1 });
  }
}

function commitEvent(event: LedgerEvent): CommitEvent {
  return Object.freeze({ ...event, data: Object.freeze({ ...event.data }) });
}

function invoke(tap: ObserverTap, event: CommitEvent, sink: CommitSink): Promise<unknown> {
  try {
    if (tap.type === 'async') return new Promise((resolve, reject) => void tap.fn(event, sink, (error: unknown) => (error ? reject(error) : resolve(undefined))));
    return Promise.resolve(tap.fn(event, sink));
  } catch (error) {
    return Promise.reject(error);
  }
}

async function bounded(work: Promise<unknown>): Promise<Delivery> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Delivery>((resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), OBSERVER_TIMEOUT_MS)));
  try {
    return await Promise.race([work.then((): Delivery => ({ done: true }), (error: unknown): Delivery => ({ error })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function warning(message: string): Diagnostic {
  return diagnostic('AGENTCTL_E_PLUGIN_FAILED', { severity: 'warning', message });
}
