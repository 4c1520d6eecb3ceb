// builtin.network against real loopback servers: every refusal is checked to leave the server untouched, and every
// failure to say truthfully whether the request was sent.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { Host } from '../../core/host.js';
import plugin from '../../builtins/network-policy/plugin.js';
import { createNetworkClient } from '../../builtins/network-policy/client.js';
import { acceptUrl, hostMatches } from '../../builtins/network-policy/url-policy.js';
import { nonPublicClass } from '../../builtins/network-policy/address-class.js';
import { isNetworkFailure, type AgentctlError, type HttpRequest, type NetworkClient, type NetworkFailure, type NetworkSettings } from '@agentctl/sdk';
import { ROOT } from '../support/cli.js';
import { closedPort, makeTestPki, startServer, startTlsServer, type RecordingServer, type TestPki } from '../support/network.js';

const POLICY: NetworkSettings = {
  allowlist: [],
  allowedSchemes: ['https'],
  allowedPorts: [443],
  connectTimeoutSeconds: 2,
  maxResponseBytes: 1024 * 1024,
  allowPrivate: false,
  allowProxy: false,
};

/** The client exactly as the host hands it out: through the plugin's registration. */
function clientFor(settings: Partial<NetworkSettings>): NetworkClient {
  const host = new Host();
  host.register(plugin);
  host.ready();
  return host.networkClientFactory()!({ ...POLICY, ...settings });
}

/** Settings that let the client reach `server` on 127.0.0.1 over plain HTTP. */
const local = (server: { port: number }, more: Partial<NetworkSettings> = {}): Partial<NetworkSettings> => ({
  allowlist: ['127.0.0.1'],
  allowedSchemes: ['http'],
  allowedPorts: [server.port],
  allowPrivate: true,
  ...more,
});

const get = (url: string, more: Partial<HttpRequest> = {}): HttpRequest => ({ url, method: 'GET', timeoutMs: 5000, signal: new AbortController().signal, ...more });

async function failureOf(promise: Promise<unknown>): Promise<NetworkFailure> {
  try {
    await promise;
  } catch (error) {
    expect(isNetworkFailure(error), String(error)).to.equal(true);
    return error as NetworkFailure;
  }
  return expect.fail('expected a NetworkFailure');
}

function expectFailure(failure: NetworkFailure, code: string, sent: boolean, exitCode: number): void {
  expect({ code: failure.code, sent: failure.sent, exitCode: failure.exitCode }, failure.message).to.deep.equal({ code, sent, exitCode });
}

