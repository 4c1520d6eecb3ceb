// Which recorded effects recovery treats as in doubt (core/store/doubt.ts).
import { expect } from 'chai';
import { mayHaveHappened } from '../../core/store/doubt.js';

describe('effects in doubt', () => {
  const effect = (state: string, effect_class = 'process_execution', idempotency = 'unknown') => ({ state, effect_class, idempotency });
  const interrupted = { state: 'running', live: false };
  const driven = { state: 'running', live: true };

  it('requested in a running run nobody drives is in doubt unless a second dispatch is harmless; in a driven run it is not', () => {
    expect(mayHaveHappened(effect('requested'), interrupted)).to.equal(true);
    expect(mayHaveHappened(effect('requested', 'external_mutate', 'at_most_once'), interrupted)).to.equal(true);
    expect(mayHaveHappened(effect('requested', 'workspace_mutate', 'idempotent'), interrupted)).to.equal(false);
    expect(mayHaveHappened(effect('requested', 'network', 'keyed'), interrupted)).to.equal(false);
    expect(mayHaveHappened(effect('requested', 'observe'), interrupted)).to.equal(false);
    expect(mayHaveHappened(effect('requested'), driven)).to.equal(false);
  });

  it('requested in a paused, failed or cancelled run is not in doubt: that run ended before dispatching it', () => {
    for (const state of ['paused', 'failed', 'cancelled', 'succeeded']) expect(mayHaveHappened(effect('requested'), { state, live: false }), state).to.equal(false);
  });

  it('started is in doubt when nobody drives its run, uncertain always, and an outcome never', () => {
    expect([mayHaveHappened(effect('started'), interrupted), mayHaveHappened(effect('started'), driven), mayHaveHappened(effect('started'), { state: 'paused', live: false })]).to.deep.equal([true, false, true]);
    expect(mayHaveHappened(effect('uncertain', 'pure', 'pure'), driven)).to.equal(true);
    for (const state of ['succeeded', 'failed', 'cancelled', 'waiting_for_approval']) expect(mayHaveHappened(effect(state), interrupted), state).to.equal(false);
  });
});
