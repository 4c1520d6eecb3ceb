// The one module that composes the interceptor chains declared in hooks.ts, once, when the host becomes ready. The
// core calls the result around an effect's perform (runner/effects.ts) and a kind's dispatch (runner/action-dispatch.ts);
// when no plugin intercepts or propagates, there is nothing to call and the core calls perform or dispatch directly.
import { EffectFailure, isEffectFailure, type DispatchInterceptorInput, type EffectInterceptorInput, type InterceptedTask, type InterceptorNext, type JsonValue } from '@agentctl/sdk';
import type { ChainLink, InterceptorChains } from './hooks.js';
import type { ErrorCodeRegistry } from './plugin-errors.js';
import { Propagation } from './propagation.js';

/** A composed chain: the input (frozen here), what it wraps, and the run's redactor (for what propagators add). */
export type Around<Input> = (input: Input, next: InterceptorNext, redact: (text: string) => string) => Promise<JsonValue>;

/** The composed chains of one host; a chain is absent when no plugin intercepts it and no plugin propagates. */
export interface Interception {
  readonly effect?: Around<EffectInterceptorInput>;
  readonly dispatch?: Around<DispatchInterceptorInput>;
  /** Present when a plugin registered a propagator: the process service and the network client add what it gives. */
  readonly propagation?: Propagation;
}

/** A host that no plugin intercepts. */
export const NO_INTERCEPTION: Interception = Object.freeze({});

export function composeInterception(chains: InterceptorChains, errors: ErrorCodeRegistry): Interception {
  const propagation = chains.propagators.length > 0 ? new Propagation(chains.propagators, errors) : undefined;
  const effect = compose(chains.effect, 'interceptor:effect', errors, propagation);
  const dispatch = compose(chains.dispatch, 'interceptor:dispatch', errors, propagation);
  return Object.freeze({ ...(effect ? { effect } : {}), ...(dispatch ? { dispatch } : {}), ...(propagation ? { propagation } : {}) });
}

/** The first link outermost; the propagation context is entered before any of them, so every link sees it. */
function compose<Input extends InterceptedTask & { readonly effectId?: string }>(links: readonly ChainLink<Input>[], hook: string, errors: ErrorCodeRegistry, propagation: Propagation | undefined): Around<Input> | undefined {
  if (links.length === 0 && !propagation) return undefined;
  const definite = hook === 'interceptor:effect';
  const chain = links
    .map((link) => attributed(link, hook, errors, definite))
    .reduceRight<(input: Input, next: InterceptorNext) => Promise<JsonValue>>((inner, link) => (input, next) => link(input, () => inner(input, next)), (_input, next) => next());
  return (input, next, redact) => {
    const frozen = Object.freeze(input);
    if (!propagation) return chain(frozen, next);
    const { runId, traceId, taskId, attempt, effectId } = frozen;
    return propagation.within({ runId, traceId, taskId, attempt, ...(effectId === undefined ? {} : { effectId }) }, redact, () => chain(frozen, next));
  };
}

/**
 * One link: `next` runs what it wraps once, however often it is called; what `next` throws passes through as it is;
 * the link must return `next`'s value. Anything else the link does wrong fails the call, naming its plugin.
 */
function attributed<Input>(link: ChainLink<Input>, hook: string, errors: ErrorCodeRegistry, definite: boolean) {
  return async (input: Input, next: InterceptorNext): Promise<JsonValue> => {
    let called: Promise<JsonValue> | undefined;
    let settled: { value: JsonValue } | { error: unknown } | undefined;
    const once: InterceptorNext = () =>
      (called ??= next().then(
        (value) => ((settled = { value }), value),
        (error: unknown) => {
          settled = { error };
          throw error;
        },
      ));
    // What the link started is over before its outcome is decided: an effect is never recorded while it still runs.
    const finished = () => called?.catch(() => undefined);
    const failure = (error: unknown) => {
      const normalized = errors.normalize(error, link.plugin, hook);
      // Before `next`, nothing was performed: a definite failure of the effect.
      return definite && called === undefined && !isEffectFailure(normalized) ? new EffectFailure('failed', normalized.code, normalized.message, { diagnostics: normalized.diagnostics, cause: error }) : normalized;
    };
    let returned: JsonValue;
    try {
      returned = await link.around(input, once);
    } catch (error) {
      await finished();
      if (settled && 'error' in settled && settled.error === error) throw error;
      throw failure(error);
    }
    await finished();
    if (settled && 'error' in settled) throw settled.error;
    if (!settled) throw failure(new Error(`interceptor ${link.name} did not call next`));
    if (returned !== settled.value) throw failure(new Error(`interceptor ${link.name} returned a value other than what next returned`));
    return returned;
  };
}