describe('builtin.network: the URL policy', () => {
  let server: RecordingServer;
  before(async () => (server = await startServer()));
  after(() => server.close());
  afterEach(() => expect(server.requests).to.deep.equal([]));

  const refused = async (url: string, settings: Partial<NetworkSettings>, pattern: RegExp) => {
    const client = clientFor(settings);
    const checked = await failureOf(client.check(url, new AbortController().signal));
    expectFailure(checked, 'AGENTCTL_E_NETWORK_DENIED', false, 3);
    expect(checked.message).to.match(pattern);
    const requested = await failureOf(client.request(get(url)));
    expectFailure(requested, 'AGENTCTL_E_NETWORK_DENIED', false, 3);
  };

  it('refuses a host that is not allowlisted', async () => {
    await refused(`http://127.0.0.1:${server.port}/`, local(server, { allowlist: ['example.com'] }), /^host 127\.0\.0\.1 is not in networkAllowlist$/);
  });

  it('refuses http when only https is allowed', async () => {
    await refused(`http://127.0.0.1:${server.port}/`, local(server, { allowedSchemes: ['https'] }), /^scheme http is not allowed/);
  });

  it('refuses a port that is not allowed, explicit or the scheme default', async () => {
    await refused(`http://127.0.0.1:${server.port}/`, local(server, { allowedPorts: [443] }), new RegExp(`^port ${server.port} of 127\\.0\\.0\\.1 is not allowed`));
    await refused('http://127.0.0.1/', local(server), /^port 80 of 127\.0\.0\.1 is not allowed/);
  });

  it('an empty allowedPorts allows any port (the default)', async () => {
    const response = await clientFor(local(server, { allowedPorts: [] })).request(get(`http://127.0.0.1:${server.port}/`));
    expect(response.status).to.equal(200);
    expect(server.requests).to.have.length(1);
    server.requests.length = 0;
  });

  it('refuses a URL with userinfo, without repeating it', async () => {
    const url = `http://admin:hunter2-secret@127.0.0.1:${server.port}/`;
    await refused(url, local(server), /carries a user name or password/);
    const failure = await failureOf(clientFor(local(server)).check(url, new AbortController().signal));
    expect(failure.message).not.to.contain('hunter2').and.not.to.contain('admin');
  });

  it('refuses a malformed URL and a scheme other than http or https', async () => {
    await refused('not a url', local(server), /^the URL is malformed$/);
    await refused(`ftp://127.0.0.1:${server.port}/`, local(server, { allowedSchemes: ['http', 'ftp'] }), /^scheme ftp is not allowed/);
  });

  it('refuses localhost, which resolves to 127.0.0.1, without allowPrivate', async () => {
    await refused(`http://localhost:${server.port}/`, local(server, { allowlist: ['localhost'], allowPrivate: false }), /^network address is not authorized: localhost resolves to 127\.0\.0\.1 \(loopback\), refused without allowPrivate$/);
  });

  it('refuses the literal 127.0.0.1 and [::1] without allowPrivate', async () => {
    await refused(`http://127.0.0.1:${server.port}/`, local(server, { allowPrivate: false }), /^network address is not authorized: 127\.0\.0\.1 \(loopback\), refused without allowPrivate$/);
    await refused(`http://[::1]:${server.port}/`, local(server, { allowlist: ['::1'], allowPrivate: false }), /^network address is not authorized: ::1 \(loopback\), refused without allowPrivate$/);
    await refused(`http://[::ffff:127.0.0.1]:${server.port}/`, local(server, { allowlist: ['::ffff:7f00:1'], allowPrivate: false }), /IPv4-mapped loopback/);
  });
});

