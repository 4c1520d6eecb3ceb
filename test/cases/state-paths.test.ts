// The state is agentctl's own: no task reads or writes the database, its -wal/-shm/-journal or the artifact store,
// even when they lie inside a writable root (SPEC §7).
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;
const CODE = 'AGENTCTL_E_POLICY_STATE_PATH';

describe('state paths are never a task\'s to touch', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  /** The default database: `.agentctl/runtime.db` below the current folder, which is the workspace here. */
  const defaultDb = () => ws.file('.agentctl/runtime.db');

  /** One task per path, each `failure: continue`, so every attempt is judged in one run. */
  function touchingWorkflow(entries: { id: string; kind: 'builtin.read' | 'builtin.write'; path: string }[], policy: Record<string, unknown> = {}): string {
    return ws.write(
      'wf.yaml',
      workflow({
        policy: { writableRoots: ['.'], approval: 'never', ...policy },
        actions: { read: { kind: 'builtin.read' }, write: { kind: 'builtin.write' } },
        tasks: entries.map((entry) => ({
          id: entry.id,
          uses: entry.kind === 'builtin.read' ? 'action:read' : 'action:write',
          with: entry.kind === 'builtin.read' ? { path: entry.path } : { path: entry.path, content: 'replaced by a task\n' },
          failure: 'continue',
        })),
      }),
    );
  }

  function expectStateDenials(dbPath: string, runId: string, denied: string[]): void {
    const tasks = rows(dbPath, 'SELECT task_id, state, error_json FROM tasks WHERE run_id = ? ORDER BY position', runId);
    for (const id of denied) {
      const task = tasks.find((row) => row.task_id === id);
      expect(task, `task ${id}`).to.not.equal(undefined);
      expect(task.state, `task ${id}`).to.equal('failed');
      const error = JSON.parse(task.error_json);
      expect(error.code, `task ${id}`).to.equal(CODE);
      expect(error.diagnostics.map((item: any) => item.code), `task ${id}`).to.deep.equal([CODE]);
    }
    const audit = rows(dbPath, `SELECT task_id, data_json FROM audit_events WHERE run_id = ? AND type = 'policy.denied' ORDER BY seq`, runId);
    expect(audit.map((row) => [row.task_id, JSON.parse(row.data_json).code])).to.deep.equal(denied.map((id) => [id, CODE]));
    const recorded = rows(dbPath, 'SELECT task_id FROM effects WHERE run_id = ?', runId).map((row) => row.task_id);
    expect(recorded.filter((id) => denied.includes(id)), 'effects recorded for denied tasks').to.deep.equal([]);
  }

  it('with writableRoots ["."] and the default database: writes and reads of the database, -wal, -shm, -journal and artifacts/ are refused (exit 3 code, run intact)', () => {
    touchingWorkflow([
      { id: 'write_db', kind: 'builtin.write', path: '.agentctl/runtime.db' },
      { id: 'write_wal', kind: 'builtin.write', path: '.agentctl/runtime.db-wal' },
      { id: 'write_shm', kind: 'builtin.write', path: '.agentctl/runtime.db-shm' },
      { id: 'write_journal', kind: 'builtin.write', path: '.agentctl/runtime.db-journal' },
      { id: 'write_artifact', kind: 'builtin.write', path: '.agentctl/artifacts/sha256/ab/blob' },
      { id: 'read_db', kind: 'builtin.read', path: '.agentctl/runtime.db' },
      { id: 'read_wal', kind: 'builtin.read', path: `${ws.dir}/.agentctl/runtime.db-wal` },
      { id: 'read_abs_db', kind: 'builtin.read', path: `${ws.dir}/.agentctl/./runtime.db` },
    ]);
    // A run whose every task continues past its failure ends succeeded: exit 0, and the ledger is still a database.
    const document = outcome(runCli(['run', 'wf.yaml', '--output', 'json'], { cwd: ws.dir }), 0);
    expect(document.data.state).to.equal('succeeded');
    expect(Object.values(document.data.tasks)).to.deep.equal(Array(8).fill('failed'));
    expect(rows(defaultDb(), 'SELECT id, state FROM runs')).to.deep.equal([{ id: document.data.runId, state: 'succeeded' }]);
    expectStateDenials(defaultDb(), document.data.runId, ['write_db', 'write_wal', 'write_shm', 'write_journal', 'write_artifact', 'read_db', 'read_wal', 'read_abs_db']);
    expect(existsSync(ws.file('.agentctl/artifacts/sha256/ab')), 'a store folder created by a task').to.equal(false);
    expect(existsSync(ws.file('.agentctl/runtime.db-journal'))).to.equal(false);
    expect(readFileSync(defaultDb()).subarray(0, 15).toString()).to.equal('SQLite format 3');
  });

  it('the diagnostic names the path and the state it protects; the task fails, the run exits 4', () => {
    touchingWorkflow([{ id: 'clobber', kind: 'builtin.write', path: '.agentctl/runtime.db' }]);
    ws.write('wf.yaml', readFileSync(ws.file('wf.yaml'), 'utf8').replace('failure: continue', 'failure: stop'));
    const document = errorDocument(runCli(['run', 'wf.yaml', '--output', 'json'], { cwd: ws.dir }), 4);
    const found = diagnosticWithCode(document, CODE);
    expect(found.taskId).to.equal('clobber');
    expect(found.message).to.contain('.agentctl/runtime.db');
    expect(found.message).to.contain('state');
    expect(found.help).to.be.a('string').and.contain('--db');
    expect(rows(defaultDb(), 'SELECT state FROM runs')).to.deep.equal([{ state: 'failed' }]);
  });

  it('symlinks are followed: a link to the database, or to its folder, is refused', () => {
    mkdirSync(ws.file('.agentctl'));
    symlinkSync('.agentctl/runtime.db', ws.file('ledger-link'));
    symlinkSync('.agentctl', ws.file('state-link'));
    touchingWorkflow([
      { id: 'read_link', kind: 'builtin.read', path: 'ledger-link' },
      { id: 'write_link', kind: 'builtin.write', path: 'ledger-link' },
      { id: 'write_via_folder', kind: 'builtin.write', path: 'state-link/runtime.db-wal' },
      { id: 'artifact_via_folder', kind: 'builtin.write', path: 'state-link/artifacts/sha256/x' },
    ]);
    const document = outcome(runCli(['run', 'wf.yaml', '--output', 'json'], { cwd: ws.dir }), 0);
    expectStateDenials(defaultDb(), document.data.runId, ['read_link', 'write_link', 'write_via_folder', 'artifact_via_folder']);
  });

  it('a --db inside a writable root is protected; other files beside it are not', () => {
    const db = ws.file('out/ledger.db');
    touchingWorkflow(
      [
        { id: 'write_db', kind: 'builtin.write', path: 'out/ledger.db' },
        { id: 'write_artifacts', kind: 'builtin.write', path: 'out/artifacts/sha256/00/blob' },
        { id: 'write_beside', kind: 'builtin.write', path: 'out/report.txt' },
        { id: 'write_similar', kind: 'builtin.write', path: 'out/ledger.db.txt' },
      ],
      { writableRoots: ['out'] },
    );
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', db, '--output', 'json']), 0);
    expect(document.data.tasks).to.deep.equal({ write_db: 'failed', write_artifacts: 'failed', write_beside: 'succeeded', write_similar: 'succeeded' });
    expectStateDenials(db, document.data.runId, ['write_db', 'write_artifacts']);
    expect(readFileSync(ws.file('out/report.txt'), 'utf8')).to.equal('replaced by a task\n');
    expect(statSync(db).size).to.be.greaterThan(0);
  });

  it('a process cwd inside the artifact store is refused; the database\'s own folder is not state', () => {
    mkdirSync(ws.file('.agentctl/artifacts/sha256'), { recursive: true });
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['true'], approval: 'never' },
        actions: {
          inStore: { kind: 'builtin.shell.exec', command: 'true', cwd: '.agentctl/artifacts/sha256' },
          inFolder: { kind: 'builtin.shell.exec', command: 'true', cwd: '.agentctl' },
        },
        tasks: [
          { id: 'in_store', uses: 'action:inStore', failure: 'continue' },
          { id: 'in_folder', uses: 'action:inFolder', failure: 'continue' },
        ],
      }),
    );
    const document = outcome(runCli(['run', 'wf.yaml', '--output', 'json'], { cwd: ws.dir }), 0);
    expect(document.data.tasks).to.deep.equal({ in_store: 'failed', in_folder: 'succeeded' });
    const audit = rows(defaultDb(), `SELECT task_id, data_json FROM audit_events WHERE type = 'policy.denied'`);
    expect(audit.map((row) => [row.task_id, JSON.parse(row.data_json).code])).to.deep.equal([['in_store', CODE]]);
  });

  it('check and plan flag a task aimed at the default database before the run, and never open it', () => {
    touchingWorkflow([{ id: 'write_db', kind: 'builtin.write', path: '.agentctl/runtime.db' }]);
    const check = errorDocument(runCli(['check', 'wf.yaml', '--output', 'json'], { cwd: ws.dir }), 3);
    expect(diagnosticWithCode(check, CODE)).to.include({ taskId: 'write_db' });
    const plan = outcome(runCli(['plan', 'wf.yaml', '--output', 'json'], { cwd: ws.dir }), 0);
    expect(plan.data.order).to.deep.equal(['write_db']);
    expect(plan.data.tasks.write_db.policy).to.include({ decision: 'deny', code: CODE });
    expect(existsSync(ws.file('.agentctl')), 'plan or check created state').to.equal(false);
  });
});
