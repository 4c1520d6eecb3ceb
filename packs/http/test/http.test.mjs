// @ts-check
import assert from 'node:assert/strict';
import { ActionKindTester } from '@agentctl/testing';
import { http } from '../index.mjs';
import { LOOPBACK_POLICY, mocha, startServer } from './server.mjs';

const { describe, it, before, after, beforeEach } = mocha;

const tester = new ActionKindTester({ plugins: [http] });
const CANARY = 'canary-9f2c7d1e-token';

// Refused before the run: the action's fields are checked when the workflow compiles.
tester.run('http.request', {
  valid: [],
  invalid: [
    { name: 'a GET has no body', action: { url: 'http://127.0.0.1/', body: { a: 1 } }, error: { code: 'AGENTCTL_E_SCHEMA', message: 'no body' } },
    { name: 'only http and https URLs', action: { url: 'ftp://127.0.0.1/' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'no method beyond the six', action: { method: 'TRACE', url: 'http://127.0.0.1/' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'the client sets Host itself', action: { url: 'http://127.0.0.1/', headers: { Host: 'example.com' } }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a url is needed from the action or the input', policy: LOOPBACK_POLICY, error: { code: 'AGENTCTL_PACK_HTTP_E_NO_URL' } },
    { name: 'a GET gets no body from the input either', action: { url: 'http://127.0.0.1/' }, input: { body: 'x' }, policy: LOOPBACK_POLICY, error: { code: 'AGENTCTL_PACK_HTTP_E_BODY' } },
    { name: 'a secret header that is not set fails before the run', action: { url: 'http://127.0.0.1/', headers: { 'X-Key': { env: 'NOT_SET' } } }, error: { code: 'AGENTCTL_E_SECRET_MISSING' } },
  ],
});

describe('http.request against a loopback server', () => {
  /** @type {Awaited<ReturnType<typeof startServer>>} */
  let server;
  before(async () => {
    server = await startServer({
      '/json': (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'session=secret', etag: '"v1"' });
        response.end('{"ok":true,"items":[1,2]}');
      },
      '/echo': (request, response) => {
        response.writeHead(201, { 'content-type': 'text/plain' });
        response.end(`got ${request.body.length} bytes`);
      },
      '/reset': (_request, response) => response.socket?.destroy(),
      '/big': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('x'.repeat(5000));
      },
    });
  });
  after(() => server.close());
  beforeEach(() => void server.requests.splice(0));

  const effectsOf = (/** @type {import('@agentctl/testing').ActionResult} */ result) => result.inspection?.effects ?? [];

  it('GET: one idempotent network effect, JSON body parsed, safe headers only, secret header values never recorded', async () => {
    const result = await tester.runCase('http.request', {
      action: { url: `${server.url}/json`, query: { page: 2 }, headers: { Authorization: { prefix: 'Bearer ', secret: { env: 'TOKEN' } }, 'X-Key': { env: 'TOKEN' }, Accept: 'application/json' } },
      policy: LOOPBACK_POLICY,
      environment: { TOKEN: CANARY },
    });
    assert.equal(result.state, 'succeeded', JSON.stringify(result.diagnostics));
    assert.deepEqual(result.output, { status: 200, headers: { 'content-type': 'application/json', etag: '"v1"' }, body: { ok: true, items: [1, 2] }, bytes: 25 });
    assert.equal(server.requests.length, 1);
    const [request] = server.requests;
    assert.equal(request?.method, 'GET');
    assert.equal(request?.path, '/json?page=2');
    assert.equal(request?.headers.authorization, `Bearer ${CANARY}`);
    assert.equal(request?.headers['x-key'], CANARY);
    const effects = effectsOf(result);
    assert.equal(effects.length, 1);
    assert.deepEqual(
      effects.map(({ operation, effectClass, idempotency, state, input }) => ({ operation, effectClass, idempotency, state, input })),
      [{ operation: 'http.request', effectClass: 'network', idempotency: 'idempotent', state: 'succeeded', input: { method: 'GET', url: `${server.url}/json?page=2`, headerNames: ['accept', 'authorization', 'x-key'] } }],
    );
    assert.ok(!JSON.stringify(result.inspection).includes(CANARY), 'the token reached the ledger');
  });

  it('POST with a JSON body: content-type set, at_most_once, the input may replace url and body', async () => {
    const result = await tester.runCase('http.request', {
      action: { method: 'POST', url: `${server.url}/nowhere`, body: { from: 'action' } },
      input: { url: `${server.url}/echo`, body: { from: 'input', n: 1 } },
      policy: LOOPBACK_POLICY,
    });
    assert.equal(result.state, 'succeeded', JSON.stringify(result.diagnostics));
    assert.deepEqual(result.output, { status: 201, headers: { 'content-type': 'text/plain' }, body: 'got 22 bytes', bytes: 12 });
    assert.deepEqual(server.requests.map(({ method, path, headers, body }) => ({ method, path, type: headers['content-type'], body })), [
      { method: 'POST', path: '/echo', type: 'application/json', body: '{"from":"input","n":1}' },
    ]);
    const [effect] = effectsOf(result);
    assert.equal(effect?.idempotency, 'at_most_once');
    assert.deepEqual(effect?.input, { method: 'POST', url: `${server.url}/echo`, headerNames: ['content-type'], bodyBytes: 22, bodyPreview: '{"from":"input","n":1}' });
  });

  it('a status that is not 2xx is a definite failure with the pack\'s code, unless acceptStatus lists it', async () => {
    const failed = await tester.runCase('http.request', { action: { url: `${server.url}/missing` }, policy: LOOPBACK_POLICY });
    assert.equal(failed.state, 'failed');
    assert.equal(failed.code, 'AGENTCTL_PACK_HTTP_E_STATUS');
    assert.match(failed.diagnostics[0]?.message ?? '', /^GET http:\/\/127\.0\.0\.1:\d+ answered 404$/);
    assert.deepEqual(effectsOf(failed).map((effect) => effect.state), ['failed']);
    const accepted = await tester.runCase('http.request', { action: { url: `${server.url}/missing`, acceptStatus: [404] }, policy: LOOPBACK_POLICY });
    assert.deepEqual(accepted.output, { status: 404, headers: { 'content-type': 'application/json' }, body: { message: 'Not Found' }, bytes: 23 });
  });

  for (const [name, policy] of /** @type {const} */ ([
    ['a host not in the allowlist', { ...LOOPBACK_POLICY, networkAllowlist: ['api.example.com'] }],
    ['a scheme not allowed', { ...LOOPBACK_POLICY, network: { allowPrivate: true, allowedSchemes: ['https'] } }],
    ['a port not allowed', { ...LOOPBACK_POLICY, network: { allowPrivate: true, allowedSchemes: ['http'], allowedPorts: [443] } }],
    ['a loopback address without allowPrivate', { networkAllowlist: ['127.0.0.1'], network: { allowedSchemes: ['http'] } }],
  ])) {
    it(`${name} is refused by the network policy before anything is recorded or sent`, async () => {
      const result = await tester.runCase('http.request', { action: { method: 'POST', url: `${server.url}/echo`, body: 'hi' }, policy });
      assert.equal(result.state, 'failed');
      assert.equal(result.code, 'AGENTCTL_E_NETWORK_DENIED');
      assert.equal(effectsOf(result).length, 0);
      assert.equal(server.requests.length, 0);
    });
  }

  it('a POST whose connection breaks after sending is uncertain and never retried', async () => {
    const result = await tester.runCase('http.request', { action: { method: 'POST', url: `${server.url}/reset`, body: 'once' }, task: { retry: { maxAttempts: 3, backoffMs: 0 } }, policy: LOOPBACK_POLICY });
    assert.equal(result.code, 'AGENTCTL_PACK_HTTP_E_UNCERTAIN');
    assert.deepEqual(effectsOf(result).map((effect) => effect.state), ['uncertain']);
    assert.equal(server.requests.length, 1);
  });

  it('a GET whose connection breaks after sending is a failure that task.retry repeats', async () => {
    const result = await tester.runCase('http.request', { action: { url: `${server.url}/reset` }, task: { retry: { maxAttempts: 2, backoffMs: 0 } }, policy: LOOPBACK_POLICY });
    assert.equal(result.code, 'AGENTCTL_E_NETWORK_FAILED');
    assert.deepEqual(effectsOf(result).map((effect) => effect.state), ['failed', 'failed']);
    assert.equal(server.requests.length, 2);
  });

  it('a body over maxResponseBytes fails: the client aborts it, so nothing partial is returned', async () => {
    const result = await tester.runCase('http.request', { action: { url: `${server.url}/big`, maxResponseBytes: 1000 }, policy: LOOPBACK_POLICY });
    assert.equal(result.code, 'AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE');
    assert.match(result.diagnostics[0]?.message ?? '', /raise maxResponseBytes/);
  });
});
