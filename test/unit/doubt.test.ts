// Which recorded effects recovery treats as in doubt (core/store/doubt.ts).
import { expect } from 'chai';
import { mayHaveHappened } from '../../core/store/doubt.js';

describe('effects in doubt', () => {
  const effect = (state: string, effect_class = 'process_execution', idempotency = 'unknown') => ({ state, effect_class, idempotency });

  it('requested in a run nobody drives is in doubt unless a second dispatch is harmless; in a driven run it is not', () => {
    expect(mayHaveHappened(effect('requested'), false)).to.equal(true);
    expect(mayHaveHappened(effect('requested', 'external_mutate', 'at_most_once'), false)).to.equal(true);
    expect(mayHaveHappened(effect('requested', 'workspace_mutate', 'idempotent'), false)).to.equal(false);
    expect(mayHaveHappened(effect('requested', 'network', 'keyed'), false)).to.equal(false);
    expect(mayHaveHappened(effect('requested', 'observe'), false)).to.equal(false);
    expect(mayHaveHappened(effect('requested'), true)).to.equal(false);
  });

  it('started is in doubt when nobody drives its run, uncertain always, and an outcome never', () => {
    expect([mayHaveHappened(effect('started'), false), mayHaveHappened(effect('started'), true)]).to.deep.equal([true, false]);
    expect(mayHaveHappened(effect('uncertain', 'pure', 'pure'), true)).to.equal(true);
    for (const state of ['succeeded', 'failed', 'cancelled', 'waiting_for_approval']) expect(mayHaveHappened(effect(state), false), state).to.equal(false);
  });
});
