import { expect } from 'chai';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../core/store/store.js';

// Each part of the ledger prepares a statement once: the same operations, repeated on another run, prepare nothing.
describe('store statements', () => {
  let dir: string;
  let prepared: string[];
  const original = Database.prototype.prepare;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentctl-statements-'));
    prepared = [];
    // The store's handle is private; every handle's prepare goes through the prototype.
    Database.prototype.prepare = function (this: Database.Database, source: string) {
      prepared.push(source);
      return original.call(this, source);
    } as typeof original;
  });
  afterEach(() => {
    Database.prototype.prepare = original;
    rmSync(dir, { recursive: true, force: true });
  });

  it('every part prepares its statements on first use only: a second run through every operation prepares none', async () => {
    const store = Store.open(join(dir, 'runtime.db'));
    try {
      const opened = prepared.length;
      await everyOperation(store, 'run_1', dir);
      const first = prepared.length - opened;
      await everyOperation(store, 'run_2', dir);
      expect(first).to.be.greaterThan(60);
      expect(prepared.slice(opened + first)).to.deep.equal([]);
      // The second run wrote what the first did: the same operations, not fewer.
      const counts = (runId: string) => ({ audit: store.auditRows(runId).length, effects: store.effectRows(runId).length, approvals: store.approvalRows(runId).length });
      expect(counts('run_2')).to.deep.equal(counts('run_1'));
    } finally {
      store.close();
    }
  });
});

const profile = { effectClass: 'observe' as const, risk: 'low' as const, idempotency: 'idempotent' as const };
const digest = `sha256:${'a'.repeat(64)}`;

/** Every write and read of the facade and its parts, on a run of its own and the runs linked to it. */
async function everyOperation(store: Store, runId: string, workspace: string): Promise<void> {
  const effect = (id: string, taskId: string, ordinal: number) => ({ id: `${runId}_${id}`, runId, taskId, attempt: 1, ordinal, kind: 'k', operation: 'op', profile, input: { n: ordinal }, inputDigest: 'd' });
  const e = (id: string) => `${runId}_${id}`;
  store.createRun({ id: runId, traceId: 't', workflowName: 'w', workflowDigest: 'd', workflowFile: 'f', workflowSource: 's', plan: {}, inputs: {}, workspace, tasks: [{ id: 'a', kind: 'k' }, { id: 'b', kind: 'k' }] });
  store.renewLease(runId);
  store.digestKey();
  store.updateTask(runId, 'a', { state: 'running', attempt: 1, started: true }, { type: 'task.running' });
  store.recordEffect(effect('e1', 'a', 1), 'requested');
  store.updateEffect(runId, e('e1'), 'started', { taskId: 'a' });
  store.updateEffect(runId, e('e1'), 'succeeded', { taskId: 'a', result: { ok: true } });
  store.transaction(() => {
    store.writeTask(runId, 'a', { state: 'succeeded', output: { ok: true }, finished: true }, { type: 'task.succeeded' });
    store.recordArtifacts(runId, 'a', [{ path: 'out.txt', digest, size: 1 }]);
    store.checkpoint(runId, 'a', { task: 'a' });
  });
  await store.recordEffectSoon(effect('e2', 'b', 1), () => store.writeTask(runId, 'b', { state: 'running', attempt: 1, started: true }));
  store.updateEffect(runId, e('e2'), 'started', { taskId: 'b' });
  store.updateEffect(runId, e('e2'), 'succeeded', { taskId: 'b', result: { ok: 2 } });
  store.recordEffect(effect('e3', 'b', 2), 'waiting_for_approval', () => store.insertApproval({ id: `${runId}_approval`, runId, taskId: 'b', effectId: e('e3'), reason: 'why' }));
  store.decideApproval(`${runId}_approval`, 'approved', 'me', 'fine');
  store.transaction(() => store.releaseApprovedEffect(runId, e('e3'), 'b', 'op'));
  store.updateEffect(runId, e('e3'), 'cancelled', { taskId: 'b' });
  store.reconcileEffect(e('e2'), { outcome: 'applied', reason: 'seen', actor: 'me' }, () => undefined, () => false);
  store.transaction(() => store.recordCompensation({ runId, taskId: 'b', effectId: null }, [e('e1')]));
  store.budgets.reserve(runId, 'k1', { processOutputBytes: 10 }, { processOutputBytes: 100 });
  store.budgets.settle(runId, 'k1', { processOutputBytes: 5 });
  store.budgets.release(runId, 'k1');
  store.finishRun(runId, 'paused', {});
  store.acquireRun(runId, () => false);
  store.transaction(() => store.closeWaiting(runId, 'closing'));
  store.interruptRun(runId, { message: 'lost' });
  store.finishRun(runId, 'succeeded', { output: { done: true } });
  // Reads of every part.
  store.runRow(runId);
  store.existingRun(runId);
  store.recentRuns(5);
  store.compensationRuns(runId);
  store.planIsJson(runId);
  store.cancelRequested(runId);
  store.taskRows(runId);
  store.effect(e('e1'));
  store.attemptHasEffects(runId, 'a', 1);
  store.effectRows(runId);
  store.usageRows(runId);
  store.approvalRow(`${runId}_approval`);
  store.approvalForEffect(e('e3'));
  store.approvalRows(runId);
  store.auditRows(runId);
  store.checkpointRows(runId);
  store.reconciliationRows(e('e2'));
  store.runReconciliations(runId);
  store.latestReconciliations(runId);
  store.taskArtifactRows(runId);
  store.artifactRows();
  store.artifactRows(runId);
  store.artifactRow(digest);
  store.budgets.usage(runId);
  store.budgets.activeReservations(runId);
  store.claims.held(runId);
  // Linked runs: a replay and a retry of it.
  const recorded = store.recordedTasks(runId).map((row) => ({ taskId: String(row.task_id), kind: String(row.kind), state: row.state as 'succeeded', attempt: Number(row.attempt), error: null }));
  const linked = (suffix: string) => ({ id: `${runId}_${suffix}`, traceId: 't', workflowName: 'w', workflowDigest: 'd', workflowFile: 'f', workflowSource: 's', plan: {}, inputs: {}, workspace, tasks: [{ id: 'a', kind: 'k' }, { id: 'b', kind: 'k' }], sourceRunId: runId });
  store.createRecordedRun({ ...linked('replay'), mode: 'replay' }, recorded, { state: 'succeeded', output: {}, event: { type: 'run.replayed' } });
  store.createDerivedRun(linked('retry'), [{ taskId: 'a', input: {}, output: { ok: true }, artifacts: [{ path: 'out.txt', digest, size: 1 }], checks: {}, sourceEffectIds: [e('e1')] }], { mode: 'retry', sourceRunId: runId, roots: ['b'], plan: {} });
  store.lineageRow(`${runId}_retry`);
  store.taskReuseRows(`${runId}_retry`);
  store.stopDrivenRuns('stopping');
  // Maintenance.
  store.maintenance.schemaVersion();
  store.maintenance.tableCounts();
  store.maintenance.budgetedRuns();
  store.maintenance.blobs();
  store.maintenance.blob(digest);
  store.maintenance.references({ runId });
  store.maintenance.oldestLiveRun();
  store.maintenance.referencedDigests();
  store.maintenance.forgetBlobs([`sha256:${'b'.repeat(64)}`]);
  store.maintenance.collectRuns('2000-01-01T00:00:00.000Z');
}
