// A signal for one bounded piece of work: aborted by its parent's cancellation (with the parent's reason) or when its
// time is up (with a TimeoutError). Unlike AbortSignal.any and AbortSignal.timeout, it leaves no timer or listener
// behind once disposed, and costs one controller: agent turns and tool calls each take one.
export interface Deadline {
  readonly signal: AbortSignal;
  /** Whether the time ran out (rather than the parent being aborted first). */
  expired(): boolean;
  /** Stops the timer and the parent's listener; call when the work is over. */
  dispose(): void;
}

export function boundedSignal(parent: AbortSignal, milliseconds: number, message: string): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onParentAbort = () => controller.abort(parent.reason);
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(message, 'TimeoutError'));
  }, milliseconds);
  if (parent.aborted) onParentAbort();
  else parent.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    expired: () => expired,
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}
