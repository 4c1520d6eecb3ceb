// A task's output as the templates of later tasks read it. A large one (a process's 16 MiB of stdout) is not held for
// the rest of the run: its entry keeps it weakly, and after a collection reads it back from the effect that recorded it.
import type { JsonValue } from '@agentctl/sdk';
import { isLargeValue } from '../store/garbage.js';
import type { Store } from '../store/store.js';

/** What a template reads of one task: its output. */
export interface OutputEntry {
  readonly output: JsonValue;
}

/**
 * The entry for `output`. Only a large object that is, unchanged and unredacted, the recorded result of a succeeded
 * effect is held weakly: read back, the ledger's JSON parses to the same members, so no template can tell the difference.
 */
export function outputEntry(store: Store, output: JsonValue): OutputEntry {
  if (typeof output !== 'object' || output === null || !isLargeValue(output)) return { output };
  const recorded = store.effects.recordedResult(output);
  if (recorded === null) return { output };
  const effectId = recorded.effectId;
  let held = new WeakRef(output);
  return {
    get output(): JsonValue {
      const kept = held.deref();
      if (kept !== undefined) return kept;
      const read = JSON.parse(String(store.effect(effectId)?.result_json ?? 'null')) as JsonValue & object;
      held = new WeakRef(read);
      return read;
    },
  };
}
