// The http and github packs of this repository, registered the way a project registers a pack today (an entry
// script that calls the CLI's `main` with the pack's default export), run a real workflow through the CLI against
// loopback servers: what reached the servers, the run's output, the ledger rows, and where the token may appear.
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { baseEnv, ROOT, workspace, type CliResult } from '../support/cli.js';
import { installDependencies } from '../support/packs.js';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server.js';
import { errorDocument, finished, outcome, rows, runCount, workflow } from './helpers.js';

const TOKEN = 'ghp_e2eCanary4f1d9b77';
const LOOPBACK = { networkAllowlist: ['127.0.0.1'], network: { allowPrivate: true, allowedSchemes: ['http'] } };

describe('the http and github packs through the CLI', () => {
  let ws: ReturnType<typeof workspace>;
  let entry: string;
  let server: ScriptedServer<never>;

  before(async () => {
    ws = workspace();
    for (const pack of ['http', 'github']) {
      cpSync(join(ROOT, 'packs', pack, 'index.mjs'), ws.file(`packs/${pack}/index.mjs`));
      cpSync(join(ROOT, 'packs', pack, 'package.json'), ws.file(`packs/${pack}/package.json`));
    }
    // What npm gives the project for the packs' peer dependency: they import @agentctl/sdk from it.
    installDependencies(ws.dir, ['@agentctl/sdk']);
    const app = pathToFileURL(join(ROOT, 'dist', 'core', 'cli', 'app.js')).href;
    entry = ws.write(
      'run.mjs',
      `import { main } from '${app}';\nimport http from './packs/http/index.mjs';\nimport github from './packs/github/index.mjs';\nawait main(process.argv.slice(2), { plugins: [http, github] });\n`,
    );
    server = await startScriptedServer<never>('', (_reply, request) => {
      if (request.path === '/status?service=build') return { status: 200, body: JSON.stringify({ state: 'green', summary: 'All 42 checks passed.' }) };
      if (request.path === '/repos/acme/widgets/issues/7/comments') return { status: 201, body: JSON.stringify({ id: 9001, html_url: 'https://github.com/acme/widgets/pull/7#issuecomment-9001' }) };
      return { status: 404, body: '{"message":"Not Found"}' };
    });
  });
  after(async () => {
    await server.close();
    ws.cleanup();
  });
  beforeEach(() => void server.requests.splice(0));

  const cli = (...args: string[]): Promise<CliResult> =>
    finished(spawn(process.execPath, [entry, ...args], { cwd: ws.dir, env: baseEnv({ GITHUB_TOKEN: TOKEN }), stdio: ['ignore', 'pipe', 'pipe'] }));

  const report = (policy: Record<string, unknown>) =>
    workflow(
      {
        inputs: { api: server.url },
        policy: { approval: 'never', ...policy },
        actions: {
          status: { kind: 'http.request', method: 'GET', query: { service: 'build' } },
          comment: { kind: 'github.comment', apiUrl: server.url },
        },
        tasks: [
          { id: 'fetch', uses: 'action:status', with: { url: '${{ inputs.api }}/status' } },
          { id: 'comment', uses: 'action:comment', needs: ['fetch'], with: { owner: 'acme', repo: 'widgets', number: 7, body: 'Build: ${{ tasks.fetch.output.body.summary }}' } },
        ],
        outputs: { state: '${{ tasks.fetch.output.body.state }}', comment: '${{ tasks.comment.output.html_url }}' },
      },
      'report',
    );

  it('fetches a status over http.request and comments on the pull request with github.comment', async () => {
    ws.write('report.yaml', report(LOOPBACK));
    const document = outcome(await cli('run', 'report.yaml', '--db', ws.db, '--output', 'json'), 0);
    expect(document.data.state).to.equal('succeeded');
    expect(document.data.output).to.deep.equal({ state: 'green', comment: 'https://github.com/acme/widgets/pull/7#issuecomment-9001' });
    expect(server.requests.map(({ method, path, body }) => ({ method, path, body }))).to.deep.equal([
      { method: 'GET', path: '/status?service=build', body: '' },
      { method: 'POST', path: '/repos/acme/widgets/issues/7/comments', body: { body: 'Build: All 42 checks passed.' } },
    ]);
    const posted = server.requests[1]!.headers;
    expect([posted.authorization, posted.accept, posted['x-github-api-version']]).to.deep.equal([`Bearer ${TOKEN}`, 'application/vnd.github+json', '2022-11-28']);
    expect(rows(ws.db, 'SELECT task_id, operation, effect_class, idempotency, state FROM effects ORDER BY requested_at, task_id')).to.deep.equal([
      { task_id: 'fetch', operation: 'http.request', effect_class: 'network', idempotency: 'idempotent', state: 'succeeded' },
      { task_id: 'comment', operation: 'github.comment', effect_class: 'external_mutate', idempotency: 'at_most_once', state: 'succeeded' },
    ]);
    // The token went out in one header and is nowhere in agentctl's state.
    for (const file of readdirSync(join(ws.dir, 'state'))) expect(readFileSync(join(ws.dir, 'state', file)).includes(TOKEN), file).to.equal(false);
  });

  it('check and plan judge an http.request task by policy as they judge a builtin (not unknown); a private address is refused with help naming allowPrivate', async () => {
    const single = (policy: Record<string, unknown>) => workflow({ policy, actions: { status: { kind: 'http.request', method: 'POST', url: `${server.url}/status` } }, tasks: [{ id: 'fetch', uses: 'action:status' }] }, 'single');
    ws.write('single.yaml', single({ ...LOOPBACK, approval: 'mutations', nonInteractive: 'pause' }));
    const checked = outcome(await cli('check', 'single.yaml', '--output', 'json'), 0);
    expect(checked.data.policy.map((item: any) => [item.taskId, item.decision, item.operations])).to.deep.equal([['fetch', 'needs_approval', ['http.request']]]);
    const planned = outcome(await cli('plan', 'single.yaml', '--output', 'json'), 0);
    expect(planned.data.tasks[planned.data.order[0]].policy).to.deep.include({ decision: 'needs_approval', message: 'policy.approval is mutations and http.request is network (risk medium)' });

    ws.write('private.yaml', single({ ...LOOPBACK, approval: 'never', network: { allowedSchemes: ['http'] } }));
    const document = errorDocument(await cli('run', 'private.yaml', '--db', ws.db, '--output', 'json'), 4);
    expect(document.diagnostics[0]).to.include({ code: 'AGENTCTL_E_NETWORK_DENIED', message: 'network address is not authorized: 127.0.0.1 (loopback), refused without allowPrivate' });
    expect(document.diagnostics[0].help).to.equal('set spec.policy.network.allowPrivate: true if 127.0.0.1 is an intended loopback peer (a local service, a test server); otherwise use a public address');
    expect(server.requests).to.deep.equal([]);
  });

  it('a host outside the allowlist is refused by the network policy before anything is recorded or sent: the task fails (exit 4)', async () => {
    ws.write('denied.yaml', report({ ...LOOPBACK, networkAllowlist: ['api.example.com'] }));
    const before = runCount(ws.db);
    const document = errorDocument(await cli('run', 'denied.yaml', '--db', ws.db, '--output', 'json'), 4);
    expect(document.diagnostics[0]).to.include({ code: 'AGENTCTL_E_NETWORK_DENIED', taskId: 'fetch', plugin: 'agentctl-pack-http', message: 'host 127.0.0.1 is not in networkAllowlist' });
    expect(runCount(ws.db)).to.equal(before + 1);
    expect(rows(ws.db, 'SELECT count(*) AS n FROM effects WHERE run_id = ?', document.error.runId)).to.deep.equal([{ n: 0 }]);
    expect(server.requests).to.deep.equal([]);
  });
});
