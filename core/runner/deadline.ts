// A signal for one bounded piece of work: aborted by its parent's cancellation (with the parent's reason) or when its
// time is up (with a TimeoutError). Unlike AbortSignal.any and AbortSignal.timeout, it leaves no timer or listener
// behind once disposed. Agent turns and tool calls each take one, so it is cheap: one timer, an entry in a set that
// one listener of the parent serves, and an AbortController only if someone reads `signal`.
export interface Deadline {
  /** The bounded signal; created on first read. */
  readonly signal: AbortSignal;
  /** Whether the time ran out (rather than the parent being aborted first). */
  expired(): boolean;
  /** Stops the timer and the parent's watch; call when the work is over. */
  dispose(): void;
}

/** Per parent signal: what to call when it aborts. One listener on the parent serves every deadline under it. */
const watchers = new WeakMap<AbortSignal, Set<() => void>>();

function watch(parent: AbortSignal, onAbort: () => void): () => void {
  let set = watchers.get(parent);
  if (!set) {
    const created = new Set<() => void>();
    watchers.set(parent, (set = created));
    parent.addEventListener('abort', () => {
      for (const callback of [...created]) callback();
      created.clear();
    }, { once: true });
  }
  set.add(onAbort);
  return () => set.delete(onAbort);
}

/**
 * A deadline of `milliseconds` under `parent`. `onAbort`, when given, is called once when the deadline's signal aborts
 * (before dispose), so a caller can stop waiting without listening on the signal itself.
 */
export function boundedSignal(parent: AbortSignal, milliseconds: number, message: string, onAbort?: (reason: unknown) => void): Deadline {
  let controller: AbortController | undefined;
  let reason: unknown;
  let aborted = false;
  let expired = false;
  const abort = (why: unknown) => {
    if (aborted) return;
    aborted = true;
    reason = why;
    controller?.abort(why);
    onAbort?.(why);
  };
  let unwatch: (() => void) | undefined;
  const timer = setTimeout(() => {
    expired = true;
    abort(new DOMException(message, 'TimeoutError'));
  }, milliseconds);
  if (parent.aborted) abort(parent.reason);
  else unwatch = watch(parent, () => abort(parent.reason));
  return {
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (aborted) controller.abort(reason);
      }
      return controller.signal;
    },
    expired: () => expired,
    dispose() {
      clearTimeout(timer);
      unwatch?.();
    },
  };
}
