// The artifact store end to end: files tasks write are kept by digest beside the database; list, export, verify.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from './helpers.js';

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** A workflow of write tasks: task id → [path, content]. */
const writes = (files: Record<string, [string, string]>) =>
  workflow({
    policy: { approval: 'never', writableRoots: ['out'] },
    actions: { write: { kind: 'builtin.write' } },
    tasks: Object.entries(files).map(([id, [path, content]]) => ({ id, uses: 'action:write', with: { path, content } })),
  });

describe('artifact store', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const blobPath = (digest: string) => join(dirname(ws.db), 'artifacts', 'sha256', digest.slice(7, 9), digest.slice(7));
  const run = (file = 'wf.yaml') => outcome(runCli(['run', ws.file(file), '--db', ws.db, '--output', 'json']), 0).data.runId as string;
  const cli = (...args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir });

  it('ingests a written file: the blob holds its bytes at sha256/<2>/<64>, with its rows, and inspect shows it', () => {
    const content = 'report line 1\nreport line 2\n';
    ws.write('wf.yaml', writes({ report: ['out/report.txt', content], nested: ['./out/./sub/deep.txt', 'deep'] }));
    const runId = run();
    const digest = digestOf(content);
    expect(readFileSync(blobPath(digest), 'utf8')).to.equal(content);
    // Immutable: written read-only, and no temporary file is left beside it.
    expect(statSync(blobPath(digest)).mode & 0o777).to.equal(0o444);
    expect(readdirSync(dirname(blobPath(digest)))).to.deep.equal([digest.slice(7)]);
    expect(rows(ws.db, 'SELECT digest, size FROM artifacts ORDER BY size')).to.deep.equal([
      { digest: digestOf('deep'), size: 4 },
      { digest, size: content.length },
    ]);
    expect(rows(ws.db, 'SELECT run_id, task_id, path, digest FROM task_artifacts ORDER BY task_id')).to.deep.equal([
      { run_id: runId, task_id: 'nested', path: 'out/sub/deep.txt', digest: digestOf('deep') },
      { run_id: runId, task_id: 'report', path: 'out/report.txt', digest },
    ]);
    const inspection = outcome(cli('inspect', runId), 0).data;
    expect(inspection.tasks.map((task: any) => [task.taskId, task.artifacts])).to.deep.equal([
      ['report', [{ path: 'out/report.txt', digest, size: content.length }]],
      ['nested', [{ path: 'out/sub/deep.txt', digest: digestOf('deep'), size: 4 }]],
    ]);
    expect(inspection.audit.filter((event: any) => event.type === 'artifact.recorded').map((event: any) => event.data.path)).to.deep.equal(['out/report.txt', 'out/sub/deep.txt']);
  });

  it('two runs writing the same bytes share one blob; a file already in place is still recorded', () => {
    ws.write('wf.yaml', writes({ first: ['out/a.txt', 'same bytes'] }));
    ws.write('other.yaml', writes({ second: ['out/b.txt', 'same bytes'] }));
    const one = run();
    const two = run('other.yaml');
    // The first workflow again: out/a.txt already holds the bytes, no effect happens, the task still refers to them.
    const three = run();
    const digest = digestOf('same bytes');
    expect(rows(ws.db, 'SELECT digest, size FROM artifacts')).to.deep.equal([{ digest, size: 10 }]);
    expect(rows(ws.db, 'SELECT run_id, path FROM task_artifacts WHERE digest = ? ORDER BY rowid', digest)).to.deep.equal([
      { run_id: one, path: 'out/a.txt' },
      { run_id: two, path: 'out/b.txt' },
      { run_id: three, path: 'out/a.txt' },
    ]);
    expect(rows(ws.db, "SELECT COUNT(*) AS n FROM effects WHERE run_id = ?", three)).to.deep.equal([{ n: 0 }]);
    expect(readdirSync(join(dirname(ws.db), 'artifacts', 'sha256'))).to.deep.equal([digest.slice(7, 9)]);
    expect(readdirSync(dirname(blobPath(digest)))).to.deep.equal([digest.slice(7)]);
  });

  it('list shows every blob with its references; --run keeps one run; an unknown run is exit 2', () => {
    ws.write('wf.yaml', writes({ a: ['out/a.txt', 'alpha'] }));
    ws.write('other.yaml', writes({ b: ['out/b.txt', 'beta'] }));
    const one = run();
    const two = run('other.yaml');
    const all = outcome(cli('artifacts', 'list'), 0);
    expect(all.kind).to.equal('ArtifactList');
    expect(all.data.artifacts.map((item: any) => [item.digest, item.size, item.references])).to.deep.equal([
      [digestOf('alpha'), 5, [{ runId: one, taskId: 'a', path: 'out/a.txt' }]],
      [digestOf('beta'), 4, [{ runId: two, taskId: 'b', path: 'out/b.txt' }]],
    ]);
    const filtered = outcome(cli('artifacts', 'list', '--run', two), 0);
    expect(filtered.data.artifacts.map((item: any) => item.digest)).to.deep.equal([digestOf('beta')]);
    diagnosticWithCode(errorDocument(cli('artifacts', 'list', '--run', 'run_nope'), 2), 'AGENTCTL_E_RUN_NOT_FOUND');
  });

  it('verify passes a clean store and detects a flipped byte and a deleted blob (exit 5, naming digest and path)', () => {
    ws.write('wf.yaml', writes({ a: ['out/a.txt', 'alpha'], b: ['out/b.txt', 'beta'] }));
    run();
    const clean = outcome(cli('artifacts', 'verify'), 0);
    expect(clean.kind).to.equal('ArtifactVerification');
    expect(clean.data).to.deep.include({ valid: true, checked: 2 });

    const alpha = digestOf('alpha');
    chmodSync(blobPath(alpha), 0o644);
    const bytes = readFileSync(blobPath(alpha));
    bytes[2] = bytes[2]! ^ 0x01;
    writeFileSync(blobPath(alpha), bytes);
    // A damaged store fails the command: the Error document on stderr, one diagnostic per bad blob.
    const tampered = errorDocument(cli('artifacts', 'verify', '--all'), 5);
    expect(tampered.diagnostics.map((item: any) => item.code)).to.deep.equal(['AGENTCTL_E_ARTIFACT_CORRUPT']);
    const problem = diagnosticWithCode(tampered, 'AGENTCTL_E_ARTIFACT_CORRUPT');
    expect(problem.message).to.include(alpha).and.include(blobPath(alpha)).and.include(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    // One digest only: the intact one passes.
    expect(outcome(cli('artifacts', 'verify', digestOf('beta').slice(7)), 0).data.checked).to.equal(1);

    rmSync(blobPath(digestOf('beta')));
    const missing = errorDocument(cli('artifacts', 'verify', digestOf('beta')), 5);
    expect(diagnosticWithCode(missing, 'AGENTCTL_E_ARTIFACT_CORRUPT').message).to.include(blobPath(digestOf('beta'))).and.include('missing');
    // Human mode: the same exit code and a diagnostic on stderr.
    const human = runCli(['artifacts', 'verify', '--db', ws.db]);
    expect(human.status).to.equal(5);
    expect(human.stderr).to.include('AGENTCTL_E_ARTIFACT_CORRUPT').and.include(alpha);

    // A run that writes the same bytes again stores an intact blob in place of the damaged one.
    run();
    expect(outcome(cli('artifacts', 'verify'), 0).data).to.deep.include({ valid: true, checked: 2 });
  });

  it('export writes the bytes, refuses to replace an existing file without --overwrite (alias --force), and never exports a damaged blob', () => {
    ws.write('wf.yaml', writes({ a: ['out/a.txt', 'alpha'] }));
    run();
    const alpha = digestOf('alpha');
    const exported = outcome(cli('artifacts', 'export', alpha, 'copy.txt'), 0);
    expect(exported.kind).to.equal('ArtifactExport');
    expect(exported.data).to.deep.equal({ digest: alpha, destination: 'copy.txt', overwritten: false, size: 5 });
    expect(readFileSync(ws.file('copy.txt'), 'utf8')).to.equal('alpha');

    writeFileSync(ws.file('copy.txt'), 'mine');
    diagnosticWithCode(errorDocument(cli('artifacts', 'export', alpha, 'copy.txt'), 5), 'AGENTCTL_E_ARTIFACT_DESTINATION_EXISTS');
    expect(readFileSync(ws.file('copy.txt'), 'utf8')).to.equal('mine');
    expect(outcome(cli('artifacts', 'export', alpha, 'copy.txt', '--force'), 0).data.overwritten).to.equal(true);
    expect(readFileSync(ws.file('copy.txt'), 'utf8')).to.equal('alpha');
    // No temporary file is left in the destination folder.
    expect(readdirSync(ws.dir).filter((name) => name.endsWith('.tmp'))).to.deep.equal([]);

    diagnosticWithCode(errorDocument(cli('artifacts', 'export', alpha, 'no/such/folder/x'), 5), 'AGENTCTL_E_ARTIFACT_EXPORT');
    diagnosticWithCode(errorDocument(cli('artifacts', 'export', digestOf('never written'), 'y'), 5), 'AGENTCTL_E_ARTIFACT_NOT_FOUND');
    diagnosticWithCode(errorDocument(cli('artifacts', 'export', 'sha256:abc', 'y'), 2), 'AGENTCTL_E_USAGE');

    chmodSync(blobPath(alpha), 0o644);
    writeFileSync(blobPath(alpha), 'alphA');
    const damaged = errorDocument(cli('artifacts', 'export', alpha, 'z.txt'), 5);
    expect(diagnosticWithCode(damaged, 'AGENTCTL_E_ARTIFACT_CORRUPT').message).to.include(blobPath(alpha));
    expect(existsSync(ws.file('z.txt'))).to.equal(false);
  });

  it('a blob that cannot be stored fails the write with nothing changed in the workspace (exit 5, ARTIFACT_WRITE)', () => {
    // A file where the store's folder should be: no blob can be created below it.
    ws.write('state/artifacts', 'not a folder');
    ws.write('wf.yaml', writes({ a: ['out/a.txt', 'alpha'] }));
    // The run fails, and keeps the exit code of a persistence failure: the task itself did nothing wrong.
    const failed = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 5);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_ARTIFACT_WRITE').taskId).to.equal('a');
    expect(existsSync(ws.file('out/a.txt'))).to.equal(false);
    expect(rows(ws.db, 'SELECT state, error_json FROM effects').map((row) => [row.state, JSON.parse(row.error_json).code])).to.deep.equal([['failed', 'AGENTCTL_E_ARTIFACT_WRITE']]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM task_artifacts')).to.deep.equal([{ n: 0 }]);
  });

  it('a task cannot write into the store, even when it lies inside a writable root', () => {
    ws.write('wf.yaml', workflow({ policy: { approval: 'never', writableRoots: ['.'] }, actions: { write: { kind: 'builtin.write' } }, tasks: [{ id: 'a', uses: 'action:write', with: { path: 'state/artifacts/sha256/00/x', content: 'x' } }] }));
    const failed = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_POLICY_STATE_PATH');
    expect(existsSync(join(dirname(ws.db), 'artifacts', 'sha256', '00'))).to.equal(false);
  });

  describe('files a process declares as its output', () => {
    /** A shell action running `sh -c SCRIPT` that declares `artifacts`. */
    const produce = (script: string, artifacts: string[], writableRoots = ['out']) =>
      workflow({
        policy: { approval: 'never', writableRoots, processAllowlist: ['sh'] },
        actions: { make: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', script], artifacts } },
        tasks: [{ id: 'make', uses: 'action:make' }],
        outputs: { files: '${{ tasks.make.output.artifacts }}' },
      });

    it('keeps each declared file by digest, records it against the task and lists it in the task output', () => {
      ws.write('wf.yaml', produce('mkdir -p out/sub && printf report > out/report.txt && printf deep > out/sub/deep.bin', ['out/report.txt', './out/sub/deep.bin']));
      const done = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0).data;
      const expected = [
        { path: 'out/report.txt', digest: digestOf('report'), size: 6 },
        { path: 'out/sub/deep.bin', digest: digestOf('deep'), size: 4 },
      ];
      expect(done.output.files).to.deep.equal(expected);
      expect(readFileSync(blobPath(digestOf('report')), 'utf8')).to.equal('report');
      expect(rows(ws.db, 'SELECT task_id, path, digest FROM task_artifacts ORDER BY path')).to.deep.equal(expected.map(({ path, digest }) => ({ task_id: 'make', path, digest })));
      // The digests are part of the effect's recorded result.
      expect(JSON.parse(rows(ws.db, 'SELECT result_json FROM effects')[0].result_json).artifacts).to.deep.equal(expected);
      expect(outcome(cli('artifacts', 'verify'), 0).data.artifacts).to.have.length(2);
    });

    it('a declared file the command did not write fails the task with ARTIFACT_MISSING (exit 4); a link is never followed', () => {
      ws.write('wf.yaml', produce('mkdir -p out && printf x > out/a.txt', ['out/a.txt', 'out/b.txt']));
      const failed = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 4);
      expect(diagnosticWithCode(failed, 'AGENTCTL_E_ARTIFACT_MISSING').message).to.include('out/b.txt');
      expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'failed' }]);
      // What was collected before the missing one is in the workspace with those bytes: it stays recorded.
      expect(rows(ws.db, 'SELECT path FROM task_artifacts')).to.deep.equal([{ path: 'out/a.txt' }]);

      ws.write('secret.txt', 'outside the writable root');
      ws.write('link.yaml', produce('mkdir -p out && ln -sf ../secret.txt out/link.txt', ['out/link.txt']));
      const linked = errorDocument(runCli(['run', ws.file('link.yaml'), '--db', ws.db, '--output', 'json']), 4);
      expect(diagnosticWithCode(linked, 'AGENTCTL_E_ARTIFACT_MISSING').message).to.include('symbolic link');
      expect(existsSync(blobPath(digestOf('outside the writable root')))).to.equal(false);
    });

    it('a declared path outside the writable roots is a policy denial before the run (check exit 3), or an escape', () => {
      ws.write('wf.yaml', produce('true', ['notes/a.txt']));
      diagnosticWithCode(errorDocument(runCli(['check', ws.file('wf.yaml'), '--output', 'json']), 3), 'AGENTCTL_E_POLICY_NOT_WRITABLE');
      ws.write('escape.yaml', produce('true', ['out/../../x.txt']));
      diagnosticWithCode(errorDocument(runCli(['check', ws.file('escape.yaml'), '--output', 'json']), 3), 'AGENTCTL_E_POLICY_PATH_ESCAPE');
      ws.write('folder.yaml', produce('true', ['out/']));
      diagnosticWithCode(errorDocument(runCli(['check', ws.file('folder.yaml'), '--output', 'json']), 2), 'AGENTCTL_E_SCHEMA');
      expect(existsSync(ws.db)).to.equal(false);
    });
  });
});
