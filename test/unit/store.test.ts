import { expect } from 'chai';
import { codeOf } from '../support/errors.js';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
    const store = Store.open(join(dir, 'nested', 'runtime.db'));
    expect(store.db.pragma('journal_mode', { simple: true })).to.equal('wal');
    expect(store.db.pragma('foreign_keys', { simple: true })).to.equal(1);
    expect(store.db.pragma('user_version', { simple: true })).to.equal(SCHEMA_VERSION);
    const tables = (store.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[]).map((row) => row.name);
    expect(tables).to.include.members(['runs', 'tasks', 'effects', 'approvals', 'reconciliations', 'audit_events', 'checkpoints', 'artifacts', 'task_artifacts']);
    store.close();
    // Reopening is a no-op migration.
    Store.open(join(dir, 'nested', 'runtime.db')).close();
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

  it('redacts every JSON document it writes', () => {
    const store = Store.open(join(dir, 'redact.db'));
    const redactor = new Redactor();
    redactor.add('s3cret');
    store.setRedactor(redactor.redactValue);
    store.createRun({ id: 'run_2', traceId: 't', workflowName: 'w', workflowDigest: 'd', workflowFile: 'f', workflowSource: 'src', plan: {}, inputs: { token: 's3cret' }, workspace: dir, tasks: [{ id: 'a', kind: 'k' }] });
    store.updateTask('run_2', 'a', { state: 'succeeded', output: { text: 'value s3cret' } });
    const row = store.db.prepare(`SELECT inputs_json FROM runs`).get() as { inputs_json: string };
    const task = store.db.prepare(`SELECT output_json FROM tasks`).get() as { output_json: string };
    expect(row.inputs_json).to.equal('{"token":"[REDACTED]"}');
    expect(task.output_json).to.equal('{"text":"value [REDACTED]"}');
    store.close();
  });
});
