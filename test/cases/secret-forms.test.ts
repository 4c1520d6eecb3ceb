// {file: ...} and {process: ...} secrets through the real CLI: each refusal with its own code before any run exists,
// a canary that reaches the child or the provider server and no byte of the database, WAL or output.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, ROOT, runCli, runCliAsync, workspace, type CliResult } from '../support/cli.js';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.js';
import { bytesOf, diagnosticWithCode, errorDocument, liveProcessesWith, outcome, runCount, shellWorkflow, uniqueSleep } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;

const POLICY = { processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'], approval: 'never', secretFileRoots: ['secrets'], secretProcessAllowlist: ['get-token'] };
/** The child prints a digest of what it received, so the test sees the value arrived without it being printed. */
const DIGEST_TOKEN = { command: 'sh', args: ['-c', 'printf %s "$TOKEN" | sha256sum'] };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('file and process secrets through the CLI', function () {
  this.timeout(60_000);
  let ws: Workspace;
  let canary: string;
  let held: Database.Database | undefined;
  beforeEach(() => {
    ws = workspace();
    canary = `canary-${randomBytes(16).toString('hex')}`;
    mkdirSync(ws.file('secrets'));
  });
  afterEach(() => {
    held?.close();
    held = undefined;
    ws.cleanup();
  });

  /** Creates the database with an unrelated run and keeps it open, so the WAL file outlives each invocation. */
  function holdDatabase(): void {
    outcome(runCli(['run', join(ROOT, 'examples', 'hello.yaml'), '--db', ws.db, '--output', 'json']), 0);
    held = new Database(ws.db);
    held.prepare('SELECT COUNT(*) FROM runs').get();
  }

  /** The canary is in no stream of the invocations and no byte of any file of the state folder (db, WAL, artifacts). */
  function assertNowhere(...results: CliResult[]): void {
    for (const result of results) expect(result.stdout + result.stderr).to.not.contain(canary);
    for (const entry of readdirSync(ws.file('state'), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) expect(bytesOf(join(entry.parentPath, entry.name)).includes(canary), `the canary is in ${entry.name}`).to.equal(false);
    }
  }

  /** An executable script in the workspace's bin folder. */
  const script = (name: string, body: string) => {
    const path = ws.write(`bin/${name}`, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };

  const run = (action: Record<string, unknown>, policy: Record<string, unknown> = POLICY) =>
    runCli(['run', ws.write('wf.yaml', shellWorkflow(action, policy, {}, { outputs: { printed: '${{ tasks.cmd.output.stdout }}' } })), '--db', ws.db, '--output', 'json'], { env: baseEnv(), timeoutMs: 30_000 });

  it('a {file:} canary reaches the child and no byte of the database, WAL or output', () => {
    holdDatabase();
    ws.write('secrets/token', `${canary}\n`);
    const result = run({ ...DIGEST_TOKEN, env: { TOKEN: { file: 'secrets/token' } } });
    expect(outcome(result, 0).data.output.printed).to.equal(`${sha256(canary)}  -\n`);
    assertNowhere(result);
  });

  it('a {process:} canary reaches the child and no byte of the database, WAL or output', () => {
    holdDatabase();
    const helper = script('get-token', `echo ${canary}`);
    const result = run({ ...DIGEST_TOKEN, env: { TOKEN: { process: { command: helper, args: [] } } } });
    expect(outcome(result, 0).data.output.printed).to.equal(`${sha256(canary)}  -\n`);
    assertNowhere(result);
  });

  describe('refusals, before any run exists', () => {
    const refused = (result: CliResult, code: string, fragment: string) => {
      const found = diagnosticWithCode(errorDocument(result, 2), code);
      expect(found.message).to.contain(fragment);
      expect(runCount(ws.db)).to.equal(0);
      expect(result.stdout + result.stderr).to.not.contain(canary);
    };
    const withFile = (path: string) => run({ ...DIGEST_TOKEN, env: { TOKEN: { file: path } } });
    const withHelper = (process: Record<string, unknown>) => run({ ...DIGEST_TOKEN, env: { TOKEN: { process } } });

    it('{file:} outside the roots', () => {
      ws.write('other/token', `${canary}\n`);
      refused(withFile('other/token'), 'AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS', '"other/token"');
    });

    it('{file:} through a symlink escaping the roots', () => {
      ws.write('other/token', `${canary}\n`);
      symlinkSync(ws.file('other/token'), ws.file('secrets/link'));
      refused(withFile('secrets/link'), 'AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS', '"secrets/link"');
    });

    it('{file:} over 64 KiB', () => {
      ws.write('secrets/big', canary.repeat(Math.ceil(65537 / canary.length)));
      refused(withFile('secrets/big'), 'AGENTCTL_E_SECRET_FILE_TOO_LARGE', '65536 bytes');
    });

    it('{file:} naming a FIFO, without waiting for a writer', () => {
      execFileSync('mkfifo', [ws.file('secrets/fifo')]);
      const started = Date.now();
      refused(withFile('secrets/fifo'), 'AGENTCTL_E_SECRET_FILE_NOT_REGULAR', 'FIFO');
      expect(Date.now() - started).to.be.below(15_000);
    });

    it('{process:} with a helper not allowlisted: it is not run', () => {
      const helper = script('other-helper', `: > ${ws.file('ran')}; echo ${canary}`);
      refused(withHelper({ command: helper }), 'AGENTCTL_E_SECRET_PROCESS_NOT_ALLOWED', 'other-helper');
      expect(readdirSync(ws.dir)).to.not.include('ran');
    });

    it('{process:} with a helper that times out: its whole tree is killed', () => {
      const duration = uniqueSleep(120);
      const helper = script('get-token', `/bin/sleep ${duration} & echo ${canary}; /bin/sleep ${duration}`);
      const started = Date.now();
      refused(withHelper({ command: helper, timeoutSeconds: 1 }), 'AGENTCTL_E_SECRET_PROCESS_TIMEOUT', 'within 1 s');
      expect(Date.now() - started).to.be.below(15_000);
      expect(liveProcessesWith(duration)).to.deep.equal([]);
    });

    it('{process:} with a helper that exits 1: the status only', () => {
      const helper = script('get-token', `echo ${canary}; echo ${canary} >&2; exit 1`);
      refused(withHelper({ command: helper }), 'AGENTCTL_E_SECRET_PROCESS_FAILED', 'exited with status 1');
    });
  });

  describe('provider credentials', () => {
    let server: OpenAiServer;
    beforeEach(async () => {
      server = await startOpenAiServer();
    });
    afterEach(() => server.close());

    const agentWorkflow = (credential: Record<string, unknown>, policy: Record<string, unknown> = {}) =>
      stringify({
        apiVersion: 'agentctl.dev/v1',
        kind: 'Workflow',
        metadata: { name: 'credential' },
        spec: {
          providers: { openai: { kind: 'openai', endpoint: server.url, credential } },
          policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowedSchemes: ['http'], allowPrivate: true }, ...policy },
          agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.' } },
          tasks: [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'hello' } }],
        },
      });
    const runAgent = (document: string) => runCliAsync(['run', ws.write('agent.yaml', document), '--db', ws.db, '--output', 'json'], { env: baseEnv() });

    it('{file: /absolute/path} below secretFileRoots (the container recipe) reaches the server and is never copied into the state folder', async () => {
      const path = ws.write('secrets/openai', `${canary}\n`);
      server.enqueue({ text: 'hi' });
      const result = await runAgent(agentWorkflow({ file: path }, { secretFileRoots: [ws.file('secrets')] }));
      expect(outcome(result, 0).data.state).to.equal('succeeded');
      expect(server.requests.map((request) => request.headers.authorization)).to.deep.equal([`Bearer ${canary}`]);
      assertNowhere(result);
    });

    it("{file: /absolute/path} for the fake provider: its credential check passes with the file's value and refuses another", async () => {
      const path = ws.write('secrets/fake-key', `${canary}\n`);
      const fake = (expected: string) =>
        stringify({
          apiVersion: 'agentctl.dev/v1',
          kind: 'Workflow',
          metadata: { name: 'fake-credential' },
          spec: {
            providers: { scripted: { kind: 'fake', credential: { file: path } } },
            policy: { approval: 'never', secretFileRoots: [ws.file('secrets')] },
            agents: { analyst: { provider: 'scripted', model: 'scripted', instructions: 'Be brief.', providerOptions: { credentialSha256: expected, finalText: 'checked' } } },
            tasks: [{ id: 'ask', uses: 'agent:analyst' }],
          },
        });
      const digest = createHash('sha256').update(canary).digest('hex');
      const passed = await runAgent(fake(digest));
      expect(outcome(passed, 0).data.state).to.equal('succeeded');
      assertNowhere(passed);
      const refused = await runAgent(fake(createHash('sha256').update('another key').digest('hex')));
      expect(diagnosticWithCode(errorDocument(refused, 6), 'AGENTCTL_E_PROVIDER_REJECTED').message).to.contain('401');
      assertNowhere(refused);
    });

    it('{process:} reaches the server and no byte of the state folder', async () => {
      const helper = script('get-token', `echo ${canary}`);
      server.enqueue({ text: 'hi' });
      const result = await runAgent(agentWorkflow({ process: { command: helper } }, { secretProcessAllowlist: ['get-token'] }));
      expect(outcome(result, 0).data.state).to.equal('succeeded');
      expect(server.requests.map((request) => request.headers.authorization)).to.deep.equal([`Bearer ${canary}`]);
      assertNowhere(result);
    });

    it('any refusal of a provider credential exits 6, with the resolver code in the message', async () => {
      ws.write('other/openai', `${canary}\n`);
      const result = await runAgent(agentWorkflow({ file: 'other/openai' }, { secretFileRoots: ['secrets'] }));
      const found = diagnosticWithCode(errorDocument(result, 6), 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING');
      expect(found.path).to.equal('spec.providers.openai.credential');
      expect(found.message).to.match(/^spec\.providers\.openai\.credential: \{file: "other\/openai"\} is not below .* \[AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS\]$/);
      expect(runCount(ws.db)).to.equal(0);
      expect(server.requests).to.have.length(0);
      expect(result.stdout + result.stderr).to.not.contain(canary);
    });

    it('a timed-out helper for a provider credential exits 6 too', async () => {
      const helper = script('get-token', `/bin/sleep ${uniqueSleep(60)}`);
      const result = await runAgent(agentWorkflow({ process: { command: helper, timeoutSeconds: 1 } }, { secretProcessAllowlist: ['get-token'] }));
      expect(diagnosticWithCode(errorDocument(result, 6), 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING').message).to.contain('[AGENTCTL_E_SECRET_PROCESS_TIMEOUT]');
      expect(server.requests).to.have.length(0);
    });
  });

  it('a value read from a file keeps everything but one trailing newline', () => {
    ws.write('secrets/token', `${canary}\n\n`);
    const result = run({ ...DIGEST_TOKEN, env: { TOKEN: { file: 'secrets/token' } } });
    expect(outcome(result, 0).data.output.printed).to.equal(`${sha256(`${canary}\n`)}  -\n`);
    expect(readFileSync(ws.file('secrets/token'), 'utf8')).to.equal(`${canary}\n\n`);
  });
});
