// Secrets: a canary value reaches the child but never stdout, stderr, the database, its WAL or inspect.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, ROOT, runCli, workspace } from '../support/cli.js';
import { bytesOf, diagnosticWithCode, errorDocument, outcome, rows, runCount, shellWorkflow } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;

const POLICY = { processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'], approval: 'never' };
const ECHO_BOTH = (exit: number) => ({ command: 'sh', args: ['-c', `echo $TOKEN; echo $TOKEN >&2; exit ${exit}`], env: { TOKEN: { env: 'CANARY' } } });

describe('secrets', () => {
  let ws: Workspace;
  let canary: string;
  let held: Database.Database | undefined;
  beforeEach(() => {
    ws = workspace();
    canary = randomBytes(16).toString('hex');
  });
  afterEach(() => {
    held?.close();
    held = undefined;
    ws.cleanup();
  });

  /** Creates the database with an unrelated run and keeps a connection open so the WAL file outlives the CLI. */
  function holdDatabase(): void {
    outcome(runCli(['run', join(ROOT, 'examples', 'hello.yaml'), '--db', ws.db, '--output', 'json']), 0);
    held = new Database(ws.db);
    held.prepare('SELECT COUNT(*) FROM runs').get();
  }

  /** The canary must not be in any stored byte: the database, its WAL and shared-memory files. */
  function assertNotStored(): void {
    for (const suffix of ['', '-wal', '-shm', '-journal']) {
      expect(bytesOf(`${ws.db}${suffix}`).includes(canary), `canary in ${ws.db}${suffix}`).to.equal(false);
    }
  }

  for (const variant of [
    { title: 'a task that succeeds', exit: 0, cliExit: 0 },
    { title: 'a task that fails with exit 1 (the error path)', exit: 1, cliExit: 4 },
  ]) {
    it(`${variant.title}: the canary is redacted everywhere`, () => {
      holdDatabase();
      ws.write('wf.yaml', shellWorkflow(ECHO_BOTH(variant.exit), POLICY));
      const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: canary }) });
      expect(result.status, result.stderr).to.equal(variant.cliExit);
      expect(result.stdout.includes(canary), 'canary in stdout').to.equal(false);
      expect(result.stderr.includes(canary), 'canary in stderr').to.equal(false);

      // The WAL still exists (a connection is held) and holds this run's pages: the check is meaningful.
      expect(existsSync(`${ws.db}-wal`)).to.equal(true);
      const runId = variant.exit === 0 ? JSON.parse(result.stdout).data.runId : JSON.parse(result.stderr).error.runId;
      expect(bytesOf(`${ws.db}-wal`).includes(runId), 'run id in the WAL').to.equal(true);
      assertNotStored();

      const inspect = runCli(['inspect', runId, '--db', ws.db, '--output', 'json']);
      expect(inspect.status, inspect.stderr).to.equal(0);
      expect(inspect.stdout.includes(canary), 'canary in inspect').to.equal(false);
      const view = JSON.parse(inspect.stdout).data;
      const [effect] = view.effects;
      expect(effect.result).to.deep.include({ stdout: '[REDACTED]\n', stderr: '[REDACTED]\n' });
      expect(effect.input.env).to.deep.equal({ TOKEN: { secret: { env: 'CANARY' }, digest: `sha256:${createHash('sha256').update(canary).digest('hex')}` } });
      if (variant.exit === 1) {
        expect(effect.state).to.equal('failed');
        const error = JSON.parse(result.stderr);
        expect(diagnosticWithCode(error, 'AGENTCTL_E_PROCESS_EXIT').message).to.contain('[REDACTED]');
      } else {
        expect(effect.state).to.equal('succeeded');
      }
      held!.close();
      held = undefined;
      assertNotStored();
    });
  }

  it('human mode: neither the summary nor the progress lines show the canary', () => {
    ws.write('wf.yaml', shellWorkflow(ECHO_BOTH(1), POLICY));
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db], { env: baseEnv({ CANARY: canary }) });
    expect(result.status).to.equal(4);
    expect(result.stdout.includes(canary)).to.equal(false);
    expect(result.stderr.includes(canary)).to.equal(false);
    expect(result.stderr).to.contain('[REDACTED]');
    const [run] = rows(ws.db, 'SELECT id FROM runs');
    const inspect = runCli(['inspect', run.id, '--db', ws.db]);
    expect(inspect.status).to.equal(0);
    expect(inspect.stdout.includes(canary)).to.equal(false);
    assertNotStored();
  });

  it('output cut by a byte limit in the middle of the secret leaves no prefix of it', () => {
    const action = { command: 'sh', args: ['-c', 'printf "ab%s" "$TOKEN"'], env: { TOKEN: { env: 'CANARY' } }, stdoutLimitBytes: 12 };
    ws.write('wf.yaml', shellWorkflow(action, POLICY));
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: canary }) });
    errorDocument(result, 4);
    const prefix = canary.slice(0, 10);
    expect(result.stderr.includes(prefix)).to.equal(false);
    expect(bytesOf(ws.db).includes(prefix)).to.equal(false);
    const [effect] = rows(ws.db, 'SELECT result_json FROM effects');
    expect(JSON.parse(effect.result_json).stdout).to.equal('ab[REDACTED]');
  });

  it('a secret with quotes, a backslash and a newline is redacted in its raw and JSON-escaped forms', () => {
    const tricky = `q"${randomBytes(6).toString('hex')}\\z\n${randomBytes(6).toString('hex')}`;
    const escaped = JSON.stringify(tricky).slice(1, -1);
    ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', 'printf "%s" "$TOKEN"; printf "%s" "$TOKEN" >&2; exit 1'], env: { TOKEN: { env: 'CANARY' } } }, POLICY));
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ CANARY: tricky }) });
    errorDocument(result, 4);
    for (const form of [tricky, escaped]) {
      expect(result.stdout.includes(form)).to.equal(false);
      expect(result.stderr.includes(form)).to.equal(false);
      expect(bytesOf(ws.db).includes(form)).to.equal(false);
    }
    const [effect] = rows(ws.db, 'SELECT result_json FROM effects');
    expect(JSON.parse(effect.result_json)).to.deep.include({ stdout: '[REDACTED]', stderr: '[REDACTED]' });
  });

  it('a secret that is not set: exit 2, AGENTCTL_E_SECRET_MISSING, no run', () => {
    ws.write('wf.yaml', shellWorkflow(ECHO_BOTH(0), POLICY));
    const document = errorDocument(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 2);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_SECRET_MISSING');
    expect(found.message).to.contain('CANARY');
    expect(document.error.runId).to.equal(null);
    expect(runCount(ws.db)).to.equal(0);
  });
});
