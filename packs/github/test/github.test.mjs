// @ts-check
import assert from 'node:assert/strict';
import { ActionKindTester } from '@agentctl/testing';
import { github } from '../index.mjs';
import { LOOPBACK_POLICY, mocha, startGithub } from './github-server.mjs';

const { describe, it, before, after, beforeEach } = mocha;
const tester = new ActionKindTester({ plugins: [github] });
const TOKEN = 'ghp_canary0123456789abcdefCANARY';
const SHA = 'a'.repeat(40);
const environment = { GITHUB_TOKEN: TOKEN };
const comment = { owner: 'acme', repo: 'widgets', number: 7, body: 'Looks good to me.' };

// Refused when the workflow compiles: nothing runs.
tester.run('github.comment', {
  valid: [],
  invalid: [
    { name: 'an owner that would change the path', input: { ...comment, owner: '../admin' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a repository named ..', input: { ...comment, repo: '..' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a pull request number', input: { ...comment, number: 0 }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'the token must be set before the run', action: { apiUrl: 'http://127.0.0.1:1' }, input: comment, error: { code: 'AGENTCTL_E_SECRET_MISSING', message: 'GITHUB_TOKEN' } },
  ],
});
tester.run('github.check-run', {
  valid: [],
  invalid: [
    { name: 'a full commit SHA', input: { owner: 'acme', repo: 'widgets', name: 'lint', head_sha: 'abc123' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a completed run needs a conclusion', input: { owner: 'acme', repo: 'widgets', name: 'lint', head_sha: SHA, status: 'completed' }, error: { code: 'AGENTCTL_E_SCHEMA', message: 'conclusion' } },
  ],
});

describe('github against a local server that speaks the REST API', () => {
  /** @type {Awaited<ReturnType<typeof startGithub>>} */
  let server;
  before(async () => {
    server = await startGithub();
  });
  after(() => server.close());
  beforeEach(() => server.reset());

  /** @param {Record<string, unknown>} [action] */
  const actionFor = (action = {}) => ({ apiUrl: server.url, ...action });
  /**
   * The token may appear in the Authorization header and nowhere else.
   * @param {...unknown} seen
   */
  const assertTokenOnlyInAuthorization = (...seen) => {
    for (const request of server.requests) {
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
      const { authorization: _authorization, ...others } = request.headers;
      assert.ok(!JSON.stringify(others).includes(TOKEN) && !request.text.includes(TOKEN), 'the token left the Authorization header');
    }
    assert.ok(!JSON.stringify(seen).includes(TOKEN), 'the token reached an output, a diagnostic or the ledger');
  };

  it('github.comment posts {body} to the issue comments of the pull request, once, with the API headers', async () => {
    const result = await tester.runCase('github.comment', { action: actionFor(), input: comment, policy: LOOPBACK_POLICY, environment });
    assert.equal(result.state, 'succeeded', JSON.stringify(result.diagnostics));
    assert.deepEqual(result.output, { id: 101, html_url: 'https://github.com/acme/widgets/pull/7#issuecomment-101' });
    assert.equal(server.requests.length, 1);
    const [request] = server.requests;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/repos/acme/widgets/issues/7/comments');
    assert.equal(request?.text, '{"body":"Looks good to me."}');
    assert.deepEqual(
      { authorization: request?.headers.authorization, accept: request?.headers.accept, version: request?.headers['x-github-api-version'], agent: request?.headers['user-agent'], type: request?.headers['content-type'] },
      { authorization: `Bearer ${TOKEN}`, accept: 'application/vnd.github+json', version: '2022-11-28', agent: 'agentctl-pack-github/0.1.0', type: 'application/json' },
    );
    const effects = result.inspection?.effects ?? [];
    assert.deepEqual(
      effects.map(({ operation, effectClass, idempotency, state, input }) => ({ operation, effectClass, idempotency, state, input })),
      [{ operation: 'github.comment', effectClass: 'external_mutate', idempotency: 'at_most_once', state: 'succeeded', input: { method: 'POST', url: `${server.url}/repos/acme/widgets/issues/7/comments`, body: { body: 'Looks good to me.' } } }],
    );
    assertTokenOnlyInAuthorization(result.output, result.inspection, result.diagnostics);
  });

  it('github.check-run posts the check run as GitHub expects it', async () => {
    const input = { owner: 'acme', repo: 'widgets', name: 'agentctl / lint', head_sha: SHA, status: 'completed', conclusion: 'success', output: { title: 'Lint', summary: 'No findings.' } };
    const result = await tester.runCase('github.check-run', { action: actionFor(), input, policy: LOOPBACK_POLICY, environment });
    assert.equal(result.state, 'succeeded', JSON.stringify(result.diagnostics));
    assert.deepEqual(result.output, { id: 101, html_url: 'https://github.com/acme/widgets/runs/101' });
    assert.deepEqual(server.requests.map(({ method, path, body }) => ({ method, path, body })), [
      { method: 'POST', path: '/repos/acme/widgets/check-runs', body: { name: 'agentctl / lint', head_sha: SHA, status: 'completed', conclusion: 'success', output: { title: 'Lint', summary: 'No findings.' } } },
    ]);
    assert.equal(result.inspection?.effects[0]?.idempotency, 'at_most_once');
    assertTokenOnlyInAuthorization(result.output, result.inspection);
  });

  for (const [status, code, message] of /** @type {const} */ ([
    [401, 'AGENTCTL_PACK_GITHUB_E_UNAUTHORIZED', 'Bad credentials'],
    [403, 'AGENTCTL_PACK_GITHUB_E_FORBIDDEN', 'Resource not accessible by integration'],
    [404, 'AGENTCTL_PACK_GITHUB_E_NOT_FOUND', 'Not Found'],
    [500, 'AGENTCTL_PACK_GITHUB_E_STATUS', 'Server Error'],
  ])) {
    it(`a ${status} answer fails the task with ${code} and the API's message, never the token`, async () => {
      server.enqueue({ status, body: { message, documentation_url: 'https://docs.github.com/rest' } });
      const result = await tester.runCase('github.comment', { action: actionFor(), input: comment, policy: LOOPBACK_POLICY, environment });
      assert.equal(result.code, code);
      assert.equal(result.diagnostics[0]?.message, `GitHub answered ${status} to POST /repos/acme/widgets/issues/7/comments: ${message}`);
      assert.deepEqual(result.inspection?.effects.map((effect) => effect.state), ['failed']);
      assertTokenOnlyInAuthorization(result.output, result.inspection, result.diagnostics);
    });
  }

  it('a 422 names the validation errors, and an API message that repeats the token is redacted', async () => {
    server.enqueue({ status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'CheckRun', code: 'invalid', message: `token ${TOKEN} may not create check runs` }] } });
    const input = { owner: 'acme', repo: 'widgets', name: 'lint', head_sha: SHA };
    const result = await tester.runCase('github.check-run', { action: actionFor(), input, policy: LOOPBACK_POLICY, environment });
    assert.equal(result.code, 'AGENTCTL_PACK_GITHUB_E_INVALID');
    assert.equal(result.diagnostics[0]?.message, 'GitHub answered 422 to POST /repos/acme/widgets/check-runs: Validation Failed; token [REDACTED] may not create check runs');
    assertTokenOnlyInAuthorization(result.output, result.inspection, result.diagnostics);
  });

  it('a connection that breaks after the POST was sent leaves the effect uncertain, and it is not sent again', async () => {
    server.enqueue('reset');
    const result = await tester.runCase('github.comment', { action: actionFor(), input: comment, task: { retry: { maxAttempts: 3, backoffMs: 0 } }, policy: LOOPBACK_POLICY, environment });
    assert.equal(result.code, 'AGENTCTL_PACK_GITHUB_E_UNCERTAIN');
    assert.deepEqual(result.inspection?.effects.map((effect) => effect.state), ['uncertain']);
    assert.equal(server.requests.length, 1);
  });

  it('an API host outside the allowlist is refused before anything is recorded or sent', async () => {
    const result = await tester.runCase('github.comment', { action: actionFor(), input: comment, policy: { ...LOOPBACK_POLICY, networkAllowlist: ['api.github.com'] }, environment });
    assert.equal(result.code, 'AGENTCTL_E_NETWORK_DENIED');
    assert.equal(result.inspection?.effects.length, 0);
    assert.equal(server.requests.length, 0);
  });

  it('the token can come from another reference, e.g. another variable', async () => {
    const result = await tester.runCase('github.comment', { action: actionFor({ token: { env: 'BOT_TOKEN' } }), input: comment, policy: LOOPBACK_POLICY, environment: { BOT_TOKEN: TOKEN } });
    assert.equal(result.state, 'succeeded', JSON.stringify(result.diagnostics));
    assertTokenOnlyInAuthorization(result.output, result.inspection);
  });
});
