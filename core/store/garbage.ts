// Full garbage collections at the few moments that leave tens of MiB dead at once: around recording a large value.
// V8 sizes its next collection from the live heap, so with 64 output floods in flight (1 GiB of live output) it lets
// gigabytes of dead process buffers and JSON copies pile up first. A collection here costs milliseconds.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Values whose strings add up to more than this are large. */
export const LARGE_VALUE_CHARS = 1024 * 1024;

let collect: (() => void) | null | undefined;

/** Runs a full collection; does nothing where the runtime refuses to expose one. */
export function collectGarbage(): void {
  if (collect === undefined) {
    try {
      // The flag only adds a `gc` function to contexts created after it is set; it changes nothing else.
      setFlagsFromString('--expose-gc');
      const found: unknown = runInNewContext('typeof gc === "function" ? gc : null');
      collect = typeof found === 'function' ? (found as () => void) : null;
    } catch {
      collect = null;
    }
  }
  collect?.();
}

/** The characters of the strings in a value, counted down to a small depth: a cheap test for "large". */
export function isLargeValue(value: unknown, depth = 3): boolean {
  let total = 0;
  // Strings are counted where they are found; only a collection above the last level is entered (a long list of
  // objects at the last level, such as a conversation, costs a loop, not a call per member).
  const visit = (item: unknown, level: number): boolean => {
    if (typeof item === 'string') total += item.length;
    else if (item !== null && typeof item === 'object' && level < depth) {
      for (const inner of Array.isArray(item) ? item : Object.values(item)) {
        if (typeof inner === 'string') total += inner.length;
        else if (level + 1 < depth && inner !== null && typeof inner === 'object' && visit(inner, level + 1)) return true;
      }
    }
    return total > LARGE_VALUE_CHARS;
  };
  return visit(value, 0);
}
