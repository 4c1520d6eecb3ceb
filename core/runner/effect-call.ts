// The effect function of one task attempt as the runner hands it to the core's own callers (the agent loop): an
// SDK effect call with two core-only options, the tool contract's approval rule and cheaper input texts.
import type { EffectOptions, EffectRequest, JsonValue, PerformedEffect } from '@agentctl/sdk';

/** How a tool's `approval` bends the policy's approval decision for its calls. */
export type ApprovalOverride = 'policy' | 'never' | 'always';

/** `canonicalJson`, or an equal function that is cheaper for the values it is given (see core/agents/canonical.ts). */
export type Canonical = (value: JsonValue) => string;

/**
 * How an effect's input is written: `text` as `canonicalJson` (its digest is the effect's), `json` as
 * `JSON.stringify` (the ledger's record). The agent loop's memo writes both cheaper for the conversation it holds.
 */
export interface InputTexts {
  readonly text: Canonical;
  readonly json?: Canonical;
}

/** The task's effect runner as the agent loop calls it: with an approval override for tool calls. */
export type EffectCall = <T extends JsonValue>(
  request: EffectRequest,
  perform: (signal: AbortSignal, effect: PerformedEffect) => Promise<T>,
  options?: EffectOptions<T>,
  approval?: ApprovalOverride,
  texts?: InputTexts,
) => Promise<T>;
