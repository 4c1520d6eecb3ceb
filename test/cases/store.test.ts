// The SQLite ledger: schema-version refusal, effect rows and their audit order, idempotent writes, inspect.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { SCHEMA_VERSION } from '../../core/store/migrations.js';
import { ROOT, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, shellWorkflow, workflow } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;
const HELLO = join(ROOT, 'examples', 'hello.yaml');

describe('database version and format', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  function newerDatabase(): Buffer {
    writeFileSync(ws.file('newer.db'), '');
    const db = new Database(ws.file('newer.db'));
    db.exec('CREATE TABLE future (a TEXT)');
    db.pragma('user_version = 99');
    db.close();
    return readFileSync(ws.file('newer.db'));
  }

  it('run refuses a database with user_version 99: exit 5, AGENTCTL_E_DB_SCHEMA_NEWER', () => {
    newerDatabase();
    const document = errorDocument(runCli(['run', HELLO, '--db', ws.file('newer.db'), '--output', 'json']), 5);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_DB_SCHEMA_NEWER').message).to.contain('99');
    const tables = rows(ws.file('newer.db'), `SELECT name FROM sqlite_master WHERE type = 'table'`).map((row) => row.name);
    expect(tables).to.deep.equal(['future']);
  });

  it('inspect refuses a database with user_version 99: exit 5, AGENTCTL_E_DB_SCHEMA_NEWER', () => {
    newerDatabase();
    const document = errorDocument(runCli(['inspect', 'run_whatever', '--db', ws.file('newer.db'), '--output', 'json']), 5);
    diagnosticWithCode(document, 'AGENTCTL_E_DB_SCHEMA_NEWER');
  });

  it('a refused newer database is left byte-for-byte unchanged (no journal-mode switch, no migration)', () => {
    const before = newerDatabase();
    errorDocument(runCli(['run', HELLO, '--db', ws.file('newer.db'), '--output', 'json']), 5);
    errorDocument(runCli(['inspect', 'run_whatever', '--db', ws.file('newer.db'), '--output', 'json']), 5);
    expect(readFileSync(ws.file('newer.db')).equals(before), 'database file changed').to.equal(true);
  });

  it('a file that is not SQLite: exit 5, AGENTCTL_E_DB_OPEN, for run, inspect and runs list; the file is untouched', () => {
    const garbage = ws.write('garbage.db', 'this is not a database, just text that is long enough to have a header\n'.repeat(4));
    const before = readFileSync(garbage);
    for (const args of [
      ['run', HELLO, '--db', garbage, '--output', 'json'],
      ['inspect', 'run_whatever', '--db', garbage, '--output', 'json'],
      ['runs', 'list', '--db', garbage, '--output', 'json'],
    ]) {
      const document = errorDocument(runCli(args), 5);
      diagnosticWithCode(document, 'AGENTCTL_E_DB_OPEN');
    }
    expect(readFileSync(garbage).equals(before)).to.equal(true);
  });

  it('inspect on a database that does not exist: exit 5, AGENTCTL_E_DB_OPEN, and creates nothing', () => {
    const document = errorDocument(runCli(['inspect', 'run_whatever', '--db', ws.file('state/none.db'), '--output', 'json']), 5);
    diagnosticWithCode(document, 'AGENTCTL_E_DB_OPEN');
    expect(readdirSync(ws.dir)).to.deep.equal([]);
  });

  it('a new database is created with WAL, the current user_version and the ledger tables', () => {
    outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0);
    const db = new Database(ws.db, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
      expect(db.pragma('user_version', { simple: true })).to.equal(SCHEMA_VERSION);
      const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]).map((row) => row.name);
      expect(tables).to.include.members(['runs', 'tasks', 'effects', 'approvals', 'reconciliations', 'audit_events', 'checkpoints', 'artifacts']);
    } finally {
      db.close();
    }
  });
});

