// `runs import LEDGER --db DB`: runs copied from another ledger of the same family, through the real CLI on real
// ledgers: what the target shows of them afterwards equals what the source shows, a re-import is a no-op, a newer
// copy replaces an older one, encryption and digest keys travel as a family, and every refusal writes nothing.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { BIN, baseEnv, ROOT, runCli, startCli, workspace, type CliResult } from '../support/cli.js';
import { assertNoCanary, diagnosticWithCode, errorDocument, liveProcessesWith, outcome, rows, unique, uniqueSleep, waitFor, workflow } from './helpers.js';
import { SCHEMA_VERSION } from '../../core/store/migrations.js';

type Workspace = ReturnType<typeof workspace>;

/** The slow step's sleep, found by this argument when a test kills the run that started it. */
const SLEEP = uniqueSleep(30);

/** Remembers a note, writes a report (an artifact), then runs a shell step holding a secret that waits for `go`. */
const RICH = workflow({
  policy: { processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'], writableRoots: ['out'], approval: 'never' },
  actions: {
    remember: { kind: 'builtin.memory.write' },
    write: { kind: 'builtin.write' },
    slow: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'test -f go || sleep "$0"; echo "token=$TOKEN"', SLEEP], env: { TOKEN: { env: 'CANARY' } } },
  },
  tasks: [
    { id: 'remember', uses: 'action:remember', with: { key: 'note', value: 'remembered' } },
    { id: 'report', uses: 'action:write', needs: ['remember'], with: { path: 'out/report.txt', content: 'the report' } },
    { id: 'slow', uses: 'action:slow', needs: ['report'] },
  ],
  outputs: { note: '${{ memory.note }}' },
} as never, 'rich');

/** One write that waits for an approval; its content is the input `text`. */
const APPROVED = workflow({
  inputs: { text: 'approved bytes' },
  policy: { approval: 'always', writableRoots: ['out'] },
  actions: { write: { kind: 'builtin.write' } },
  tasks: [{ id: 'write', uses: 'action:write', with: { path: 'out/approved.txt', content: '${{ inputs.text }}' } }],
} as never, 'approved');

const killProcess = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};

const newKey = () => Buffer.from(unique('k').padEnd(32, 'x').slice(0, 32)).toString('base64');