describe('builtin.network: host matching and address classes', () => {
  it('matches *.example.com against subdomains only, never the apex or a longer suffix', () => {
    expect(hostMatches('a.example.com', '*.example.com')).to.equal(true);
    expect(hostMatches('a.b.example.com', '*.example.com')).to.equal(true);
    expect(hostMatches('example.com', '*.example.com')).to.equal(false);
    expect(hostMatches('a.example.com.evil', '*.example.com')).to.equal(false);
    expect(hostMatches('aexample.com', '*.example.com')).to.equal(false);
    expect(hostMatches('example.com', 'EXAMPLE.com.')).to.equal(true);
  });

  it('compares hosts case-insensitively, ignoring a trailing dot and IPv6 brackets', () => {
    const settings = { ...POLICY, allowlist: ['api.example.com', '*.example.net', '0:0::1'] };
    expect(acceptUrl('https://API.Example.COM./v1', settings).host).to.equal('api.example.com');
    expect(acceptUrl('https://x.y.example.net/', settings).host).to.equal('x.y.example.net');
    expect(acceptUrl('https://[::1]/', settings).host).to.equal('::1');
    const apex = (() => { try { acceptUrl('https://example.net/', settings); } catch (error) { return (error as AgentctlError).code; } return 'accepted'; })();
    expect(apex).to.equal('AGENTCTL_E_NETWORK_DENIED');
  });

  it('names the class of every refused range and passes public addresses', () => {
    const classes = Object.fromEntries(
      ['10.1.2.3', '100.64.0.1', '169.254.169.254', '172.31.0.1', '192.168.1.1', '0.0.0.0', '255.255.255.255', '224.0.0.1', '::', 'fe80::1', 'fd00::1', '2001:db8::1', '64:ff9b::808:808', '::ffff:10.0.0.1', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'].map((address) => [address, nonPublicClass(address) ?? 'public']),
    );
    expect(classes).to.deep.equal({
      '10.1.2.3': 'private',
      '100.64.0.1': 'shared address space',
      '169.254.169.254': 'link-local',
      '172.31.0.1': 'private',
      '192.168.1.1': 'private',
      '0.0.0.0': 'this network',
      '255.255.255.255': 'broadcast',
      '224.0.0.1': 'multicast',
      '::': 'unspecified',
      'fe80::1': 'link-local',
      'fd00::1': 'unique local',
      '2001:db8::1': 'documentation',
      '64:ff9b::808:808': 'NAT64',
      '::ffff:10.0.0.1': 'IPv4-mapped private',
      '8.8.8.8': 'public',
      '2606:4700::1111': 'public',
      '::ffff:8.8.8.8': 'public',
    });
  });
});

describe('builtin.network: DNS is resolved once and pinned', () => {
  let server: RecordingServer;
  before(async () => (server = await startServer((request, response) => response.end(request.headers.host))));
  after(() => server.close());

  const resolverFor = (answers: Record<string, string[]>) => {
    const calls: string[] = [];
    const resolver = async (host: string) => {
      calls.push(host);
      const found = answers[host];
      if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    return { calls, resolver };
  };

  it('connects to the pinned address of a name no real DNS knows, asking the resolver once per request', async () => {
    const { calls, resolver } = resolverFor({ 'pinned.test': ['127.0.0.1'] });
    const client = createNetworkClient({ ...POLICY, ...local(server, { allowlist: ['pinned.test'] }) }, { resolver });
    const first = await client.request(get(`http://pinned.test:${server.port}/one`));
    const second = await client.request(get(`http://pinned.test:${server.port}/two`));
    expect([first.status, first.body.toString(), second.status]).to.deep.equal([200, `pinned.test:${server.port}`, 200]);
    expect(calls).to.deep.equal(['pinned.test', 'pinned.test']);
    // Each connection asked the pins, never DNS, for its addresses.
    expect(client.pins.lookups).to.equal(server.connections()).and.to.be.within(1, 2);
    expect(server.requests.map((request) => request.url)).to.deep.equal(['/one', '/two']);
  });

  it('refuses a name when any of its addresses is not public', async () => {
    const { resolver } = resolverFor({ 'mixed.test': ['93.184.216.34', '10.0.0.5'] });
    const client = createNetworkClient({ ...POLICY, allowlist: ['mixed.test'] }, { resolver });
    const failure = await failureOf(client.check('https://mixed.test/', new AbortController().signal));
    expectFailure(failure, 'AGENTCTL_E_NETWORK_DENIED', false, 3);
    expect(failure.message).to.equal('network address is not authorized: mixed.test resolves to 10.0.0.5 (private), refused without allowPrivate');
  });

  it('reports a name that does not resolve, and one that takes longer than connectTimeoutSeconds, as DNS failures', async () => {
    const missing = createNetworkClient({ ...POLICY, allowlist: ['missing.test'] }, resolverFor({}));
    const notFound = await failureOf(missing.check('https://missing.test/', new AbortController().signal));
    expectFailure(notFound, 'AGENTCTL_E_NETWORK_DNS', false, 6);
    expect(notFound.message).to.equal('missing.test could not be resolved (ENOTFOUND)');

    const hanging = createNetworkClient({ ...POLICY, allowlist: ['slow.test'], connectTimeoutSeconds: 1 }, { resolver: () => new Promise(() => undefined) });
    const started = Date.now();
    const slow = await failureOf(hanging.request(get('https://slow.test/')));
    expectFailure(slow, 'AGENTCTL_E_NETWORK_DNS', false, 6);
    expect(Date.now() - started).to.be.within(900, 2500);
  });

  it('ends a request whose whole time runs out while resolving, with sent false', async () => {
    const hanging = createNetworkClient({ ...POLICY, allowlist: ['slow.test'] }, { resolver: () => new Promise(() => undefined) });
    const failure = await failureOf(hanging.request(get('https://slow.test/', { timeoutMs: 200 })));
    expectFailure(failure, 'AGENTCTL_E_NETWORK_TIMEOUT', false, 6);
  });
});

describe('builtin.network: exchanges', () => {
  const servers: RecordingServer[] = [];
  const start = async (...args: Parameters<typeof startServer>) => {
    const server = await startServer(...args);
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.map((server) => server.close()));
    servers.length = 0;
  });

  it('sends a POST with its headers and body, and returns the status, lower-cased headers and body', async () => {
    const server = await start((_request, response) => {
      response.writeHead(201, { 'X-Reply': 'yes', 'Content-Type': 'application/json' });
      response.end('{"created":true}');
    });
    const response = await clientFor(local(server)).request({
      ...get(`http://127.0.0.1:${server.port}/items?x=1`),
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Token': 'token-value' },
      body: '{"name":"a"}',
    });
    expect({ status: response.status, reply: response.headers['x-reply'], type: response.headers['content-type'], body: response.body.toString() }).to.deep.equal({
      status: 201,
      reply: 'yes',
      type: 'application/json',
      body: '{"created":true}',
    });
    expect(server.requests.map(({ method, url, body, headers }) => ({ method, url, body, token: headers['x-token'] }))).to.deep.equal([
      { method: 'POST', url: '/items?x=1', body: '{"name":"a"}', token: 'token-value' },
    ]);
  });

  it('never follows a redirect: a 302 to an allowed host fails and the target records nothing', async () => {
    const target = await start();
    const origin = await start((_request, response) => {
      response.writeHead(302, { Location: `http://127.0.0.1:${target.port}/next?token=secret-in-location` });
      response.end();
    });
    const client = clientFor(local(origin, { allowedPorts: [origin.port, target.port] }));
    const failure = await failureOf(client.request(get(`http://127.0.0.1:${origin.port}/start`)));
    expectFailure(failure, 'AGENTCTL_E_NETWORK_REDIRECT', true, 6);
    expect(failure.message).to.equal(`http://127.0.0.1:${origin.port} answered 302, a redirect to host 127.0.0.1:${target.port}; redirects are never followed`);
    expect(origin.requests).to.have.length(1);
    expect(target.requests).to.deep.equal([]);
  });

  it('aborts a body over the cap: the caller\'s cap, and the policy\'s when it is lower', async () => {
    // /streamed is sent in chunks without a length; /declared announces its length first.
    const server = await start((request, response) => {
      if (request.url === '/declared') return response.end('x'.repeat(5000));
      response.write('x'.repeat(2500));
      setTimeout(() => response.end('x'.repeat(2500)), 20);
    });
    const client = clientFor(local(server, { maxResponseBytes: 4000 }));
    const streamed = await failureOf(client.request(get(`http://127.0.0.1:${server.port}/streamed`, { maxResponseBytes: 1000 })));
    expectFailure(streamed, 'AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE', true, 6);
    expect(streamed.message).to.equal(`the response of http://127.0.0.1:${server.port} is larger than 1000 bytes`);
    const declared = await failureOf(client.request(get(`http://127.0.0.1:${server.port}/declared`, { maxResponseBytes: 10_000 })));
    expectFailure(declared, 'AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE', true, 6);
    expect(declared.message).to.contain('larger than 4000 bytes');
    const fits = await clientFor(local(server, { maxResponseBytes: 5000 })).request(get(`http://127.0.0.1:${server.port}/streamed`));
    expect(fits.body.length).to.equal(5000);
  });

  it('accepts a HEAD answer whose announced length is over the cap: it carries no body', async () => {
    const server = await start((_request, response) => {
      response.setHeader('Content-Length', '5000');
      response.end();
    });
    const response = await clientFor(local(server, { maxResponseBytes: 100 })).request({ ...get(`http://127.0.0.1:${server.port}/`), method: 'HEAD' });
    expect([response.status, response.headers['content-length'], response.body.length]).to.deep.equal([200, '5000', 0]);
  });

  it('refuses to send a header undici rejects, naming neither the header nor its value', async () => {
    const server = await start();
    const failure = await failureOf(clientFor(local(server)).request(get(`http://127.0.0.1:${server.port}/`, { headers: { authorization: 'Bearer secret-token-value\r\nX-Injected: 1' } })));
    expectFailure(failure, 'AGENTCTL_E_NETWORK_FAILED', false, 6);
    expect(failure.message).to.equal(`the request to http://127.0.0.1:${server.port} is invalid and was not sent (UND_ERR_INVALID_ARG)`);
    expect(server.requests).to.deep.equal([]);
  });

  it('times out on a server that never answers, within the bound, without naming the request headers', async () => {
    const server = await start(() => undefined);
    const started = Date.now();
    const failure = await failureOf(clientFor(local(server)).request(get(`http://127.0.0.1:${server.port}/`, { timeoutMs: 400, headers: { authorization: 'Bearer secret-token-value' } })));
    expectFailure(failure, 'AGENTCTL_E_NETWORK_TIMEOUT', true, 6);
    expect(Date.now() - started).to.be.within(350, 2000);
    expect(failure.message).to.equal('the HTTP request did not complete within 400 ms');
    expect(server.requests).to.have.length(1);
  });

  it('reports a cancelled request as AGENTCTL_E_CANCELLED, sent once the server has it', async () => {
    const server = await start(() => undefined);
    const controller = new AbortController();
    const pending = clientFor(local(server)).request(get(`http://127.0.0.1:${server.port}/`, { signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expectFailure(await failureOf(pending), 'AGENTCTL_E_CANCELLED', true, 130);
    const early = new AbortController();
    early.abort();
    expectFailure(await failureOf(clientFor(local(server)).request(get(`http://127.0.0.1:${server.port}/`, { signal: early.signal }))), 'AGENTCTL_E_CANCELLED', false, 130);
    expect(server.requests).to.have.length(1);
  });

  it('reports a refused connection as CONNECT with sent false', async () => {
    const port = await closedPort();
    const failure = await failureOf(clientFor(local({ port })).request(get(`http://127.0.0.1:${port}/`)));
    expectFailure(failure, 'AGENTCTL_E_NETWORK_CONNECT', false, 6);
    expect(failure.message).to.match(new RegExp(`^could not connect to http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED`));
  });

  it('reports a connection reset after the request was sent as FAILED with sent true', async () => {
    const server = await start((_request, response) => response.socket!.destroy());
    const failure = await failureOf(clientFor(local(server)).request(get(`http://127.0.0.1:${server.port}/`)));
    expectFailure(failure, 'AGENTCTL_E_NETWORK_FAILED', true, 6);
    expect(server.requests).to.have.length(1);
  });
});

describe('builtin.network: proxies', () => {
  const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy, NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy };
  let target: RecordingServer;
  let proxy: RecordingServer;
  beforeEach(async () => {
    target = await startServer();
    proxy = await startServer();
    process.env.HTTP_PROXY = `http://127.0.0.1:${proxy.port}`;
    process.env.http_proxy = `http://127.0.0.1:${proxy.port}`;
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
  });
  afterEach(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await Promise.all([target.close(), proxy.close()]);
  });

  it('ignores HTTP_PROXY unless allowProxy: the request goes direct and the proxy records nothing', async () => {
    const response = await clientFor(local(target)).request(get(`http://127.0.0.1:${target.port}/direct`));
    expect(response.status).to.equal(200);
    expect(target.requests.map((request) => request.url)).to.deep.equal(['/direct']);
    expect([proxy.requests, proxy.tunnels]).to.deep.equal([[], []]);
  });

  it('with allowProxy, goes through HTTP_PROXY (a refused tunnel is CONNECT, sent false) and never direct', async () => {
    const failure = await failureOf(clientFor(local(target, { allowProxy: true })).request(get(`http://127.0.0.1:${target.port}/proxied`)));
    expectFailure(failure, 'AGENTCTL_E_NETWORK_CONNECT', false, 6);
    expect(proxy.tunnels).to.deep.equal([`127.0.0.1:${target.port}`]);
    expect(target.requests).to.deep.equal([]);
  });
});

describe('builtin.network: customCa', () => {
  let pki: TestPki;
  let server: RecordingServer;
  before(async function () {
    this.timeout(60_000);
    pki = makeTestPki();
    server = await startTlsServer(pki.serverKey, pki.serverCertificate);
  });
  after(() => server?.close());

  const tls = (more: Partial<NetworkSettings> = {}): Partial<NetworkSettings> => ({ allowlist: ['localhost'], allowedSchemes: ['https'], allowedPorts: [server.port], allowPrivate: true, ...more });

  it('reaches a server whose certificate the bundle\'s CA signed, verifying the URL\'s host name', async () => {
    const response = await clientFor(tls({ customCa: pki.caCertificate })).request(get(`https://localhost:${server.port}/secure`));
    expect([response.status, response.body.toString()]).to.deep.equal([200, 'ok']);
    expect(server.requests.map((request) => request.url)).to.deep.equal(['/secure']);
  });

  it('refuses the same server without the bundle: CONNECT, a certificate error, nothing sent', async () => {
    const before = server.requests.length;
    const failure = await failureOf(clientFor(tls()).request(get(`https://localhost:${server.port}/secure`)));
    expectFailure(failure, 'AGENTCTL_E_NETWORK_CONNECT', false, 6);
    expect(failure.message).to.match(/certificate/i);
    expect(server.requests.length).to.equal(before);
  });

  it('refuses at construction a bundle with a private key, a CSR, stray text, or nothing, never echoing it', () => {
    const before = server.requests.length;
    const invalid = (customCa: string) => {
      try {
        clientFor(tls({ customCa }));
      } catch (error) {
        const failure = error as AgentctlError;
        for (const line of customCa.split('\n').filter((text) => text.length > 20)) expect(failure.message).not.to.contain(line);
        return { code: failure.code, exitCode: failure.exitCode, message: failure.message };
      }
      return expect.fail('expected AGENTCTL_E_NETWORK_CA_INVALID');
    };
    const lines = pki.caCertificate.trim().split('\n').length;
    expect([
      invalid(`${pki.caCertificate}${pki.caKey}`),
      invalid(`${pki.caCertificate}\n${pki.request}`),
      invalid(`${pki.caCertificate}subject=CN = agentctl test CA\n`),
      invalid(''),
      invalid(' \n\t\n'),
      invalid(pki.caCertificate.replace(/\n([A-Za-z0-9+/]{10})/, '\n!$1')),
    ]).to.deep.equal([
      { code: 'AGENTCTL_E_NETWORK_CA_INVALID', exitCode: 2, message: `customCa holds a PRIVATE KEY block (line ${lines + 1}); only CERTIFICATE blocks are accepted` },
      { code: 'AGENTCTL_E_NETWORK_CA_INVALID', exitCode: 2, message: `customCa holds a CERTIFICATE REQUEST block (line ${lines + 2}); only CERTIFICATE blocks are accepted` },
      { code: 'AGENTCTL_E_NETWORK_CA_INVALID', exitCode: 2, message: `customCa holds text outside PEM blocks (line ${lines + 1})` },
      { code: 'AGENTCTL_E_NETWORK_CA_INVALID', exitCode: 2, message: 'customCa is empty: it holds no CERTIFICATE block' },
      { code: 'AGENTCTL_E_NETWORK_CA_INVALID', exitCode: 2, message: 'customCa is empty: it holds no CERTIFICATE block' },
      { code: 'AGENTCTL_E_NETWORK_CA_INVALID', exitCode: 2, message: 'customCa certificate 1 (line 1) does not parse' },
    ]);
    expect(server.requests.length).to.equal(before);
  });
});

describe('builtin.network: start-up cost', () => {
  it('composing the host loads no HTTP client: undici is loaded by the first request', () => {
    const script = [
      "import { createRequire } from 'node:module';",
      `await import(${JSON.stringify(join(ROOT, 'dist', 'core', 'cli', 'composition.js'))});`,
      'const loaded = Object.keys(createRequire(import.meta.url).cache);',
      "process.stdout.write(JSON.stringify({ modules: loaded.length, undici: loaded.filter((path) => path.includes('undici')).length }));",
    ].join('\n');
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { modules: number; undici: number };
    expect(result.modules).to.be.greaterThan(0);
    expect(result.undici).to.equal(0);
  });
});
