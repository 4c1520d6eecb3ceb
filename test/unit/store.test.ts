import { expect } from 'chai';
import { codeOf } from '../support/errors.js';
import Database from 'better-sqlite3';
import { mkdtempSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCHEMA_VERSION } from '../../core/store/migrations.js';
import { Store } from '../../core/store/store.js';
import { Redactor } from '../../core/runner/secrets.js';

describe('store', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'agentctl-store-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));


  it('creates the schema with WAL, foreign keys and the schema version', () => {
    const path = join(dir, 'nested', 'runtime.db');
    const store = Store.open(path);
    // The store keeps its handle private; a second connection sees what it made.
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
    expect(db.pragma('user_version', { simple: true })).to.equal(SCHEMA_VERSION);
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[]).map((row) => row.name);
    expect(tables).to.include.members(['runs', 'tasks', 'effects', 'approvals', 'reconciliations', 'audit_events', 'checkpoints', 'artifacts', 'task_artifacts']);
    db.close();
    // Foreign keys are on: an effect of a task that does not exist is refused.
    store.createRun(newRun('run_fk', dir));
    expect(codeOf(() => store.recordEffect({ ...effectRecord('eff_fk', 'nobody', 1), runId: 'run_fk' }, 'requested'))).to.equal('AGENTCTL_E_DB_WRITE');
    store.close();
    // Reopening is a no-op migration.
    Store.open(join(dir, 'nested', 'runtime.db')).close();
  });

  it('never changes a shipped migration: version 1 is pinned by its digest', async () => {
    const { MIGRATIONS } = await import('../../core/store/migrations.js');
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(MIGRATIONS[0]!.sql).digest('hex')).to.equal('b3ff6150d4a1e3e924e79805dc64bdc60574e6623ff270e46f38be0ddf8386ef');
  });

  it('refuses a database from a newer schema', () => {
    const path = join(dir, 'newer.db');
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(codeOf(() => Store.open(path))).to.equal('AGENTCTL_E_DB_SCHEMA_NEWER');
  });

  it('refuses a file that is not a database and a missing one when asked not to create', () => {
    const path = join(dir, 'junk.db');
    writeFileSync(path, 'not a database at all, just text that is long enough to have a header'.repeat(10));
    expect(codeOf(() => Store.open(path))).to.equal('AGENTCTL_E_DB_OPEN');
    expect(codeOf(() => Store.open(join(dir, 'absent.db'), { create: false }))).to.equal('AGENTCTL_E_DB_OPEN');
  });

  it('intents asked for in one turn commit together; one the ledger refuses fails alone, and its rows are undone', async () => {
    const path = join(dir, 'intents.db');
    const store = Store.open(path);
    store.createRun(newRun('run_t', dir));
    const outcomes = await Promise.allSettled([
      store.recordEffectSoon(effectRecord('eff_1', 'a', 1), () => store.writeTask('run_t', 'a', { state: 'running', attempt: 1, started: true })),
      // No such task: the foreign key refuses this intent only.
      store.recordEffectSoon(effectRecord('eff_2', 'nobody', 2)),
      store.recordEffectSoon(effectRecord('eff_3', 'a', 3)),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(codeOf(() => { throw (outcomes[1] as PromiseRejectedResult).reason; })).to.equal('AGENTCTL_E_DB_WRITE');
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare(`SELECT id, state FROM effects ORDER BY id`).all()).to.deep.equal([{ id: 'eff_1', state: 'requested' }, { id: 'eff_3', state: 'requested' }]);
    expect(db.prepare(`SELECT effect_id FROM audit_events WHERE type = 'effect.requested' ORDER BY seq`).all()).to.deep.equal([{ effect_id: 'eff_1' }, { effect_id: 'eff_3' }]);
    expect(db.prepare(`SELECT state FROM tasks WHERE task_id = 'a'`).get()).to.deep.equal({ state: 'running' });
    db.close();
  });

  it('an intent settles only after its commit is synced off the main thread: the log each time, its folder once', async () => {
    const real = realpathSync(dir);
    const path = join(real, 'offthread.db');
    const store = Store.open(path);
    // Every fsync of the process through a file handle, observed: the real sync still runs.
    const probe = await open(path, 'r');
    const handles = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const sync = handles.sync;
    const log: string[] = [];
    const reader = new Database(path, { readonly: true });
    const committed = (id: string) => reader.prepare('SELECT state FROM effects WHERE id = ?').get(id) !== undefined;
    // Whether an intent waiting for the sync under way settled already: it must not before the sync is done.
    let early = () => false;
    handles.sync = async function (this: { fd: number }) {
      const target = readlinkSync(`/proc/self/fd/${this.fd}`);
      log.push(`sync ${target === real ? 'folder' : target === `${path}-wal` ? 'log' : target}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (early()) log.push('settled before its sync');
      await sync.call(this);
    };
    try {
      store.createRun({ ...newRun('run_t', dir), tasks: [{ id: 'a', kind: 'k' }, { id: 'b', kind: 'k' }] });
      // One group: it commits at once, then waits for the log's sync (and the folder's, the first time) to settle.
      const pending = [store.recordEffectSoon(effectRecord('eff_1', 'a', 1)), store.recordEffectSoon(effectRecord('eff_2', 'b', 1))];
      const settled = pending.map(() => false);
      pending.forEach((promise, index) => void promise.then(() => (settled[index] = true)));
      early = () => settled.includes(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(committed('eff_1') && committed('eff_2')).to.equal(true);
      await Promise.all(pending);
      expect(log).to.deep.equal(['sync log', 'sync folder']);
      expect(settled).to.deep.equal([true, true]);
      // Later groups sync the log again, the folder no more.
      early = () => false;
      await store.recordEffectSoon(effectRecord('eff_3', 'b', 2));
      await store.recordEffectSoon(effectRecord('eff_4', 'b', 3));
      expect(log).to.deep.equal(['sync log', 'sync folder', 'sync log', 'sync log']);
      expect(reader.prepare(`SELECT effect_id FROM audit_events WHERE type = 'effect.requested' ORDER BY seq`).all().map((row: any) => row.effect_id)).to.deep.equal(['eff_1', 'eff_2', 'eff_3', 'eff_4']);
    } finally {
      handles.sync = sync;
      reader.close();
      store.close();
    }
  });

  it('refuses a second lease holder on a run', () => {
    const path = join(dir, 'lease.db');
    const first = Store.open(path);
    first.createRun({ id: 'run_1', traceId: 't', workflowName: 'w', workflowDigest: 'd', workflowFile: 'f', workflowSource: 's', plan: {}, inputs: {}, workspace: dir, tasks: [{ id: 'a', kind: 'k' }] });
    const second = Store.open(path);
    expect(codeOf(() => second.renewLease('run_1'))).to.equal('AGENTCTL_E_RUN_LEASED');
    first.renewLease('run_1');
    first.close();
    second.close();
  });

  it("sees another handle's cancellation request after any number of events, and only one after the run's latest start or resume", () => {
    const path = join(dir, 'cancel.db');
    const driver = Store.open(path);
    const other = Store.open(path);
    try {
      driver.createRun(newRun('run_c', dir));
      driver.createRun(newRun('run_d', dir));
      expect(driver.cancelRequested('run_c')).to.equal(false);
      // Events of this run and of another one between the checks: the request after them is still found.
      for (let i = 0; i < 5; i++) driver.transaction(() => driver.audit('run_c', { type: 'task.succeeded', taskId: 'a' }));
      expect(driver.cancelRequested('run_c')).to.equal(false);
      other.transaction(() => other.audit('run_d', { type: 'run.cancel_requested' }));
      expect(driver.cancelRequested('run_c')).to.equal(false);
      expect(driver.cancelRequested('run_d')).to.equal(true);
      other.transaction(() => other.audit('run_c', { type: 'run.cancel_requested' }));
      driver.transaction(() => driver.audit('run_c', { type: 'task.succeeded', taskId: 'a' }));
      expect(driver.cancelRequested('run_c')).to.equal(true);
      expect(driver.cancelRequested('run_c')).to.equal(true);
      // A resume after the request starts a drive the request no longer stops; a new request stops it again.
      driver.transaction(() => driver.audit('run_c', { type: 'run.resumed' }));
      expect(driver.cancelRequested('run_c')).to.equal(false);
      // A fresh handle (a later process) reads the whole trail and agrees.
      const later = Store.open(path);
      expect(later.cancelRequested('run_c')).to.equal(false);
      other.transaction(() => other.audit('run_c', { type: 'run.cancel_requested' }));
      expect(driver.cancelRequested('run_c')).to.equal(true);
      expect(later.cancelRequested('run_c')).to.equal(true);
      later.close();
    } finally {
      driver.close();
      other.close();
    }
  });

  it('redacts every JSON document it writes', () => {
    const store = Store.open(join(dir, 'redact.db'));
    const redactor = new Redactor();
    redactor.add('s3cret');
    store.setRedactor(redactor.redactValue, () => redactor.size);
    store.createRun({ id: 'run_2', traceId: 't', workflowName: 'w', workflowDigest: 'd', workflowFile: 'f', workflowSource: 'src', plan: {}, inputs: { token: 's3cret' }, workspace: dir, tasks: [{ id: 'a', kind: 'k' }] });
    store.updateTask('run_2', 'a', { state: 'succeeded', output: { text: 'value s3cret' } });
    expect(store.runRow('run_2')!.inputs_json).to.equal('{"token":"[REDACTED]"}');
    expect(store.taskRows('run_2')[0]!.output_json).to.equal('{"text":"value [REDACTED]"}');
    store.close();
  });

  it("records an effect input's given JSON text as it is while nothing is redacted, and serializes it again once something is", () => {
    const store = Store.open(join(dir, 'input-text.db'));
    const redactor = new Redactor();
    const serialized: unknown[] = [];
    store.setRedactor((value) => {
      serialized.push(value);
      return redactor.redactValue(value);
    }, () => redactor.size);
    store.createRun({ ...newRun('run_i', dir), tasks: [{ id: 'a', kind: 'k' }] });
    const input = { token: 'visible-now' };
    store.recordEffect({ ...effectRecord('eff_1', 'a', 1), runId: 'run_i', input, inputJson: JSON.stringify(input) }, 'requested');
    expect(serialized).to.not.include(input);
    redactor.add('visible-now');
    store.recordEffect({ ...effectRecord('eff_2', 'a', 2), runId: 'run_i', input, inputJson: JSON.stringify(input) }, 'requested');
    expect(serialized).to.include(input);
    expect(store.effectRows('run_i').map((row) => row.input_json)).to.deep.equal(['{"token":"visible-now"}', '{"token":"[REDACTED]"}']);
    store.close();
  });

  it('a task output that is its effect result is serialized once, unless it changed or the redactor learned a value since', () => {
    const store = Store.open(join(dir, 'by-reference.db'));
    const redactor = new Redactor();
    redactor.add('s3cret-one');
    const serialized: unknown[] = [];
    store.setRedactor((value) => {
      serialized.push(value);
      return redactor.redactValue(value);
    }, () => redactor.size);
    store.createRun({ ...newRun('run_t', dir), tasks: ['a', 'b', 'c'].map((id) => ({ id, kind: 'k' })) });
    const succeed = (taskId: string, result: { exitCode: number; stdout: string; stderr: string }) => {
      store.updateTask('run_t', taskId, { state: 'running' });
      store.recordEffect(effectRecord(`eff_${taskId}`, taskId, 1), 'requested');
      store.updateEffect('run_t', `eff_${taskId}`, 'started');
      store.updateEffect('run_t', `eff_${taskId}`, 'succeeded', { result });
    };
    const row = (taskId: string) => ({ effect: store.effect(`eff_${taskId}`)!.result_json, task: store.taskRows('run_t').find((task) => task.task_id === taskId)!.output_json });

    const a = { exitCode: 0, stdout: 'a s3cret-one s3cret-two', stderr: '' };
    succeed('a', a);
    store.updateTask('run_t', 'a', { state: 'succeeded', output: a });
    expect(serialized.filter((value) => value === a)).to.have.length(1);
    expect(row('a')).to.deep.equal({ effect: '{"exitCode":0,"stdout":"a [REDACTED] s3cret-two","stderr":""}', task: '{"exitCode":0,"stdout":"a [REDACTED] s3cret-two","stderr":""}' });

    const b = { exitCode: 0, stdout: 'b s3cret-two', stderr: '' };
    succeed('b', b);
    redactor.add('s3cret-two');
    store.updateTask('run_t', 'b', { state: 'succeeded', output: b });
    expect(row('b')).to.deep.equal({ effect: '{"exitCode":0,"stdout":"b s3cret-two","stderr":""}', task: '{"exitCode":0,"stdout":"b [REDACTED]","stderr":""}' });

    const c = { exitCode: 0, stdout: 'c', stderr: '' };
    succeed('c', c);
    c.stdout = 'c changed';
    store.updateTask('run_t', 'c', { state: 'succeeded', output: c });
    expect(row('c')).to.deep.equal({ effect: '{"exitCode":0,"stdout":"c","stderr":""}', task: '{"exitCode":0,"stdout":"c changed","stderr":""}' });
    store.close();
  });

  describe('state transitions', () => {
    it('applies legal changes and refuses illegal ones without changing anything', () => {
      const store = Store.open(join(dir, 'transitions.db'));
      store.createRun({ ...newRun('run_t', dir), tasks: [{ id: 'a', kind: 'k' }, { id: 'b', kind: 'k' }] });
      store.updateTask('run_t', 'a', { state: 'running' });
      store.updateTask('run_t', 'a', { state: 'succeeded' });
      expect(codeOf(() => store.updateTask('run_t', 'a', { state: 'running' }))).to.equal('AGENTCTL_E_INTERNAL');
      expect(() => store.updateTask('run_t', 'a', { state: 'failed' })).to.throw(/illegal task transition succeeded → failed/);
      expect(store.taskRows('run_t')[0]!.state).to.equal('succeeded');
      expect(codeOf(() => store.updateTask('run_t', 'missing', { state: 'running' }))).to.equal('AGENTCTL_E_INTERNAL');

      store.updateTask('run_t', 'b', { state: 'running' });
      store.recordEffect(effectRecord('eff_1', 'b', 1), 'requested');
      expect(codeOf(() => store.updateEffect('run_t', 'eff_1', 'succeeded'))).to.equal('AGENTCTL_E_INTERNAL');
      store.updateEffect('run_t', 'eff_1', 'started');
      store.updateEffect('run_t', 'eff_1', 'uncertain');
      expect(() => store.updateEffect('run_t', 'eff_1', 'succeeded')).to.throw(/illegal effect transition uncertain → succeeded/);
      expect(store.effect('eff_1')!.state).to.equal('uncertain');

      store.finishRun('run_t', 'failed', {});
      expect(() => store.finishRun('run_t', 'succeeded', {})).to.throw(/illegal run transition failed → succeeded/);
      expect(store.runRow('run_t')!.state).to.equal('failed');
      store.close();
    });

    it('every transition in the table names known states, and terminal states have no way out', async () => {
      const { RUN_TRANSITIONS, TASK_TRANSITIONS, EFFECT_TRANSITIONS } = await import('../../core/store/transitions.js');
      const { RUN_STATES, TASK_STATES, EFFECT_STATES } = await import('@agentctl/sdk');
      for (const [table, states] of [[RUN_TRANSITIONS, RUN_STATES], [TASK_TRANSITIONS, TASK_STATES], [EFFECT_TRANSITIONS, EFFECT_STATES]] as const) {
        expect(Object.keys(table).sort()).to.deep.equal([...states].sort());
        for (const next of Object.values(table) as string[][]) for (const state of next) expect(states as readonly string[]).to.include(state);
      }
      for (const state of ['succeeded', 'failed', 'cancelled'] as const) expect(RUN_TRANSITIONS[state]).to.deep.equal([]);
      for (const state of ['succeeded', 'failed', 'skipped', 'cancelled'] as const) expect(TASK_TRANSITIONS[state]).to.deep.equal([]);
      for (const state of ['succeeded', 'failed', 'cancelled'] as const) expect(EFFECT_TRANSITIONS[state]).to.deep.equal([]);
      // An uncertain effect is taken up again only by observing the remote work its protocol call recorded.
      expect(EFFECT_TRANSITIONS.uncertain).to.deep.equal(['started']);
      // A started effect may have taken place: it is never known not done.
      expect(EFFECT_TRANSITIONS.started).to.deep.equal(['succeeded', 'failed', 'uncertain']);
    });

    it('refuses to cancel a started effect: it ends succeeded, failed or uncertain', () => {
      const store = Store.open(join(dir, 'started.db'));
      store.createRun({ ...newRun('run_t', dir), tasks: [{ id: 'a', kind: 'k' }] });
      store.updateTask('run_t', 'a', { state: 'running' });
      store.recordEffect(effectRecord('eff_s', 'a', 1), 'requested');
      store.updateEffect('run_t', 'eff_s', 'started');
      expect(() => store.updateEffect('run_t', 'eff_s', 'cancelled')).to.throw(/illegal effect transition started → cancelled/);
      expect(store.effect('eff_s')!.state).to.equal('started');
      store.close();
    });
  });
});

function newRun(id: string, workspace: string) {
  return { id, traceId: 't', workflowName: 'w', workflowDigest: 'd', workflowFile: 'f', workflowSource: 's', plan: {}, inputs: {}, workspace, tasks: [{ id: 'a', kind: 'k' }] };
}

function effectRecord(id: string, taskId: string, ordinal: number) {
  return {
    id,
    runId: 'run_t',
    taskId,
    attempt: 1,
    ordinal,
    kind: 'k',
    operation: 'op',
    profile: { effectClass: 'observe' as const, risk: 'low' as const, idempotency: 'idempotent' as const },
    input: {},
    inputDigest: 'd',
  };
}