describe('effects ledger', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('a successful shell task has exactly one succeeded effect, audited requested → started → succeeded', () => {
    ws.write('wf.yaml', shellWorkflow({ command: 'echo', args: ['hi'] }, { processAllowlist: ['echo'], approval: 'never' }));
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    const effects = rows(ws.db, 'SELECT * FROM effects');
    expect(effects).to.have.length(1);
    const [effect] = effects;
    expect(effect).to.deep.include({
      run_id: document.data.runId,
      task_id: 'cmd',
      attempt: 1,
      ordinal: 1,
      kind: 'builtin.shell.exec',
      operation: 'process.exec',
      effect_class: 'process_execution',
      risk: 'high',
      idempotency: 'unknown',
      state: 'succeeded',
    });
    expect(JSON.parse(effect.result_json)).to.deep.equal({ exitCode: 0, stdout: 'hi\n', stderr: '' });
    expect(effect.started_at).to.be.a('string');
    expect(effect.finished_at).to.be.a('string');
    expect(effect.id).to.match(/^eff_[0-9a-f]{40}$/);

    const trail = rows(ws.db, 'SELECT seq, type FROM audit_events WHERE effect_id = ? ORDER BY seq', effect.id).map((row) => row.type);
    expect(trail).to.deep.equal(['effect.requested', 'effect.started', 'effect.succeeded']);
    const all = rows(ws.db, 'SELECT type FROM audit_events ORDER BY seq').map((row) => row.type);
    expect(all[0]).to.equal('run.started');
    expect(all[all.length - 1]).to.equal('run.succeeded');
    expect(all.indexOf('effect.requested')).to.be.below(all.indexOf('effect.started'));
    expect(all.indexOf('effect.started')).to.be.below(all.indexOf('effect.succeeded'));
    expect(all.indexOf('effect.succeeded')).to.be.below(all.indexOf('task.succeeded'));
  });

  it('effect ids are deterministic hashes of run, task, attempt, ordinal, operation and input digest, and unique', () => {
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['echo'], approval: 'never' },
        actions: { say: { kind: 'builtin.shell.exec', command: 'echo', args: ['same'] } },
        tasks: [
          { id: 'first', uses: 'action:say' },
          { id: 'second', uses: 'action:say' },
        ],
      }),
    );
    outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    const effects = rows(ws.db, 'SELECT id, run_id, task_id, attempt, ordinal, operation, input_json, input_digest FROM effects');
    expect(effects).to.have.length(4);
    expect(new Set(effects.map((effect) => effect.id)).size).to.equal(4);
    // The two tasks of one run have the same input, hence the same input digest.
    expect(new Set(effects.map((effect) => effect.input_digest)).size).to.equal(1);
    for (const effect of effects) {
      expect(effect.id).to.match(/^eff_[0-9a-f]{40}$/);
      const expected = createHash('sha256')
        .update(JSON.stringify([effect.run_id, effect.task_id, effect.attempt, effect.ordinal, effect.operation, effect.input_digest]))
        .digest('hex')
        .slice(0, 40);
      expect(effect.id).to.equal(`eff_${expected}`);
    }
  });
});

describe('builtin.write', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const writeWorkflow = (content: string) =>
    ws.write(
      'wf.yaml',
      workflow({
        policy: { writableRoots: ['out'], approval: 'never' },
        actions: { save: { kind: 'builtin.write' } },
        tasks: [{ id: 'save', uses: 'action:save', with: { path: 'out/report.txt', content } }],
        outputs: { changed: '${{ tasks.save.output.changed }}', sha256: '${{ tasks.save.output.sha256 }}', bytes: '${{ tasks.save.output.bytes }}' },
      }),
    );

  it('writes atomically; the same content again reports changed: false and records no effect', () => {
    writeWorkflow('report body\n');
    const digest = createHash('sha256').update('report body\n').digest('hex');
    const first = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(first.data.output).to.deep.equal({ changed: true, sha256: digest, bytes: 12 });
    expect(readFileSync(ws.file('out/report.txt'), 'utf8')).to.equal('report body\n');
    expect(readdirSync(ws.file('out'))).to.deep.equal(['report.txt']);

    const second = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(second.data.output).to.deep.equal({ changed: false, sha256: digest, bytes: 12 });
    expect(readdirSync(ws.file('out'))).to.deep.equal(['report.txt']);
    const effects = rows(ws.db, 'SELECT run_id, state FROM effects');
    expect(effects).to.deep.equal([{ run_id: first.data.runId, state: 'succeeded' }]);
    const unchanged = rows(ws.db, `SELECT run_id, task_id FROM audit_events WHERE type = 'effect.unchanged'`);
    expect(unchanged).to.deep.equal([{ run_id: second.data.runId, task_id: 'save' }]);
  });

  it('a different content replaces the file and records a new effect', () => {
    writeWorkflow('one\n');
    outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    writeWorkflow('two\n');
    const second = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(second.data.output.changed).to.equal(true);
    expect(readFileSync(ws.file('out/report.txt'), 'utf8')).to.equal('two\n');
    expect(readdirSync(ws.file('out'))).to.deep.equal(['report.txt']);
    expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'succeeded' }, { state: 'succeeded' }]);
  });
});

