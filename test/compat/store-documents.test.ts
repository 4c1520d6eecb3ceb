// The state commands as the reference's scripts drive them: `artifacts list|inspect|verify|export|gc`, `db stats|
// migrate` and `gc`, with the reference's kinds, fields and exit codes (every document is checked against its schema
// by the test harness).
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from '../cases/helpers.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../core/store/migrations.js';

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const DAY_MS = 86_400_000;

/** A workflow of write tasks (task id → [path, content]); `approval` 'always' makes the first one pause the run. */
const writes = (files: Record<string, [string, string]>, approval = 'never') =>
  workflow({
    policy: { approval, writableRoots: ['out'] },
    actions: { write: { kind: 'builtin.write' } },
    tasks: Object.entries(files).map(([id, [path, content]]) => ({ id, uses: 'action:write', with: { path, content } })),
  });

describe('state commands (reference documents)', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const store = () => join(dirname(ws.db), 'artifacts', 'sha256');
  const blobPath = (digest: string) => join(store(), digest.slice(7, 9), digest.slice(7));
  const cli = (...args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir });
  const run = (name: string, files: Record<string, [string, string]>, exit = 0, approval = 'never') => outcome(cli('run', ws.write(name, writes(files, approval))), exit).data.runId as string;
  /** Moves a finished run's end `days` into the past, as if it had ended then. */
  const age = (runId: string, days: number) => {
    const db = new Database(ws.db);
    db.prepare('UPDATE runs SET finished_at = ?, updated_at = ? WHERE id = ?').run(...Array(2).fill(new Date(Date.now() - days * DAY_MS).toISOString()), runId);
    db.close();
  };

  it('artifacts list: references (filtered by --run and --task) and every blob, with the reference field names; --task needs --run', () => {
    const one = run('one.yaml', { a: ['out/a.txt', 'alpha'], b: ['out/data.json', '{"b":1}'] });
    const two = run('two.yaml', { c: ['out/c.bin', 'alpha'] });
    const list = outcome(cli('artifacts', 'list'), 0);
    expect(list.kind).to.equal('ArtifactList');
    const reference = (runId: string, taskId: string, logicalPath: string, logicalName: string, mediaType: string, content: string) => ({ runId, taskId, logicalPath, logicalName, mediaType, digest: digestOf(content), sourceRunId: null, sourceTaskId: null });
    expect(list.data.references.map(({ createdAt, ...rest }: any) => rest)).to.deep.equal([reference(one, 'a', 'out/a.txt', 'a.txt', 'text/plain', 'alpha'), reference(one, 'b', 'out/data.json', 'data.json', 'application/json', '{"b":1}'), reference(two, 'c', 'out/c.bin', 'c.bin', 'application/octet-stream', 'alpha')].sort((x, y) => `${x.runId}${x.taskId}`.localeCompare(`${y.runId}${y.taskId}`)));
    const blob = (content: string, referenceCount: number) => ({ digest: digestOf(content), algorithm: 'sha256', sizeBytes: content.length, relativePath: `sha256/${digestOf(content).slice(7, 9)}/${digestOf(content).slice(7)}`, lastVerifiedAt: null, referenceCount });
    expect(list.data.blobs.map(({ createdAt, ...rest }: any) => rest)).to.have.deep.members([blob('alpha', 2), blob('{"b":1}', 1)]);
    for (const item of [...list.data.references, ...list.data.blobs]) expect(Date.parse(item.createdAt)).to.be.within(Date.now() - 120_000, Date.now());

    const filtered = outcome(cli('artifacts', 'list', '--run', one, '--task', 'b'), 0).data;
    expect(filtered.references.map((item: any) => [item.runId, item.taskId])).to.deep.equal([[one, 'b']]);
    // The reference lists every blob whatever the filter; agentctl's `artifacts` keeps the filtered view.
    expect(filtered.blobs).to.have.length(2);
    expect(filtered.artifacts.map((item: any) => item.digest)).to.deep.equal([digestOf('{"b":1}')]);
    diagnosticWithCode(errorDocument(cli('artifacts', 'list', '--task', 'b'), 2), 'AGENTCTL_E_USAGE');
  });

  it('artifacts inspect DIGEST: the blob and its references; an unknown digest is exit 5, a malformed one exit 2', () => {
    const one = run('one.yaml', { a: ['out/a.txt', 'alpha'] });
    const two = run('two.yaml', { b: ['out/b.txt', 'alpha'] });
    const inspection = outcome(cli('artifacts', 'inspect', digestOf('alpha')), 0);
    expect(inspection.kind).to.equal('ArtifactInspection');
    expect(inspection.data.blob).to.deep.include({ digest: digestOf('alpha'), algorithm: 'sha256', sizeBytes: 5, referenceCount: 2, lastVerifiedAt: null });
    expect(inspection.data.references.map((item: any) => [item.runId, item.taskId, item.logicalPath])).to.have.deep.members([
      [one, 'a', 'out/a.txt'],
      [two, 'b', 'out/b.txt'],
    ]);
    diagnosticWithCode(errorDocument(cli('artifacts', 'inspect', digestOf('never written')), 5), 'AGENTCTL_E_ARTIFACT_NOT_FOUND');
    diagnosticWithCode(errorDocument(cli('artifacts', 'inspect', 'sha256:abc'), 2), 'AGENTCTL_E_USAGE');
  });

  it('artifacts verify: {valid, artifacts: [{digest, sizeBytes, path, valid}]}; a damaged blob is an Error document, exit 5', () => {
    run('one.yaml', { a: ['out/a.txt', 'alpha'] });
    const verified = outcome(cli('artifacts', 'verify', '--all'), 0);
    expect(verified.data).to.deep.equal({ valid: true, artifacts: [{ digest: digestOf('alpha'), sizeBytes: 5, path: blobPath(digestOf('alpha')), valid: true }], checked: 1 });
    chmodSync(blobPath(digestOf('alpha')), 0o644);
    writeFileSync(blobPath(digestOf('alpha')), 'alphA');
    const damaged = errorDocument(cli('artifacts', 'verify', digestOf('alpha')), 5);
    expect(diagnosticWithCode(damaged, 'AGENTCTL_E_ARTIFACT_CORRUPT').message).to.include(digestOf('alphA'));
  });

  it('artifacts export DIGEST DEST [--overwrite]: {digest, destination, overwritten}; an existing target and a damaged blob are exit 5', () => {
    run('one.yaml', { a: ['out/a.txt', 'alpha'] });
    const exported = outcome(cli('artifacts', 'export', digestOf('alpha'), 'copy.txt'), 0);
    expect(exported.data).to.deep.equal({ digest: digestOf('alpha'), destination: 'copy.txt', overwritten: false, size: 5 });
    diagnosticWithCode(errorDocument(cli('artifacts', 'export', digestOf('alpha'), 'copy.txt'), 5), 'AGENTCTL_E_ARTIFACT_DESTINATION_EXISTS');
    writeFileSync(ws.file('copy.txt'), 'mine');
    expect(outcome(cli('artifacts', 'export', digestOf('alpha'), 'copy.txt', '--overwrite'), 0).data.overwritten).to.equal(true);
    expect(readFileSync(ws.file('copy.txt'), 'utf8')).to.equal('alpha');
    chmodSync(blobPath(digestOf('alpha')), 0o644);
    writeFileSync(blobPath(digestOf('alpha')), 'alphA');
    diagnosticWithCode(errorDocument(cli('artifacts', 'export', digestOf('alpha'), 'other.txt', '--overwrite'), 5), 'AGENTCTL_E_ARTIFACT_CORRUPT');
    expect(existsSync(ws.file('other.txt'))).to.equal(false);
  });

  it('artifacts gc: --dry-run counts, then removes only unreferenced blobs and stale temporary files older than the cutoff', () => {
    run('one.yaml', { a: ['out/a.txt', 'kept bytes'] });
    // A blob no task refers to (its run's rows are gone) and a temporary file of an interrupted write, both old.
    const orphan = digestOf('orphan bytes');
    mkdirSync(dirname(blobPath(orphan)), { recursive: true });
    writeFileSync(blobPath(orphan), 'orphan bytes');
    const temporary = join(dirname(blobPath(orphan)), `.${orphan.slice(7)}.0123456789ab.tmp`);
    writeFileSync(temporary, 'half');
    const old = new Date(Date.now() - 40 * DAY_MS);
    for (const path of [blobPath(orphan), temporary]) utimesSync(path, old, old);

    const dry = outcome(cli('artifacts', 'gc', '--dry-run'), 0);
    expect(dry.kind).to.equal('ArtifactGarbageCollection');
    expect(dry.data.dryRun).to.equal(true);
    expect(Date.parse(dry.data.before)).to.be.within(Date.now() - 30 * DAY_MS - 120_000, Date.now() - 30 * DAY_MS);
    expect(dry.data.report).to.deep.equal({ considered: 1, removed: [], reclaimedBytes: 12, temporaryFilesConsidered: 1, temporaryFilesRemoved: 0 });
    expect(existsSync(blobPath(orphan))).to.equal(true);

    const done = outcome(cli('artifacts', 'gc'), 0);
    expect(done.data.report).to.deep.equal({ considered: 1, removed: [orphan], reclaimedBytes: 12, temporaryFilesConsidered: 1, temporaryFilesRemoved: 1 });
    expect(existsSync(dirname(blobPath(orphan)))).to.equal(false);
    expect(readFileSync(blobPath(digestOf('kept bytes')), 'utf8')).to.equal('kept bytes');
    // A referenced blob is never removed, however old; a negative age is a usage error.
    expect(outcome(cli('artifacts', 'gc', '--older-than-days', '0'), 0).data.report.considered).to.equal(0);
    diagnosticWithCode(errorDocument(cli('artifacts', 'gc', '--older-than-days', '-1'), 2), 'AGENTCTL_E_USAGE');
  });

  it('artifacts gc keeps a blob written after a run that is still paused began, and removes it once that run has ended', () => {
    const paused = run('paused.yaml', { first: ['out/p.txt', 'paused'] }, 3, 'always');
    // Bytes a task of the paused run may have stored before its rows are recorded.
    const pending = digestOf('pending bytes');
    mkdirSync(dirname(blobPath(pending)), { recursive: true });
    writeFileSync(blobPath(pending), 'pending bytes');
    expect(outcome(cli('artifacts', 'gc', '--older-than-days', '0'), 0).data.report.considered).to.equal(0);
    expect(existsSync(blobPath(pending))).to.equal(true);
    const [approval] = rows(ws.db, 'SELECT id FROM approvals WHERE run_id = ?', paused);
    outcome(cli('approvals', 'reject', approval.id, '--reason', 'not today'), 0);
    errorDocument(cli('resume', paused), 4);
    expect(outcome(cli('artifacts', 'gc', '--older-than-days', '0'), 0).data.report.removed).to.deep.equal([pending]);
  });

  it('artifacts gc: a store that cannot be read is exit 5 (AGENTCTL_E_ARTIFACT_GC)', () => {
    run('one.yaml', { a: ['out/a.txt', 'alpha'] });
    rmSync(store(), { recursive: true, force: true });
    writeFileSync(store(), 'not a folder');
    diagnosticWithCode(errorDocument(cli('artifacts', 'gc'), 5), 'AGENTCTL_E_ARTIFACT_GC');
  });

  it('db stats: the schema version and the reference counts (0 for what agentctl does not keep), read-only; a missing database is exit 5 and is not created', () => {
    run('one.yaml', { a: ['out/a.txt', 'alpha'], b: ['out/b.txt', 'beta'] });
    const stats = outcome(cli('db', 'stats'), 0);
    expect(stats.kind).to.equal('DatabaseStats');
    expect(stats.data).to.deep.include({
      schemaVersion: SCHEMA_VERSION,
      runs: 1,
      tasks: 2,
      effects: 2,
      approvals: 0,
      checkpoints: 2,
      providerSessions: 0,
      streamEvents: 0,
      longTermMemory: 0,
      artifactBlobs: 2,
      artifactReferences: 2,
      artifactIngests: 0,
      runUpgrades: 0,
      effectReconciliations: 0,
      runBudgets: 0,
      budgetReservations: 0,
      path: ws.db,
    });
    expect(stats.data.auditEvents).to.equal(rows(ws.db, 'SELECT COUNT(*) AS n FROM audit_events')[0].n);
    expect(stats.data.tables).to.deep.include({ runs: 1, tasks: 2, artifacts: 2, task_artifacts: 2 });
    const missing = ws.file('nowhere/runtime.db');
    diagnosticWithCode(errorDocument(runCli(['db', 'stats', '--db', missing, '--output', 'json']), 5), 'AGENTCTL_E_DB_OPEN');
    expect(existsSync(dirname(missing))).to.equal(false);
  });

  it('db migrate: creates or upgrades the schema and says what it applied; a newer schema and a file that is not a database are exit 5, for db encryption too', () => {
    const all = MIGRATIONS.map(({ version, description }) => ({ version, description }));
    const created = outcome(cli('db', 'migrate'), 0);
    expect(created.kind).to.equal('DatabaseMigration');
    expect(created.data).to.deep.equal({ schemaVersion: SCHEMA_VERSION, migrated: true, previousSchemaVersion: 0, migrationsApplied: all });
    expect(outcome(cli('db', 'migrate'), 0).data).to.deep.equal({ schemaVersion: SCHEMA_VERSION, migrated: true, previousSchemaVersion: SCHEMA_VERSION, migrationsApplied: [] });
    // An empty file (a creation cut short by an older agentctl) is schema 0: every migration is applied.
    const empty = ws.write('empty.db', '');
    expect(outcome(runCli(['db', 'migrate', '--db', empty, '--output', 'json']), 0).data.migrationsApplied).to.deep.equal(all);

    const newer = new Database(ws.db);
    newer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    newer.close();
    diagnosticWithCode(errorDocument(cli('db', 'migrate'), 5), 'AGENTCTL_E_DB_SCHEMA_NEWER');
    diagnosticWithCode(errorDocument(cli('db', 'stats'), 5), 'AGENTCTL_E_DB_SCHEMA_NEWER');
    const garbage = ws.write('garbage.db', 'this is not a database, only text that is long enough to have a header page');
    diagnosticWithCode(errorDocument(runCli(['db', 'migrate', '--db', garbage, '--output', 'json']), 5), 'AGENTCTL_E_DB_OPEN');
    // db encryption needs a database of this version: the newer one is refused like any other open.
    diagnosticWithCode(errorDocument(cli('db', 'encryption', 'inventory'), 5), 'AGENTCTL_E_DB_SCHEMA_NEWER');
  });

  it('gc: removes finished runs older than the cutoff with every row they own, then their blobs; keeps recent, paused and still-referenced runs', () => {
    const old = run('old.yaml', { a: ['out/old.txt', 'old bytes'], shared: ['out/shared.txt', 'shared bytes'] });
    const source = run('source.yaml', { s: ['out/s.txt', 'source bytes'] });
    const recent = run('recent.yaml', { r: ['out/r.txt', 'recent bytes'], shared: ['out/shared2.txt', 'shared bytes'] });
    const paused = run('paused.yaml', { p: ['out/p.txt', 'paused bytes'] }, 3, 'always');
    const fork = outcome(cli('fork', source), 0).data.runId as string;
    // The paused run began 40 days ago: older than the cutoff, and still never removed.
    for (const id of [old, source, paused]) age(id, 40);
    const db = new Database(ws.db);
    db.prepare('UPDATE runs SET created_at = ? WHERE id = ?').run(new Date(Date.now() - 40 * DAY_MS).toISOString(), paused);
    db.close();
    // The old run's blob was written before the paused run began (a later one might be the paused run's).
    const oldBlob = blobPath(digestOf('old bytes'));
    utimesSync(oldBlob, new Date(Date.now() - 50 * DAY_MS), new Date(Date.now() - 50 * DAY_MS));

    const collected = outcome(cli('gc'), 0);
    expect(collected.kind).to.equal('GarbageCollection');
    expect(collected.data).to.deep.include({ removed: 1, runsRemoved: [old], memoryRemoved: 0, runsKept: [source], artifactsRemoved: [digestOf('old bytes')], reclaimedBytes: 9 });
    expect(Date.parse(collected.data.before)).to.be.within(Date.now() - 30 * DAY_MS - 120_000, Date.now() - 30 * DAY_MS);
    expect(rows(ws.db, 'SELECT id FROM runs ORDER BY id').map((row) => row.id)).to.have.members([source, recent, paused, fork]);
    for (const table of ['tasks', 'effects', 'audit_events', 'checkpoints', 'task_artifacts']) {
      expect(rows(ws.db, `SELECT COUNT(*) AS n FROM ${table} WHERE run_id = ?`, old)[0].n, table).to.equal(0);
    }
    expect(existsSync(oldBlob)).to.equal(false);
    // A blob the removed run shared with a kept one stays.
    expect(readFileSync(blobPath(digestOf('shared bytes')), 'utf8')).to.equal('shared bytes');
    expect(rows(ws.db, 'SELECT digest FROM artifacts WHERE digest = ?', digestOf('old bytes'))).to.deep.equal([]);
    // Nothing more to do with the default cutoff; a negative one is a usage error.
    expect(outcome(cli('gc'), 0).data).to.deep.include({ removed: 0, runsRemoved: [], runsKept: [source] });
    diagnosticWithCode(errorDocument(cli('gc', '--older-than-days', '-2'), 2), 'AGENTCTL_E_USAGE');
    expect(readdirSync(store()).length).to.be.greaterThan(0);
  });
});
