// The database file itself: what --db may name, a damaged database (exit 5, never "internal error"), and reading
// a database that lies in a read-only folder or mount.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, BIN, ROOT, runCli, workspace, type CliResult } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;
const HELLO = join(ROOT, 'examples', 'hello.yaml');

describe('--db names a file', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const commands = (db: string[]) => [
    ['run', HELLO, '--output', 'json', ...db],
    ['inspect', 'run_whatever', '--output', 'json', ...db],
    ['runs', 'list', '--output', 'json', ...db],
  ];

  for (const [label, db] of [
    ['--db ""', ['--db', '']],
    ['--db :memory:', ['--db', ':memory:']],
    ['a bare --db', ['--db']],
    ['--db of spaces', ['--db', '   ']],
    ['--db with surrounding spaces', ['--db', ' runtime.db ']],
    ['--db given twice', ['--db', 'a.db', '--db', 'b.db']],
  ] as const) {
    it(`${label} is a usage error (exit 2) for run, inspect and runs list, and creates nothing`, () => {
      for (const args of commands([...db])) {
        const document = errorDocument(runCli(args, { cwd: ws.dir }), 2);
        expect(diagnosticWithCode(document, 'AGENTCTL_E_USAGE').message, args.join(' ')).to.contain('--db');
      }
      expect(readdirSync(ws.dir)).to.deep.equal([]);
    });
  }

  it('AGENTCTL_DB_BUSY_TIMEOUT_MS that is not a whole number of milliseconds is a usage error', () => {
    for (const value of ['soon', '-1', '1.5', '600001']) {
      const result = runCli(['runs', 'list', '--db', ws.db, '--output', 'json'], { env: baseEnv({ AGENTCTL_DB_BUSY_TIMEOUT_MS: value }) });
      const document = errorDocument(result, 2);
      expect(diagnosticWithCode(document, 'AGENTCTL_E_USAGE').message).to.contain('AGENTCTL_DB_BUSY_TIMEOUT_MS');
    }
  });
});

