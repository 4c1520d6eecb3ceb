// Which recorded effects may or may not have happened. `uncertain` always is; `started` is in a run nobody drives.
// So is `requested` in a `running` run nobody drives (interrupted), unless a second dispatch is harmless: `requested`
// is synced before dispatch, but the `started` mark after it is not, so a power loss (the operating system losing
// unsynced writes, not a process crash) can leave a dispatched effect recorded as only `requested`. A paused, failed
// or cancelled run ended on its own terms: its `requested` effects were never dispatched. See docs/recovery.md.
import type { EffectClass, Idempotency } from '@agentctl/sdk';

/** Effect classes that change nothing outside the ledger, and idempotencies whose repeat changes nothing more. */
const HARMLESS_CLASSES: readonly EffectClass[] = ['pure', 'internal_state', 'observe'];
const HARMLESS_IDEMPOTENCY: readonly Idempotency[] = ['pure', 'idempotent', 'keyed'];

const list = (names: readonly string[]) => names.map((name) => `'${name}'`).join(',');

/** SQL condition on effects `e`: a `requested` effect whose second dispatch could do harm. */
export const UNSAFE_REQUESTED_SQL = `(e.state = 'requested' AND e.effect_class NOT IN (${list(HARMLESS_CLASSES)}) AND e.idempotency NOT IN (${list(HARMLESS_IDEMPOTENCY)}))`;

/** The run an effect belongs to: its recorded state, and whether a live process drives it now. */
export interface RunDrive {
  readonly state: unknown;
  readonly live: boolean;
}

/** Whether an effect may or may not have happened; the store's resume check (acquireRun) applies the same rule. */
export function mayHaveHappened(effect: { readonly state?: unknown; readonly effect_class?: unknown; readonly idempotency?: unknown }, run: RunDrive): boolean {
  if (effect.state === 'uncertain') return true;
  if (run.live) return false;
  if (effect.state === 'started') return true;
  return (
    run.state === 'running' &&
    effect.state === 'requested' &&
    !HARMLESS_CLASSES.includes(effect.effect_class as EffectClass) &&
    !HARMLESS_IDEMPOTENCY.includes(effect.idempotency as Idempotency)
  );
}
