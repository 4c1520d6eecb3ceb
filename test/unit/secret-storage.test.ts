// What the store keeps about secrets: no value in any column, and the per-database key of the recorded digests.
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { MIGRATIONS, SCHEMA_VERSION } from '../../core/store/migrations.js';
import { Store } from '../../core/store/store.js';
import { keyedDigest, Redactor, SecretVault } from '../../core/runner/secrets.js';

describe('secret storage', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'agentctl-secrets-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const tables = (path: string) => {
    const db = new Database(path, { readonly: true });
    try {
      return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[]).map((row) => row.name);
    } finally {
      db.close();
    }
  };

  it('the migrations after version 1 upgrade a version 1 database, keeping its rows; version 1 is unchanged', () => {
    // Versions count up from 1 without a gap; the newest is the schema version.
    expect(MIGRATIONS.map((migration) => migration.version)).to.deep.equal(MIGRATIONS.map((_, index) => index + 1));
    expect(SCHEMA_VERSION).to.equal(MIGRATIONS.length);
    const path = join(dir, 'v1.db');
    const old = new Database(path);
    old.exec(MIGRATIONS[0]!.sql);
    old.pragma('user_version = 1');
    old.prepare(`INSERT INTO artifacts (digest, size, created_at) VALUES ('sha256:x', 1, 'now')`).run();
    old.close();
    Store.open(path).close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).to.equal(SCHEMA_VERSION);
    // Migration 4: the run budget ledger.
    expect(tables(path)).to.include('budget_reservations');
    // Migration 5: lineage of derived runs, and each task's output digest.
    expect((db.prepare(`SELECT name FROM pragma_table_info('tasks')`).all() as { name: string }[]).map((row) => row.name)).to.include('output_digest');
    // Migration 3: a reconciliation keeps the result an operator supplies with `applied`.
    expect((db.prepare(`SELECT name FROM pragma_table_info('reconciliations')`).all() as { name: string }[]).map((row) => row.name)).to.include('result_json');
    expect(db.prepare('SELECT digest FROM artifacts').all()).to.deep.equal([{ digest: 'sha256:x' }]);
    expect(db.prepare('SELECT COUNT(*) AS n FROM metadata').get()).to.deep.equal({ n: 0 });
    db.close();
    expect(tables(path)).to.include.members(['metadata', 'run_lineage', 'task_reuse', 'compensation_claims', 'state_encryption', 'protocol_calls', 'protocol_sessions']);
    // An upgraded database's state is not encrypted: it records no key.
    const upgraded = new Database(path, { readonly: true });
    expect(upgraded.prepare('SELECT COUNT(*) AS n FROM state_encryption').get()).to.deep.equal({ n: 0 });
    upgraded.close();
  });

  it('the digest key is 32 random bytes, created once per database and reused', () => {
    const first = Store.open(join(dir, 'a.db'));
    const key = first.digestKey();
    expect(key).to.have.length(32);
    expect(first.digestKey().equals(key)).to.equal(true);
    first.close();
    const reopened = Store.open(join(dir, 'a.db'));
    expect(reopened.digestKey().equals(key)).to.equal(true);
    reopened.close();
    const other = Store.open(join(dir, 'b.db'));
    expect(other.digestKey().equals(key)).to.equal(false);
    other.close();
  });

  it('TaskSecrets.digest is HMAC-SHA-256 under that key, asked for only when a digest is needed', () => {
    const key = Buffer.alloc(32, 7);
    let asked = 0;
    const vault = new SecretVault(() => {
      asked += 1;
      return key;
    });
    vault.set({ env: 'PIN' }, '4711');
    expect(asked).to.equal(0);
    const digest = vault.forTask().digest({ env: 'PIN' });
    expect(digest).to.equal(`hmac-sha256:${createHmac('sha256', key).update('4711').digest('hex')}`);
    expect(digest).to.equal(keyedDigest(key, '4711'));
    expect(digest).not.to.contain(createHash('sha256').update('4711').digest('hex'));
    vault.forTask().digest({ env: 'PIN' });
    expect(asked).to.equal(1);
  });

  it('no column holds a secret value: plan, source, paths, operation and approval texts are redacted too', () => {
    const secret = 's3cret-value';
    const path = join(dir, 'redact.db');
    const store = Store.open(path);
    const redactor = new Redactor();
    redactor.add(secret);
    store.setRedactor(redactor.redactValue, () => redactor.size);
    store.createRun({
      id: 'run_1',
      traceId: 't',
      workflowName: 'w',
      workflowDigest: 'd',
      workflowFile: `/srv/${secret}/wf.yaml`,
      workflowSource: `spec:\n  inputs: { token: ${secret} }\n`,
      plan: { inputs: { token: secret }, actions: { a: { args: [`--token=${secret}`] } } },
      inputs: { token: secret },
      workspace: `/srv/${secret}`,
      tasks: [{ id: 'a', kind: 'k' }],
    });
    store.updateTask('run_1', 'a', { state: 'running' });
    const effect = { id: 'eff_1', runId: 'run_1', taskId: 'a', attempt: 1, ordinal: 1, kind: 'k', operation: `get ${secret}`, profile: { effectClass: 'observe', risk: 'low', idempotency: 'pure' } as const, input: { token: secret }, inputDigest: 'x', inputJson: JSON.stringify({ token: secret }) };
    store.recordEffect(effect, 'waiting_for_approval', () =>
      store.insertApproval({ id: 'apr_1', runId: 'run_1', taskId: 'a', effectId: 'eff_1', reason: `reads ${secret}`, decision: { actor: `op ${secret}`, reason: `ok ${secret}` } }),
    );
    store.close();
    const row = (sql: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare(sql).get() as Record<string, string>;
      } finally {
        db.close();
      }
    };
    expect(row('SELECT workflow_file, workflow_source, plan_json, inputs_json, workspace FROM runs')).to.deep.equal({
      workflow_file: '/srv/[REDACTED]/wf.yaml',
      workflow_source: 'spec:\n  inputs: { token: [REDACTED] }\n',
      plan_json: '{"inputs":{"token":"[REDACTED]"},"actions":{"a":{"args":["--token=[REDACTED]"]}}}',
      inputs_json: '{"token":"[REDACTED]"}',
      workspace: '/srv/[REDACTED]',
    });
    expect(row('SELECT operation, input_json FROM effects')).to.deep.equal({ operation: 'get [REDACTED]', input_json: '{"token":"[REDACTED]"}' });
    expect(row('SELECT reason, actor, decision_reason FROM approvals')).to.deep.equal({ reason: 'reads [REDACTED]', actor: 'op [REDACTED]', decision_reason: 'ok [REDACTED]' });
  });
});
