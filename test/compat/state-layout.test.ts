// The state layout (SPEC §7): the database and the content-addressed store `artifacts/sha256/<2>/<64>` beside it are
// agentctl's own, the rest of `artifacts/` is the workspace's; a run refused before it starts leaves no state behind.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from '../cases/helpers.js';

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('state layout', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('with the default database in the workspace, a task writes .agentctl/artifacts/report.txt; .agentctl/artifacts/sha256/ stays refused and holds each blob at sha256/<2>/<64>', () => {
    ws.write(
      'wf.yaml',
      workflow({
        policy: { approval: 'never', writableRoots: ['.'] },
        actions: { write: { kind: 'builtin.write' } },
        tasks: [
          { id: 'report', uses: 'action:write', with: { path: '.agentctl/artifacts/report.txt', content: 'weekly report\n' } },
          { id: 'nested', uses: 'action:write', with: { path: '.agentctl/artifacts/charts/q4.csv', content: 'q,v\n4,1\n' } },
          { id: 'forge', uses: 'action:write', with: { path: '.agentctl/artifacts/sha256/ab/forged', content: 'x' }, failure: 'continue' },
        ],
      }),
    );
    const done = outcome(runCli(['run', 'wf.yaml', '--output', 'json'], { cwd: ws.dir }), 0);
    expect(done.data.tasks).to.deep.equal({ report: 'succeeded', nested: 'succeeded', forge: 'failed' });
    expect(readFileSync(ws.file('.agentctl/artifacts/report.txt'), 'utf8')).to.equal('weekly report\n');
    expect(readFileSync(ws.file('.agentctl/artifacts/charts/q4.csv'), 'utf8')).to.equal('q,v\n4,1\n');
    const db = ws.file('.agentctl/runtime.db');
    const [forge] = rows(db, `SELECT error_json FROM tasks WHERE task_id = 'forge'`);
    expect(JSON.parse(forge.error_json).code).to.equal('AGENTCTL_E_POLICY_STATE_PATH');
    expect(existsSync(ws.file('.agentctl/artifacts/sha256/ab'))).to.equal(false);
    // The store holds exactly the two blobs, each under the first two hex digits of its digest.
    const store = ws.file('.agentctl/artifacts/sha256');
    const blobs = readdirSync(store).flatMap((prefix) => readdirSync(join(store, prefix)).map((name) => `${prefix}/${name}`)).sort();
    const expected = [digestOf('weekly report\n'), digestOf('q,v\n4,1\n')].map((digest) => `${digest.slice(7, 9)}/${digest.slice(7)}`).sort();
    expect(blobs).to.deep.equal(expected);
    expect(readdirSync(ws.file('.agentctl/artifacts')).sort()).to.deep.equal(['charts', 'report.txt', 'sha256']);
  });

  describe('a run refused before it starts creates no database file and no state folder', () => {
    const POLICY = { approval: 'never', processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'] };
    const shell = (fields: Record<string, unknown>, policy: Record<string, unknown> = POLICY) =>
      workflow({ policy, actions: { cmd: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'true'], ...fields } }, tasks: [{ id: 'cmd', uses: 'action:cmd' }] });
    const cases = [
      { name: 'a missing secret', exit: 2, code: 'AGENTCTL_E_SECRET_MISSING', env: {}, yaml: () => shell({ env: { TOKEN: { env: 'AGENTCTL_TEST_UNSET_SECRET' } } }) },
      {
        name: 'an engine that is not there',
        exit: 6,
        code: 'AGENTCTL_E_CONTAINER_ENGINE_MISSING',
        env: { DOCKER_HOST: 'unix:///nonexistent/agentctl-test/docker.sock' },
        yaml: () => shell({ isolation: 'container', container: { image: `busybox@sha256:${'0'.repeat(64)}`, runtime: 'docker' } }),
      },
      { name: 'an invalid workflow', exit: 2, code: 'AGENTCTL_E_UNKNOWN_FIELD', env: {}, yaml: () => shell({ notAField: true }) },
      {
        // The provider's address is outside the network allowlist: refused before any request, and before any run.
        name: 'a refused policy',
        exit: 3,
        code: 'AGENTCTL_E_NETWORK_DENIED',
        env: { OPENAI_API_KEY: 'sk-test-not-used' },
        yaml: () =>
          workflow({
            providers: { openai: { kind: 'openai', endpoint: 'http://127.0.0.1:9/v1' } },
            policy: { approval: 'never', networkAllowlist: ['api.example.com'] },
            agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.', tools: [] } },
            tasks: [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'hello' } }],
          }),
      },
    ];

    it('a missing secret, an engine that is not there, an invalid workflow and a refused policy: the error, and neither .agentctl/ nor --db nor its folder exists; with the secret set the run creates it', () => {
      for (const item of cases) {
        ws.write('wf.yaml', item.yaml());
        // The default database (.agentctl/runtime.db below the current folder), then a --db in a folder of its own.
        const failed = errorDocument(runCli(['run', 'wf.yaml', '--output', 'json'], { cwd: ws.dir, env: baseEnv(item.env) }), item.exit);
        diagnosticWithCode(failed, item.code);
        expect(failed.error.runId, item.name).to.equal(null);
        expect(existsSync(ws.file('.agentctl')), `${item.name}: .agentctl/`).to.equal(false);
        diagnosticWithCode(errorDocument(runCli(['run', 'wf.yaml', '--db', ws.file('state/runs.db'), '--output', 'json'], { cwd: ws.dir, env: baseEnv(item.env) }), item.exit), item.code);
        expect(existsSync(ws.file('state')), `${item.name}: --db folder`).to.equal(false);
      }
      expect(readdirSync(ws.dir)).to.deep.equal(['wf.yaml']);
      // The first workflow with its secret set: it runs, and only then is the database created.
      ws.write('wf.yaml', cases[0]!.yaml());
      const done = outcome(runCli(['run', 'wf.yaml', '--output', 'json'], { cwd: ws.dir, env: baseEnv({ AGENTCTL_TEST_UNSET_SECRET: 'set now' }) }), 0);
      expect(rows(ws.file('.agentctl/runtime.db'), 'SELECT id, state FROM runs')).to.deep.equal([{ id: done.data.runId, state: 'succeeded' }]);
    });
  });
});