describe('inspect and runs list', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('inspect RUN --output json is a RunInspection with run, tasks, effects, approvals, budget and audit', () => {
    ws.write('wf.yaml', shellWorkflow({ command: 'echo', args: ['hi'] }, { processAllowlist: ['echo'], approval: 'never' }));
    const run = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    const result = runCli(['inspect', run.data.runId, '--db', ws.db, '--output', 'json']);
    expect(result.stderr).to.equal('');
    const document = outcome(result, 0);
    expect(document.kind).to.equal('RunInspection');
    expect(document.ok).to.equal(true);
    expect(Object.keys(document.data).sort()).to.deep.equal([
      'approvals', 'artifacts', 'audit', 'budget', 'checkpoints', 'effectReconciliations', 'effects', 'importedFrom', 'lineage', 'modelUsage', 'protocolCalls', 'protocolSessions', 'providerSessions', 'run', 'streamEvents', 'tasks', 'toolCalls', 'traces',
    ]);
    // A run this database drove was imported from nowhere.
    expect(document.data.importedFrom).to.equal(null);
    // A run without agents made no model request.
    expect(document.data.modelUsage).to.equal(null);
    // A run without budgets records nothing in the budget ledger.
    expect(document.data.budget).to.deep.equal({ limits: {}, pricingVersion: null, usage: {}, reservations: [], exceeded: null });
    expect(document.data.lineage).to.equal(null);
    expect(document.data.run).to.deep.include({ runId: run.data.runId, traceId: run.data.traceId, workflowName: 'test', state: 'succeeded', mode: 'execute', workspace: ws.dir, basePath: ws.dir });
    expect(document.data.tasks).to.have.length(1);
    expect(document.data.tasks[0]).to.deep.include({ taskId: 'cmd', kind: 'builtin.shell.exec', state: 'succeeded', attempt: 1, disposition: 'executed' });
    expect(document.data.tasks[0].output).to.deep.equal({ exitCode: 0, stdout: 'hi\n', stderr: '' });
    expect(document.data.effects).to.have.length(1);
    expect(document.data.effects[0]).to.deep.include({ taskId: 'cmd', operation: 'process.exec', state: 'succeeded' });
    expect(document.data.approvals).to.deep.equal([]);
    expect(document.data.audit.map((event: any) => event.type)).to.include.members(['run.started', 'effect.requested', 'effect.started', 'effect.succeeded', 'run.succeeded']);
  });

  it('inspect of an unknown run id: exit 2, AGENTCTL_E_RUN_NOT_FOUND', () => {
    outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0);
    const document = errorDocument(runCli(['inspect', 'run_doesnotexist', '--db', ws.db, '--output', 'json']), 2);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_RUN_NOT_FOUND').message).to.contain('run_doesnotexist');
  });

  it('runs list --output json lists the runs, newest first', () => {
    const first = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0);
    const second = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json', '--input', 'name=B']), 0);
    const document = outcome(runCli(['runs', 'list', '--db', ws.db, '--output', 'json']), 0);
    expect(document.kind).to.equal('RunList');
    expect(document.data.runs.map((run: any) => [run.runId, run.workflow, run.state])).to.deep.equal([
      [second.data.runId, 'hello', 'succeeded'],
      [first.data.runId, 'hello', 'succeeded'],
    ]);
  });
});
