// `runs import LEDGER --db DB`: runs copied from another ledger of the same family, through the real CLI on real
// ledgers: what the target shows of them afterwards equals what the source shows, a re-import is a no-op, a newer
// copy replaces an older one, and encryption and digest keys travel as a family.
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, startCli } from '../support/cli.js';
import { assertNoCanary, diagnosticWithCode, errorDocument, liveProcessesWith, outcome, rows, waitFor } from './helpers.js';
import { importCase, importTools, killProcess, newKey, SLEEP, type ImportCase } from './ledger-import-support.js';

describe('runs import', function () {
  this.timeout(180_000);
  let current: ImportCase;
  beforeEach(() => (current = importCase()));
  afterEach(() => current.ws.cleanup());
  const { source, target, cli, importInto, approvedRun, retriedRun, views, replayed, dump } = importTools(() => current);

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
    assertNoCanary(current.canary, dirname(target()), JSON.stringify(document));

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
    const both = outcome(importInto(current.ws.file('both/runtime.db'), source(), '--run', retried, '--run', approved), 0).data;
    expect(both.runs.map((run: any) => [run.runId, run.imported])).to.deep.equal([[approved, true], [cancelled, true], [retried, true]]);
    diagnosticWithCode(errorDocument(cli(target(), ['artifacts', 'list', '--run', cancelled, '--run', retried]), 2), 'AGENTCTL_E_USAGE');
  });

  it("a run's recorded stage (runs.stage_json) comes back parsed; a source with a column the target lacks is refused", () => {
    const runId = approvedRun(source());
    outcome(cli(target(), ['db', 'migrate']), 0);
    const addColumn = (db: string) => {
      const handle = new Database(db);
      handle.exec('ALTER TABLE runs ADD COLUMN future_json TEXT');
      handle.close();
    };
    addColumn(source());
    const stage = { stage: 'shard', fanout: 'items', shard: 1, shards: 4 };
    const handle = new Database(source());
    handle.prepare('UPDATE runs SET stage_json = ? WHERE id = ?').run(JSON.stringify(stage), runId);
    handle.close();
    const before = dump(target());
    expect(diagnosticWithCode(errorDocument(importInto(target(), source()), 5), 'AGENTCTL_E_LEDGER_SCHEMA_MISMATCH').message).to.contain('other tables or columns');
    expect(dump(target())).to.deep.equal(before);
    addColumn(target());
    expect(outcome(importInto(target(), source()), 0).data.runs[0]).to.deep.include({ runId, stage, imported: true });
    expect(rows(target(), 'SELECT stage_json FROM runs WHERE id = ?', runId)).to.deep.equal([{ stage_json: JSON.stringify(stage) }]);
  });

  it('a run paused when it was imported is replaced whole once it went on in the source; a run the target drove, or changed, is refused', () => {
    const paused = outcome(cli(source(), ['run', current.ws.file('approved.yaml')]), 3).data.runId as string;
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
    const copied = current.ws.file('copied/runtime.db');
    const second = outcome(cli(source(), ['run', current.ws.file('approved.yaml'), '--input', 'text=second bytes']), 3).data.runId as string;
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
    const driver = startCli(['run', current.ws.file('rich.yaml'), '--db', source(), '--output', 'json'], { cwd: current.ws.dir, env: baseEnv({ CANARY: current.canary }) });
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
    writeFileSync(current.ws.file('go'), '');
    expect(outcome(cli(source(), ['resume', runId]), 0).data.output).to.deep.equal({ note: 'remembered' });
    const replaced = outcome(importInto(target(), source()), 0).data;
    expect(replaced.runs).to.have.length(1);
    expect(replaced.runs[0]).to.deep.include({ runId, state: 'succeeded', imported: true, replaced: true });
    expect(views(target(), runId)).to.deep.equal(views(source(), runId));
    assertNoCanary(current.canary, dirname(target()));
  });

  it('an encrypted source joins a fresh target to its family; a target of another key, or of another digest key, is refused and left as it was', () => {
    const keys = { STATE_KEY_ONE: newKey(), STATE_KEY_TWO: newKey() };
    outcome(cli(source(), ['db', 'encryption', 'enable', '--key-id', 'prod-1', '--key-env', 'STATE_KEY_ONE'], keys), 0);
    const { cancelled, retried } = retriedRun(source(), keys);
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
    assertNoCanary(current.canary, dirname(target()));
    // A new run in the target writes envelopes of the family's key, and the two stay one family.
    outcome(cli(target(), ['run', current.ws.file('approved.yaml')], keys), 3);
    expect(outcome(cli(target(), ['runs', 'import', source()], keys), 0).data).to.deep.include({ imported: 0, unchanged: 2 });

    // Another ledger encrypted under another key id: refused, nothing written.
    const other = current.ws.file('other/runtime.db');
    outcome(cli(other, ['run', current.ws.file('approved.yaml')]), 3);
    outcome(cli(other, ['db', 'encryption', 'enable', '--key-id', 'prod-2', '--key-env', 'STATE_KEY_TWO'], keys), 0);
    const before = dump(other);
    const refused = errorDocument(cli(other, ['runs', 'import', source()], keys), 5);
    expect(diagnosticWithCode(refused, 'AGENTCTL_E_LEDGER_FAMILY').message).to.contain('prod-1').and.to.contain('prod-2');
    expect(dump(other)).to.deep.equal(before);

    // A plain ledger with runs and a secret digest key of its own: another family.
    const plain = current.ws.file('plain/runtime.db');
    const mine = current.ws.file('mine/runtime.db');
    outcome(cli(plain, ['run', current.ws.file('rich.yaml')]), 0);
    writeFileSync(current.ws.file('go'), '');
    outcome(cli(mine, ['run', current.ws.file('rich.yaml')]), 0);
    const mineBefore = dump(mine);
    expect(diagnosticWithCode(errorDocument(importInto(mine, plain), 5), 'AGENTCTL_E_LEDGER_FAMILY').message).to.contain('secret digest keys differ');
    expect(dump(mine)).to.deep.equal(mineBefore);
    // And an encrypted source into a plain ledger that has runs.
    diagnosticWithCode(errorDocument(cli(mine, ['runs', 'import', source()], keys), 5), 'AGENTCTL_E_LEDGER_FAMILY');
  });
});
