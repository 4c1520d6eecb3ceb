// The budget ledger on a real database: all-or-nothing reservations, idempotent keys, reconciliation to actual use.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../core/store/store.js';
import { dimensionOf, fieldOf, ledgerLimits } from '../../core/runner/budget.js';

describe('budget ledger', () => {
  let dir: string;
  let store: Store;
  const run = (id: string) => store.createRun({ id, traceId: 't', workflowName: 'w', workflowDigest: 'd', workflowFile: 'f', workflowSource: 's', plan: {}, inputs: {}, workspace: dir, tasks: [] });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentctl-budget-'));
    store = Store.open(join(dir, 'runtime.db'));
    run('run_a');
    run('run_b');
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const limits = { processOutputBytes: 100, tasks: 2 };

  it('reserves up to the limit (equality allowed) and refuses beyond it, counting active reservations', () => {
    expect(store.budgets.reserve('run_a', 'eff_1', { processOutputBytes: 60 }, limits)).to.equal(undefined);
    expect(store.budgets.reserve('run_a', 'eff_2', { processOutputBytes: 41 }, limits)).to.deep.equal({ dimension: 'processOutputBytes', limit: 100, used: 0, reserved: 60, requested: 41 });
    expect(store.budgets.reserve('run_a', 'eff_2', { processOutputBytes: 40 }, limits)).to.equal(undefined);
    expect(store.budgets.usage('run_a')).to.deep.equal({ processOutputBytes: { used: 0, reserved: 100 } });
    // Another run has its own ledger.
    expect(store.budgets.reserve('run_b', 'eff_1', { processOutputBytes: 100 }, limits)).to.equal(undefined);
  });

  it('is all or nothing across dimensions, and records only limited dimensions', () => {
    store.budgets.reserve('run_a', 'task:x', { tasks: 2 }, limits);
    const denial = store.budgets.reserve('run_a', 'eff_1', { processOutputBytes: 10, tasks: 1, turns: 5 }, limits);
    expect(denial).to.deep.include({ dimension: 'tasks', limit: 2, reserved: 2, requested: 1 });
    expect(store.budgets.usage('run_a')).to.deep.equal({ tasks: { used: 0, reserved: 2 } });
    expect(store.budgets.reserve('run_a', 'eff_2', { processOutputBytes: 10, turns: 5 }, limits)).to.equal(undefined);
    expect(Object.keys(store.budgets.usage('run_a'))).to.deep.equal(['processOutputBytes', 'tasks']);
  });

  it('is idempotent by key: a repeated reservation or settlement counts once', () => {
    store.budgets.reserve('run_a', 'eff_1', { processOutputBytes: 80 }, limits);
    expect(store.budgets.reserve('run_a', 'eff_1', { processOutputBytes: 80 }, limits)).to.equal(undefined);
    store.budgets.settle('run_a', 'eff_1', { processOutputBytes: 7 });
    store.budgets.settle('run_a', 'eff_1', { processOutputBytes: 90 });
    // Settled: reserving the same key again (a resumed task) neither re-reserves nor changes the actual use.
    expect(store.budgets.reserve('run_a', 'eff_1', { processOutputBytes: 80 }, limits)).to.equal(undefined);
    expect(store.budgets.usage('run_a')).to.deep.equal({ processOutputBytes: { used: 7, reserved: 0 } });
    expect(store.budgets.activeReservations('run_a')).to.deep.equal([]);
  });

  it('settles to actual use and releases unused reservations, freeing the rest of the limit', () => {
    store.budgets.reserve('run_a', 'eff_1', { processOutputBytes: 100 }, limits);
    expect(store.budgets.reserve('run_a', 'eff_2', { processOutputBytes: 50 }, limits)?.dimension).to.equal('processOutputBytes');
    store.budgets.settle('run_a', 'eff_1', { processOutputBytes: 30 });
    expect(store.budgets.reserve('run_a', 'eff_2', { processOutputBytes: 50 }, limits)).to.equal(undefined);
    expect(store.budgets.activeReservations('run_a').map(({ key, dimension, reserved, state }) => ({ key, dimension, reserved, state }))).to.deep.equal([{ key: 'eff_2', dimension: 'processOutputBytes', reserved: 50, state: 'active' }]);
    store.budgets.release('run_a', 'eff_2');
    expect(store.budgets.usage('run_a')).to.deep.equal({ processOutputBytes: { used: 30, reserved: 0 } });
  });

  it('names dimensions after budget fields; wall time is a clock, not a ledger dimension', () => {
    expect(dimensionOf('maxProcessOutputBytes')).to.equal('processOutputBytes');
    expect(fieldOf('costMicrousd')).to.equal('maxCostMicrousd');
    expect(ledgerLimits({ maxTasks: 3, maxWallTimeSeconds: 9, maxTotalTokens: 5 })).to.deep.equal({ tasks: 3, totalTokens: 5 });
  });
});