describe('runs import', function () {
  this.timeout(180_000);
  let ws: Workspace;
  let canary: string;
  beforeEach(() => {
    ws = workspace({ 'rich.yaml': RICH, 'approved.yaml': APPROVED });
    canary = unique('CANARY');
  });
  afterEach(() => ws.cleanup());

  const source = () => ws.file('source/runtime.db');
  const target = () => ws.file('target/runtime.db');
  const cli = (db: string, args: string[], env: Record<string, string> = {}): CliResult => runCli([...args, '--db', db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ CANARY: canary, ...env }) });
  const importInto = (db: string, from: string, ...extra: string[]) => cli(db, ['runs', 'import', from, ...extra]);

  /** A paused run whose approval is decided, then resumed: approvals, an artifact. */
  function approvedRun(db: string): string {
    const runId = outcome(cli(db, ['run', ws.file('approved.yaml')]), 3).data.runId as string;
    const [approval] = rows(db, 'SELECT id FROM approvals WHERE run_id = ?', runId);
    outcome(cli(db, ['approvals', 'approve', approval.id, '--reason', 'looks right']), 0);
    outcome(cli(db, ['resume', runId]), 0);
    return runId;
  }

  /** A run cut off by its timeout (an uncertain effect, reconciled), then its retry: a lineage chain with memory and artifacts. */
  function retriedRun(db: string): { cancelled: string; retried: string } {
    rmSync(ws.file('go'), { force: true });
    const cancelled = outcome(cli(db, ['run', ws.file('rich.yaml'), '--timeout-seconds', '2']), 130).data.runId as string;
    const [uncertain] = rows(db, `SELECT id FROM effects WHERE run_id = ? AND task_id = 'slow' AND state = 'uncertain'`, cancelled);
    outcome(cli(db, ['effects', 'reconcile', uncertain.id, '--status', 'not-applied', '--reason', 'the step was stopped before it did anything']), 0);
    writeFileSync(ws.file('go'), '');
    const retried = outcome(cli(db, ['retry', ws.file('rich.yaml'), cancelled, '--failed']), 0).data.runId as string;
    return { cancelled, retried };
  }

  /** What a read command prints of a run, with what differs between two ledgers by design left out. */
  function views(db: string, runId: string): Record<string, unknown> {
    const inspection = outcome(cli(db, ['inspect', runId]), 0).data;
    delete inspection.importedFrom;
    // Each ledger numbers its own audit events.
    inspection.audit = inspection.audit.map(({ seq: _seq, ...event }: any) => event);
    const report = runCli(['report', runId, '--format', 'markdown', '--db', db], { cwd: ws.dir });
    expect(report.status, report.stderr).to.equal(0);
    return { inspection, effects: outcome(cli(db, ['effects', 'list', runId]), 0).data, report: report.stdout };
  }

  const replayed = (db: string, runId: string) => {
    const data = outcome(cli(db, ['replay', runId]), 0).data;
    return { state: data.state, output: data.output, tasks: data.tasks };
  };

  /** Every row of every table, for "nothing was written". */
  const dump = (db: string) =>
    existsSync(db)
      ? rows(db, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).map(({ name }) => [name, rows(db, `SELECT * FROM "${name}"`)])
      : null;

  it('copies runs with approvals, reconciliations, artifacts, a retry chain and working memory: the target shows them as the source does', () => {
    const approved = approvedRun(source());
    const { cancelled, retried } = retriedRun(source());
    const before = Object.fromEntries([approved, cancelled, retried].map((runId) => [runId, views(source(), runId)]));
    const document = outcome(importInto(target(), source()), 0);
    expect(document.kind).to.equal('RunImport');
    expect(document.data.runs.map((run: any) => [run.runId, run.state, run.imported, run.replaced, run.stage])).to.deep.equal([
      [approved, 'succeeded', true, false, null],
      [cancelled, 'cancelled', true, false, null],
      [retried, 'succeeded', true, false, null],
    ]);
    expect(document.data).to.deep.include({ imported: 3, unchanged: 0, blobsCopied: 2, source: source(), sourceLedgerId: null });
    for (const runId of [approved, cancelled, retried]) {
      expect(views(target(), runId), runId).to.deep.equal(before[runId]);
      const plan = outcome(cli(target(), ['inspect', runId]), 0).data;
      expect(document.data.runs.find((run: any) => run.runId === runId).planDigest).to.equal(plan.run.planDigest);
      expect(plan.importedFrom).to.deep.include({ sourcePath: source(), sourceLedgerId: null, originLedgerId: null });
    }
    // Importing again changes nothing: every run is already there, identical.
    const rowsBefore = dump(target());
    const again = outcome(importInto(target(), source()), 0).data;
    expect(again.runs.map((run: any) => run.imported)).to.deep.equal([false, false, false]);
    expect(again).to.deep.include({ imported: 0, unchanged: 3, blobsCopied: 0 });
    expect(dump(target())).to.deep.equal(rowsBefore);
    expect(outcome(cli(target(), ['inspect', retried]), 0).data.run.workingMemory).to.deep.equal({ note: 'remembered' });
    expect(outcome(cli(target(), ['inspect', cancelled]), 0).data.effectReconciliations).to.have.length(1);
    expect(replayed(target(), retried)).to.deep.equal(replayed(source(), retried));
    const verified = outcome(cli(target(), ['artifacts', 'verify', '--all']), 0).data;
    const blobs = (data: any) => data.artifacts.map(({ digest, sizeBytes, valid }: any) => ({ digest, sizeBytes, valid }));
    expect(verified.checked).to.equal(2);
    expect(blobs(verified)).to.deep.equal(blobs(outcome(cli(source(), ['artifacts', 'verify', '--all']), 0).data));
    // The secret went through a process and its output: no byte of the target's ledger or store holds it.
    assertNoCanary(canary, dirname(target()), JSON.stringify(document));

  });

  it('--run brings the runs it stands on; an unknown --run is exit 2 and writes nothing', () => {
    const approved = approvedRun(source());
    const { cancelled, retried } = retriedRun(source());
    diagnosticWithCode(errorDocument(importInto(target(), source(), '--run', 'run_doesnotexist'), 2), 'AGENTCTL_E_RUN_NOT_FOUND');
    expect(existsSync(dirname(target()))).to.equal(false);
    const document = outcome(importInto(target(), source(), '--run', retried), 0).data;
    expect(document.runs.map((run: any) => run.runId)).to.deep.equal([cancelled, retried]);
    expect(rows(target(), 'SELECT id FROM runs ORDER BY created_at').map((run) => run.id)).to.deep.equal([cancelled, retried]);
    expect(outcome(cli(target(), ['inspect', retried]), 0).data.run.sourceRunId).to.equal(cancelled);
    // --run repeats; elsewhere --run still takes one value.
    const both = outcome(importInto(ws.file('both/runtime.db'), source(), '--run', retried, '--run', approved), 0).data;
    expect(both.runs.map((run: any) => [run.runId, run.imported])).to.deep.equal([[approved, true], [cancelled, true], [retried, true]]);
    diagnosticWithCode(errorDocument(cli(target(), ['artifacts', 'list', '--run', cancelled, '--run', retried]), 2), 'AGENTCTL_E_USAGE');
  });

  it("a run's recorded stage (runs.stage_json) comes back parsed; a source with a column the target lacks is refused", () => {
    const runId = approvedRun(source());
    outcome(cli(target(), ['db', 'migrate']), 0);
    const addStage = (db: string) => {
      const handle = new Database(db);
      handle.exec('ALTER TABLE runs ADD COLUMN stage_json TEXT');
      handle.close();
    };
    addStage(source());
    const stage = { stage: 'shard', fanout: 'items', shard: 1, shards: 4 };
    const handle = new Database(source());
    handle.prepare('UPDATE runs SET stage_json = ? WHERE id = ?').run(JSON.stringify(stage), runId);
    handle.close();
    const before = dump(target());
    expect(diagnosticWithCode(errorDocument(importInto(target(), source()), 5), 'AGENTCTL_E_LEDGER_SCHEMA_MISMATCH').message).to.contain('other tables or columns');
    expect(dump(target())).to.deep.equal(before);
    addStage(target());
    expect(outcome(importInto(target(), source()), 0).data.runs[0]).to.deep.include({ runId, stage, imported: true });
    expect(rows(target(), 'SELECT stage_json FROM runs WHERE id = ?', runId)).to.deep.equal([{ stage_json: JSON.stringify(stage) }]);
  });

  it('a run paused when it was imported is replaced whole once it went on in the source; a run the target drove, or changed, is refused', () => {
    const paused = outcome(cli(source(), ['run', ws.file('approved.yaml')]), 3).data.runId as string;
    expect(outcome(importInto(target(), source()), 0).data.runs[0]).to.deep.include({ runId: paused, state: 'paused', imported: true });
    const [approval] = rows(source(), 'SELECT id FROM approvals WHERE run_id = ?', paused);
    outcome(cli(source(), ['approvals', 'approve', approval.id, '--reason', 'fine']), 0);
    outcome(cli(source(), ['resume', paused]), 0);
    const replaced = outcome(importInto(target(), source()), 0).data;
    expect(replaced.runs[0]).to.deep.include({ runId: paused, state: 'succeeded', imported: true, replaced: true });
    expect(views(target(), paused)).to.deep.equal(views(source(), paused));
    expect(rows(target(), 'SELECT COUNT(*) AS n FROM audit_events WHERE run_id = ?', paused)[0].n).to.equal(rows(source(), 'SELECT COUNT(*) AS n FROM audit_events WHERE run_id = ?', paused)[0].n);
    expect(outcome(importInto(target(), source()), 0).data.runs[0]).to.deep.include({ imported: false, replaced: false });

    // A copy of the ledger made by hand holds the run as its own: the target drove it, so it is never replaced.
    const copied = ws.file('copied/runtime.db');
    const second = outcome(cli(source(), ['run', ws.file('approved.yaml'), '--input', 'text=second bytes']), 3).data.runId as string;
    cpSync(dirname(source()), dirname(copied), { recursive: true });
    const [next] = rows(source(), 'SELECT id FROM approvals WHERE run_id = ?', second);
    outcome(cli(source(), ['approvals', 'reject', next.id, '--reason', 'no']), 0);
    const before = dump(copied);
    const refused = errorDocument(importInto(copied, source(), '--run', second), 5);
    expect(diagnosticWithCode(refused, 'AGENTCTL_E_IMPORT_CONFLICT').message).to.contain(`run ${second}`).and.to.contain('drove it');
    expect(dump(copied)).to.deep.equal(before);

    // An imported run changed in the target afterwards (cancelled there) is the target's own now.
    outcome(importInto(target(), source(), '--run', second), 0);
    outcome(cli(target(), ['cancel', second]), 0);
    const changed = errorDocument(importInto(target(), source(), '--run', second), 5);
    expect(diagnosticWithCode(changed, 'AGENTCTL_E_IMPORT_CONFLICT').message).to.contain('changed there since it was imported');
  });

  it('an interrupted run (its driver killed) is imported as it stands, and replaced once it was reconciled, resumed and finished in the source', async () => {
    const driver = startCli(['run', ws.file('rich.yaml'), '--db', source(), '--output', 'json'], { cwd: ws.dir, env: baseEnv({ CANARY: canary }) });
    const exited = new Promise((done) => driver.once('exit', done));
    try {
      await waitFor('the slow step to start', () => existsSync(source()) && rows(source(), `SELECT id FROM effects WHERE task_id = 'slow' AND state = 'started'`).length === 1);
    } finally {
      driver.kill('SIGKILL');
      await exited;
      for (const child of liveProcessesWith(SLEEP)) killProcess(child.pid);
    }
    const [{ id: runId }] = rows(source(), 'SELECT id FROM runs');
    const first = outcome(importInto(target(), source()), 0).data.runs;
    expect(first.map((run: any) => [run.runId, run.state, run.imported])).to.deep.equal([[runId, 'running', true]]);
    expect(outcome(cli(target(), ['inspect', runId]), 0).data.run.liveness).to.equal('interrupted');
    const [started] = rows(source(), `SELECT id FROM effects WHERE run_id = ? AND task_id = 'slow'`, runId);
    outcome(cli(source(), ['effects', 'reconcile', started.id, '--status', 'not-applied', '--reason', 'the step was killed with its driver']), 0);
    writeFileSync(ws.file('go'), '');
    expect(outcome(cli(source(), ['resume', runId]), 0).data.output).to.deep.equal({ note: 'remembered' });
    const replaced = outcome(importInto(target(), source()), 0).data;
    expect(replaced.runs).to.have.length(1);
    expect(replaced.runs[0]).to.deep.include({ runId, state: 'succeeded', imported: true, replaced: true });
    expect(views(target(), runId)).to.deep.equal(views(source(), runId));
    assertNoCanary(canary, dirname(target()));
  });

  it('an encrypted source joins a fresh target to its family; a target of another key, or of another digest key, is refused and left as it was', () => {
    const keys = { STATE_KEY_ONE: newKey(), STATE_KEY_TWO: newKey() };
    outcome(cli(source(), ['db', 'encryption', 'enable', '--key-id', 'prod-1', '--key-env', 'STATE_KEY_ONE'], keys), 0);
    const { cancelled, retried } = retriedRun2(keys);
    // Without the key, the fresh target cannot be sealed with it: refused, and no target is left behind.
    diagnosticWithCode(errorDocument(importInto(target(), source()), 5), 'AGENTCTL_E_STATE_KEY_MISSING');
    expect(existsSync(dirname(target()))).to.equal(false);
    outcome(cli(target(), ['runs', 'import', source()], keys), 0);
    expect(rows(target(), 'SELECT key_id, key_reference, key_check FROM state_encryption')).to.deep.equal(rows(source(), 'SELECT key_id, key_reference, key_check FROM state_encryption'));
    expect(rows(target(), `SELECT value FROM metadata WHERE key = 'secret_digest_key'`)).to.deep.equal(rows(source(), `SELECT value FROM metadata WHERE key = 'secret_digest_key'`));
    // Sealed columns are copied byte for byte.
    expect(rows(target(), 'SELECT output_json FROM runs WHERE id = ?', retried)).to.deep.equal(rows(source(), 'SELECT output_json FROM runs WHERE id = ?', retried));
    const inspected = outcome(cli(target(), ['inspect', retried], keys), 0).data;
    expect(inspected.run.workingMemory).to.deep.equal({ note: 'remembered' });
    expect(inspected.run.sourceRunId).to.equal(cancelled);
    diagnosticWithCode(errorDocument(cli(target(), ['inspect', retried]), 5), 'AGENTCTL_E_STATE_KEY_MISSING');
    assertNoCanary(canary, dirname(target()));
    // A new run in the target writes envelopes of the family's key, and the two stay one family.
    outcome(cli(target(), ['run', ws.file('approved.yaml')], keys), 3);
    expect(outcome(cli(target(), ['runs', 'import', source()], keys), 0).data).to.deep.include({ imported: 0, unchanged: 2 });

    // Another ledger encrypted under another key id: refused, nothing written.
    const other = ws.file('other/runtime.db');
    outcome(cli(other, ['run', ws.file('approved.yaml')]), 3);
    outcome(cli(other, ['db', 'encryption', 'enable', '--key-id', 'prod-2', '--key-env', 'STATE_KEY_TWO'], keys), 0);
    const before = dump(other);
    const refused = errorDocument(cli(other, ['runs', 'import', source()], keys), 5);
    expect(diagnosticWithCode(refused, 'AGENTCTL_E_LEDGER_FAMILY').message).to.contain('prod-1').and.to.contain('prod-2');
    expect(dump(other)).to.deep.equal(before);

    // A plain ledger with runs and a secret digest key of its own: another family.
    const plain = ws.file('plain/runtime.db');
    const mine = ws.file('mine/runtime.db');
    outcome(cli(plain, ['run', ws.file('rich.yaml')]), 0);
    writeFileSync(ws.file('go'), '');
    outcome(cli(mine, ['run', ws.file('rich.yaml')]), 0);
    const mineBefore = dump(mine);
    expect(diagnosticWithCode(errorDocument(importInto(mine, plain), 5), 'AGENTCTL_E_LEDGER_FAMILY').message).to.contain('secret digest keys differ');
    expect(dump(mine)).to.deep.equal(mineBefore);
    // And an encrypted source into a plain ledger that has runs.
    diagnosticWithCode(errorDocument(cli(mine, ['runs', 'import', source()], keys), 5), 'AGENTCTL_E_LEDGER_FAMILY');
  });

  /** retriedRun on the encrypted source, with its keys. */
  function retriedRun2(keys: Record<string, string>): { cancelled: string; retried: string } {
    rmSync(ws.file('go'), { force: true });
    const cancelled = outcome(cli(source(), ['run', ws.file('rich.yaml'), '--timeout-seconds', '2'], keys), 130).data.runId as string;
    const [uncertain] = rows(source(), `SELECT id FROM effects WHERE run_id = ? AND task_id = 'slow' AND state = 'uncertain'`, cancelled);
    outcome(cli(source(), ['effects', 'reconcile', uncertain.id, '--status', 'not-applied', '--reason', 'stopped'], keys), 0);
    writeFileSync(ws.file('go'), '');
    const retried = outcome(cli(source(), ['retry', ws.file('rich.yaml'), cancelled, '--failed'], keys), 0).data.runId as string;
    return { cancelled, retried };
  }

  describe('refusals: each with its code and exit code, and no target left behind', () => {
    const refused = (from: string, exit: number, code: string, ...extra: string[]) => {
      const document = errorDocument(importInto(target(), from, ...extra), exit);
      expect(existsSync(dirname(target())), 'the target folder').to.equal(false);
      return diagnosticWithCode(document, code);
    };

    it('a missing, empty, foreign, corrupt, newer or older source; the --db itself', () => {
      outcome(cli(source(), ['run', ws.file('approved.yaml')]), 3);
      refused(ws.file('nowhere.db'), 5, 'AGENTCTL_E_DB_OPEN');
      writeFileSync(ws.file('empty.db'), '');
      expect(refused(ws.file('empty.db'), 5, 'AGENTCTL_E_IMPORT_SOURCE_INVALID').message).to.contain('empty');
      writeFileSync(ws.file('text.db'), 'just some text, long enough to be read as a header of a database file.'.repeat(20));
      refused(ws.file('text.db'), 5, 'AGENTCTL_E_IMPORT_SOURCE_INVALID');
      const foreign = new Database(ws.file('foreign.db'));
      foreign.exec('CREATE TABLE things (id INTEGER PRIMARY KEY)');
      foreign.close();
      expect(refused(ws.file('foreign.db'), 5, 'AGENTCTL_E_IMPORT_SOURCE_INVALID').message).to.contain('not an agentctl ledger');
      const at = (name: string, version: number) => {
        const path = ws.file(name);
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
      ws.write('long.yaml', workflow({ policy: { processAllowlist: ['sleep'], approval: 'never' }, actions: { wait: { kind: 'builtin.shell.exec', command: 'sleep', args: [marker] } }, tasks: [{ id: 'wait', uses: 'action:wait' }] }));
      outcome(cli(source(), ['run', ws.file('approved.yaml')]), 3);
      const driver = startCli(['run', ws.file('long.yaml'), '--db', target(), '--output', 'json'], { cwd: ws.dir });
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
    const second = ws.file('second/runtime.db');
    const result = spawnSync('unshare', ['--mount', 'sh', '-c', script, 'sh', folder, process.execPath, BIN, 'runs', 'import', source(), '--db', second, '--output', 'json'], { cwd: ROOT, env: baseEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(outcome({ status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr }, 0).data.imported).to.equal(1);
    expect(listing()).to.deep.equal(before);
  });
});
