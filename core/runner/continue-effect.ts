// The effect runner of a task dispatched only to observe one of its effects (`effects continue-remote`): nothing is
// recorded, authorized or sent anew. The task body runs as it ran; the effect it requests under the recorded id is
// performed with its recorded protocol call (`continued`), and its result is kept for the operator's reconciliation.
// An effect it requests before that one must have succeeded (its recorded result is returned); anything else is
// refused, since observing must never do something new.
import { AgentctlError, type ContinuedCall, type JsonValue, type PerformedEffect } from '@agentctl/sdk';
import type { Store } from '../store/store.js';
import type { EffectCall } from './effect-call.js';
import { canonicalJson, effectId, sha256, type EffectRunner } from './effects.js';

/** The effect to observe and, once performed, what it gave. */
export interface ContinuingEffect {
  readonly effectId: string;
  readonly call: ContinuedCall;
  result?: JsonValue;
}

export function continuingEffectRunner(store: Store, scope: { runId: string; taskId: string; attempt: number }, target: ContinuingEffect): EffectRunner {
  let ordinal = 0;
  const callFor = (signal: AbortSignal): EffectCall => async (request, perform) => {
    ordinal += 1;
    const id = effectId({ ...scope, ordinal, operation: request.operation, inputDigest: sha256(canonicalJson(request.input)) });
    if (id !== target.effectId) {
      const recorded = store.effect(id);
      if (recorded?.state === 'succeeded') return JSON.parse(recorded.result_json ?? 'null');
      throw new AgentctlError('AGENTCTL_E_EFFECT_NOT_CONTINUABLE', `task ${scope.taskId} would request ${request.operation} (${id}) before effect ${target.effectId}; observing it must not start anything new`, {
        help: 'the workflow or its inputs changed since the run; reconcile the effect with `agentctl effects reconcile`',
      });
    }
    const performed: PerformedEffect = {
      id,
      continued: target.call,
      recordCall: (next) => store.protocols.record({ ...next, effectId: id, runId: scope.runId, taskId: scope.taskId, attempt: scope.attempt }),
    };
    const result = await perform(signal, performed);
    target.result = result;
    return result;
  };
  return { actingFor: (actor) => callFor(actor.signal) };
}
