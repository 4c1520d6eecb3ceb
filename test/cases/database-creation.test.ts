// Creating the database: a kill during creation leaves no half-made file, and a file that an interrupted creation
// left behind (schema version 0, no tables) reads as an empty database.
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { ROOT, runCli, startCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, finished, outcome, withDb } from './helpers.js';
import { SCHEMA_VERSION } from '../../core/store/migrations.js';

type Workspace = ReturnType<typeof workspace>;
const HELLO = join(ROOT, 'examples', 'hello.yaml');

/** The schema version and the agentctl tables of the file, read without changing it. */
function schemaOf(path: string): { version: number; tables: string[] } {
  return withDb(path, (db) => ({
    version: db.pragma('user_version', { simple: true }) as number,
    tables: (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]).map((row) => row.name),
  }));
}

describe('creating the database', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('run SIGKILLed the moment its database file appears: the file is already complete (the current version, every table), and runs list reads it as empty', async () => {
    const folder = join(ws.dir, 'state');
    mkdirSync(folder);
    const child = startCli(['run', HELLO, '--db', ws.db, '--output', 'json']);
    const watcher = watch(folder, (_event, name) => {
      if (name === 'runtime.db' && existsSync(ws.db)) child.kill('SIGKILL');
    });
    const result = await finished(child).finally(() => watcher.close());
    expect(result.signal, result.stderr).to.equal('SIGKILL');
    const schema = schemaOf(ws.db);
    expect(schema.version).to.equal(SCHEMA_VERSION);
    expect(schema.tables).to.include.members(['runs', 'tasks', 'effects', 'approvals', 'audit_events', 'checkpoints', 'budget_reservations', 'run_lineage']);
    expect(outcome(runCli(['runs', 'list', '--db', ws.db, '--output', 'json']), 0).data.runs).to.deep.equal([]);
    // The next run uses the file as it is.
    const runId = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0).data.runId;
    expect(outcome(runCli(['runs', 'list', '--db', ws.db, '--output', 'json']), 0).data.runs.map((run: any) => run.runId)).to.deep.equal([runId]);
  });

  it('run removes the drafts of creations killed more than a minute ago, and keeps a fresh one (another process may be creating)', () => {
    mkdirSync(join(ws.dir, 'state'));
    const stale = ['runtime.db.4242-0123abcd.creating', 'runtime.db.4242-0123abcd.creating-wal', 'runtime.db.4242-0123abcd.creating-shm'];
    const fresh = 'runtime.db.4343-89abcdef.creating';
    const unrelated = 'runtime.db.backup';
    for (const name of [...stale, fresh, unrelated]) writeFileSync(join(ws.dir, 'state', name), 'x');
    const old = new Date(Date.now() - 120_000);
    for (const name of [...stale, unrelated]) utimesSync(join(ws.dir, 'state', name), old, old);
    outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0);
    expect(readdirSync(join(ws.dir, 'state')).sort()).to.deep.equal([fresh, 'runtime.db', unrelated].sort());
  });

  for (const [label, make] of [
    ['an empty file (a kill right after it was opened)', (path: string) => writeFileSync(path, '')],
    [
      'a WAL-mode file of schema version 0 with no tables (a kill before the schema committed)',
      (path: string) => {
        const db = new Database(path);
        db.pragma('journal_mode = WAL');
        db.close();
      },
    ],
  ] as const) {
    it(`${label}: runs list shows no runs (exit 0), inspect and effects list say the run does not exist (exit 2), and the file is unchanged`, () => {
      mkdirSync(join(ws.dir, 'state'));
      make(ws.db);
      const before = readFileSync(ws.db);
      expect(outcome(runCli(['runs', 'list', '--db', ws.db, '--output', 'json']), 0).data.runs).to.deep.equal([]);
      for (const args of [
        ['inspect', 'run_missing'],
        ['effects', 'list', 'run_missing'],
      ]) {
        const document = errorDocument(runCli([...args, '--db', ws.db, '--output', 'json']), 2);
        expect(diagnosticWithCode(document, 'AGENTCTL_E_RUN_NOT_FOUND').message, args[0]).to.contain('run_missing');
      }
      expect(readFileSync(ws.db).equals(before), 'database file changed').to.equal(true);
      expect(schemaOf(ws.db)).to.deep.equal({ version: 0, tables: [] });
      // run initialises it in place.
      const runId = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json']), 0).data.runId;
      expect(schemaOf(ws.db).version).to.equal(SCHEMA_VERSION);
      expect(outcome(runCli(['runs', 'list', '--db', ws.db, '--output', 'json']), 0).data.runs.map((run: any) => run.runId)).to.deep.equal([runId]);
    });
  }

  it('a file of schema version 0 that holds tables is not an agentctl database: runs list refuses it (exit 5, AGENTCTL_E_DB_OPEN)', () => {
    mkdirSync(join(ws.dir, 'state'));
    const db = new Database(ws.db);
    db.exec('CREATE TABLE notes (text TEXT)');
    db.close();
    const document = errorDocument(runCli(['runs', 'list', '--db', ws.db, '--output', 'json']), 5);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_DB_OPEN').message).to.contain(`schema version 0, not ${SCHEMA_VERSION}`);
  });
});