describe('a damaged database', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  /** One finished run, folded into the main file (no -wal left), so a damaged page cannot be masked by the log. */
  function recordedRun(): string {
    const runId = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0).data.runId;
    const db = new Database(ws.db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    return runId;
  }

  /** Overwrites the b-tree page header of `table` with bytes no SQLite page starts with. */
  function damage(table: string): void {
    const db = new Database(ws.db, { readonly: true });
    const { rootpage } = db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = ?`).get(table) as { rootpage: number };
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(ws.db, 'r+');
    writeSync(fd, Buffer.alloc(16, 0xee), 0, 16, (rootpage - 1) * pageSize);
    closeSync(fd);
  }

  it('a damaged page: run, inspect and runs list exit 5 with AGENTCTL_E_DB_CORRUPT', () => {
    const runId = recordedRun();
    damage('runs');
    for (const args of [
      ['run', HELLO, '--db', ws.db, '--output', 'json'],
      ['inspect', runId, '--db', ws.db, '--output', 'json'],
      ['runs', 'list', '--db', ws.db, '--output', 'json'],
    ]) {
      const document = errorDocument(runCli(args), 5);
      const found = diagnosticWithCode(document, 'AGENTCTL_E_DB_CORRUPT');
      expect(found.message, args[0]).to.contain('damaged');
      expect(found.help, args[0]).to.contain('integrity_check');
    }
  });

  it('a row whose JSON cannot be parsed: inspect exits 5 with AGENTCTL_E_DB_CORRUPT naming the table, column and row', () => {
    const runId = recordedRun();
    const db = new Database(ws.db);
    db.prepare(`UPDATE tasks SET output_json = '{"cut short' WHERE run_id = ? AND task_id = 'shout'`).run(runId);
    db.close();
    const document = errorDocument(runCli(['inspect', runId, '--db', ws.db, '--output', 'json']), 5);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_DB_CORRUPT');
    expect(found.message).to.contain('tasks.output_json').and.contain('shout').and.contain(runId);
    // The listing reads no JSON and still works.
    expect(outcome(runCli(['runs', 'list', '--db', ws.db, '--output', 'json']), 0).data.runs).to.have.length(1);
  });
});

describe('a database in a read-only folder', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  /**
   * Runs the CLI in a private mount namespace where the database's folder is a read-only bind mount of itself. Tests
   * run as root, for whom chmod does not stop writes; a read-only mount does. The mount ends with the process.
   */
  function readOnlyCli(folder: string, args: string[]): CliResult {
    const script = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"';
    const result = spawnSync('unshare', ['--mount', 'sh', '-c', script, 'sh', folder, process.execPath, BIN, ...args], { cwd: ROOT, env: baseEnv(), encoding: 'utf8', timeout: 60_000 });
    return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
  }

  /** Every file of the folder with its bytes, to show that reading changed nothing. */
  const snapshot = (folder: string) => Object.fromEntries(readdirSync(folder).sort().map((name) => [name, readFileSync(join(folder, name)).toString('base64')]));

  before(function () {
    const probe = spawnSync('unshare', ['--mount', 'sh', '-c', 'mount --bind /tmp /tmp && mount -o remount,ro,bind /tmp && ! touch /tmp/.agentctl-ro-probe'], { encoding: 'utf8' });
    // Without mount namespaces (no root, no CAP_SYS_ADMIN) there is no honest read-only folder to test with.
    if (probe.status !== 0) this.skip();
  });

  it('inspect and runs list read it: the folder gets no -shm and no -wal', () => {
    const runId = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0).data.runId;
    const folder = join(ws.dir, 'state');
    expect(readdirSync(folder)).to.deep.equal(['runtime.db']);
    const inspection = outcome(readOnlyCli(folder, ['inspect', runId, '--db', ws.db, '--output', 'json']), 0);
    expect(inspection.data.run).to.deep.include({ runId, state: 'succeeded' });
    expect(inspection.data.tasks.map((task: any) => task.state)).to.deep.equal(['succeeded', 'succeeded']);
    const listing = outcome(readOnlyCli(folder, ['runs', 'list', '--db', ws.db, '--output', 'json']), 0);
    expect(listing.data.runs.map((run: any) => run.runId)).to.deep.equal([runId]);
    const human = readOnlyCli(folder, ['runs', 'list', '--db', ws.db]);
    expect(human.status, human.stderr).to.equal(0);
    expect(human.stdout).to.contain(runId);
    expect(readdirSync(folder)).to.deep.equal(['runtime.db']);
  });

  /** Records a run that stays in the write-ahead log: a connection held open meanwhile keeps it from being folded in. */
  async function runKeptInLog(db: string): Promise<string> {
    const holder = spawn(process.execPath, ['-e', `const D = require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))}); const db = new D(${JSON.stringify(db)}); db.prepare('SELECT COUNT(*) FROM runs').get(); process.stdout.write('open'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((done) => holder.once('exit', done));
    try {
      await new Promise((done) => holder.stdout.once('data', done));
      return outcome(runCli(['run', HELLO, '--db', db, '--output', 'json']), 0).data.runId;
    } finally {
      // Killed, as a crashed process would be: the log and its index stay behind.
      holder.kill('SIGKILL');
      await exited;
    }
  }

  it('a run just recorded into the write-ahead log, whose -shm index is lost: inspect and runs list show it (read from the -wal), and the folder is unchanged', async () => {
    const first = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0).data.runId;
    const runId = await runKeptInLog(ws.db);
    unlinkSync(`${ws.db}-shm`);
    expect(statSync(`${ws.db}-wal`).size).to.be.greaterThan(0);
    const folder = join(ws.dir, 'state');
    const before = snapshot(folder);
    const inspection = outcome(readOnlyCli(folder, ['inspect', runId, '--db', ws.db, '--output', 'json']), 0);
    expect(inspection.data.run).to.deep.include({ runId, state: 'succeeded' });
    expect(inspection.data.tasks.map((task: any) => task.state)).to.deep.equal(['succeeded', 'succeeded']);
    const listing = outcome(readOnlyCli(folder, ['runs', 'list', '--db', ws.db, '--output', 'json']), 0);
    expect(listing.data.runs.map((run: any) => run.runId)).to.deep.equal([runId, first]);
    expect(snapshot(folder)).to.deep.equal(before);
  });

  it('the same through a symlinked --db (the log lies beside the real file): inspect shows the run instead of saying it does not exist', async () => {
    mkdirSync(join(ws.dir, 'state', 'data'), { recursive: true });
    const real = join(ws.dir, 'state', 'data', 'runtime.db');
    symlinkSync('data/runtime.db', ws.db);
    outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0);
    const runId = await runKeptInLog(ws.db);
    unlinkSync(`${real}-shm`);
    const inspection = outcome(readOnlyCli(join(ws.dir, 'state'), ['inspect', runId, '--db', ws.db, '--output', 'json']), 0);
    expect(inspection.data.run).to.deep.include({ runId, state: 'succeeded' });
    expect(outcome(readOnlyCli(join(ws.dir, 'state'), ['runs', 'list', '--db', ws.db, '--output', 'json']), 0).data.runs).to.have.length(2);
  });

  it('a run just recorded while its log and index are both there (a writer killed): inspect shows it', async () => {
    outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0);
    const runId = await runKeptInLog(ws.db);
    expect(readdirSync(join(ws.dir, 'state')).sort()).to.deep.equal(['runtime.db', 'runtime.db-shm', 'runtime.db-wal']);
    const inspection = outcome(readOnlyCli(join(ws.dir, 'state'), ['inspect', runId, '--db', ws.db, '--output', 'json']), 0);
    expect(inspection.data.run).to.deep.include({ runId, state: 'succeeded' });
  });

  it('a log that cannot be read is a clear error (exit 5, AGENTCTL_E_DB_OPEN naming the read-only folder), never a view without it', () => {
    outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0);
    mkdirSync(`${ws.db}-wal`);
    const document = errorDocument(readOnlyCli(join(ws.dir, 'state'), ['runs', 'list', '--db', ws.db, '--output', 'json']), 5);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_DB_OPEN');
    expect(found.message).to.contain('cannot be read in its read-only folder');
    expect(found.help).to.contain('-wal');
  });
});
