// `runs import` refusals, each with its code and exit code, writing nothing (and leaving no target it created), and
// sources it must read without writing: a read-only file, a read-only folder.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { BIN, baseEnv, ROOT, startCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, liveProcessesWith, outcome, rows, uniqueSleep, waitFor, workflow } from './helpers.js';
import { importCase, importTools, killProcess, type ImportCase } from './ledger-import-support.js';
import { SCHEMA_VERSION } from '../../core/store/migrations.js';

describe('runs import: refusals and read-only sources', function () {
  this.timeout(180_000);
  let current: ImportCase;
  beforeEach(() => (current = importCase()));
  afterEach(() => current.ws.cleanup());
  const { source, target, cli, importInto, approvedRun, dump } = importTools(() => current);

  describe('refusals: each with its code and exit code, and no target left behind', () => {
    const refused = (from: string, exit: number, code: string, ...extra: string[]) => {
      const document = errorDocument(importInto(target(), from, ...extra), exit);
      expect(existsSync(dirname(target())), 'the target folder').to.equal(false);
      return diagnosticWithCode(document, code);
    };

    it('a missing, empty, foreign, corrupt, newer or older source; the --db itself', () => {
      outcome(cli(source(), ['run', current.ws.file('approved.yaml')]), 3);
      refused(current.ws.file('nowhere.db'), 5, 'AGENTCTL_E_DB_OPEN');
      writeFileSync(current.ws.file('empty.db'), '');
      expect(refused(current.ws.file('empty.db'), 5, 'AGENTCTL_E_IMPORT_SOURCE_INVALID').message).to.contain('empty');
      writeFileSync(current.ws.file('text.db'), 'just some text, long enough to be read as a header of a database file.'.repeat(20));
      refused(current.ws.file('text.db'), 5, 'AGENTCTL_E_IMPORT_SOURCE_INVALID');
      const foreign = new Database(current.ws.file('foreign.db'));
      foreign.exec('CREATE TABLE things (id INTEGER PRIMARY KEY)');
      foreign.close();
      expect(refused(current.ws.file('foreign.db'), 5, 'AGENTCTL_E_IMPORT_SOURCE_INVALID').message).to.contain('not an agentctl ledger');
      const at = (name: string, version: number) => {
        const path = current.ws.file(name);
        cpSync(source(), path);
        const db = new Database(path);
        db.pragma('journal_mode = DELETE');
        db.pragma(`user_version = ${version}`);
        db.close();
        return path;
      };
      refused(at('newer.db', SCHEMA_VERSION + 1), 5, 'AGENTCTL_E_DB_SCHEMA_NEWER');
      expect(refused(at('older.db', SCHEMA_VERSION - 1), 5, 'AGENTCTL_E_LEDGER_SCHEMA_MISMATCH').help).to.contain('db migrate');
      const corrupt = at('corrupt.db', SCHEMA_VERSION);
      const bytes = readFileSync(corrupt);
      bytes.fill(0x5a, 100, 4096);
      writeFileSync(corrupt, bytes);
      refused(corrupt, 5, 'AGENTCTL_E_DB_CORRUPT');
      const before = dump(source());
      diagnosticWithCode(errorDocument(importInto(source(), source()), 2), 'AGENTCTL_E_USAGE');
      expect(dump(source())).to.deep.equal(before);
    });

    it('a source blob missing, or holding other bytes', () => {
      approvedRun(source());
      const [blob] = rows(source(), 'SELECT digest FROM artifacts');
      const path = join(dirname(source()), 'artifacts', 'sha256', blob.digest.slice(7, 9), blob.digest.slice(7));
      chmodSync(path, 0o644);
      writeFileSync(path, 'other bytes');
      expect(refused(source(), 5, 'AGENTCTL_E_ARTIFACT_CORRUPT').message).to.contain(blob.digest).and.to.contain('hash to');
      rmSync(path);
      expect(refused(source(), 5, 'AGENTCTL_E_ARTIFACT_CORRUPT').message).to.contain('missing');
    });

    it('a target with a run being driven', async () => {
      const marker = uniqueSleep(30);
      current.ws.write('long.yaml', workflow({ policy: { processAllowlist: ['sleep'], approval: 'never' }, actions: { wait: { kind: 'builtin.shell.exec', command: 'sleep', args: [marker] } }, tasks: [{ id: 'wait', uses: 'action:wait' }] }));
      outcome(cli(source(), ['run', current.ws.file('approved.yaml')]), 3);
      const driver = startCli(['run', current.ws.file('long.yaml'), '--db', target(), '--output', 'json'], { cwd: current.ws.dir });
      try {
        await waitFor('the driven run', () => existsSync(target()) && rows(target(), `SELECT id FROM runs WHERE state = 'running'`).length === 1);
        const driven = rows(target(), 'SELECT id FROM runs');
        const document = errorDocument(importInto(target(), source()), 5);
        expect(diagnosticWithCode(document, 'AGENTCTL_E_RUN_LEASED').message).to.contain('is being driven');
        // The driver goes on writing its own run; nothing of the import is there.
        expect(rows(target(), 'SELECT id FROM runs')).to.deep.equal(driven);
        expect(rows(target(), 'SELECT * FROM run_imports')).to.deep.equal([]);
      } finally {
        // The driver and the one process it started (found by its unique argument), nothing else.
        driver.kill('SIGKILL');
        for (const child of liveProcessesWith(marker)) killProcess(child.pid);
      }
    });
  });

  it('reads a read-only source file, and a source in a read-only folder without creating anything beside it', function () {
    approvedRun(source());
    chmodSync(source(), 0o444);
    expect(outcome(importInto(target(), source()), 0).data.imported).to.equal(1);
    chmodSync(source(), 0o644);
    const probe = spawnSync('unshare', ['--mount', 'sh', '-c', 'mount --bind /tmp /tmp && mount -o remount,ro,bind /tmp && ! touch /tmp/.agentctl-ro-probe'], { encoding: 'utf8' });
    if (probe.status !== 0) this.skip();
    const folder = dirname(source());
    const listing = () => readdirSync(folder).sort();
    const before = listing();
    const script = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"';
    const second = current.ws.file('second/runtime.db');
    const result = spawnSync('unshare', ['--mount', 'sh', '-c', script, 'sh', folder, process.execPath, BIN, 'runs', 'import', source(), '--db', second, '--output', 'json'], { cwd: ROOT, env: baseEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(outcome({ status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr }, 0).data.imported).to.equal(1);
    expect(listing()).to.deep.equal(before);
  });
});
