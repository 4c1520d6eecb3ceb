// customCa {file: ...}: a private CA bundle read through the file resolver lets an agent reach an HTTPS provider
// signed by that CA; without it the certificate is refused; a bundle holding a key is refused before any byte is sent.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, runCliAsync, workspace } from '../support/cli.js';
import { makeTestPki, type TestPki } from '../support/network.js';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.js';
import { bytesOf, diagnosticWithCode, errorDocument, outcome, runCount, unique } from './helpers.js';

describe('customCa from a {file:} secret against a local HTTPS provider', function () {
  this.timeout(60_000);
  let pki: TestPki;
  let server: OpenAiServer;
  let ws: ReturnType<typeof workspace>;
  const key = unique('sk-');
  before(() => {
    pki = makeTestPki();
  });
  beforeEach(async () => {
    ws = workspace();
    server = await startOpenAiServer({ key: pki.serverKey, cert: pki.serverCertificate });
  });
  afterEach(async () => {
    await server.close();
    ws.cleanup();
  });

  const run = (customCa?: Record<string, unknown>) =>
    runCliAsync(
      [
        'run',
        ws.write(
          'wf.yaml',
          stringify({
            apiVersion: 'agentctl.dev/v1',
            kind: 'Workflow',
            metadata: { name: 'private-ca' },
            spec: {
              providers: { openai: { kind: 'openai', endpoint: server.url } },
              policy: {
                approval: 'never',
                secretFileRoots: ['secrets'],
                networkAllowlist: ['127.0.0.1'],
                network: { allowedSchemes: ['https'], allowPrivate: true, ...(customCa ? { customCa } : {}) },
              },
              agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.' } },
              tasks: [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'hello' } }],
            },
          }),
        ),
        '--db',
        ws.db,
        '--output',
        'json',
      ],
      { env: baseEnv({ OPENAI_API_KEY: key }) },
    );

  /** Neither the streams nor any file of the state folder hold the bundle, whole or any of its base64 lines. */
  function assertBundleNowhere(bundle: string, output: string): void {
    const needles = [bundle.trim(), ...bundle.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----'))];
    const files = readdirSync(ws.dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.parentPath.startsWith(ws.file('secrets')))
      .map((entry) => join(entry.parentPath, entry.name));
    for (const needle of needles) {
      expect(output.includes(needle), 'the bundle is in the output').to.equal(false);
      for (const file of files) expect(bytesOf(file).includes(needle), `the bundle is in ${file}`).to.equal(false);
    }
  }

  it('with the CA bundle file under secretFileRoots the agent reaches the server', async () => {
    ws.write('secrets/ca.pem', pki.caCertificate);
    server.enqueue({ text: 'hi over TLS' });
    const result = await run({ file: 'secrets/ca.pem' });
    expect(outcome(result, 0).data.state).to.equal('succeeded');
    expect(server.requests.map((request) => request.headers.authorization)).to.deep.equal([`Bearer ${key}`]);
    assertBundleNowhere(pki.caCertificate, result.stdout + result.stderr);
  });

  it('without the bundle the certificate is refused: AGENTCTL_E_NETWORK_CONNECT, nothing received', async () => {
    server.enqueue({ text: 'must not be asked' });
    const result = await run();
    expect(diagnosticWithCode(errorDocument(result, 6), 'AGENTCTL_E_NETWORK_CONNECT').message).to.contain('certificate');
    expect(server.requests).to.have.length(0);
  });

  it('a bundle file holding a private key is refused before any byte is sent, and shows nowhere', async () => {
    const bundle = `${pki.caCertificate}${pki.caKey}`;
    ws.write('secrets/ca.pem', bundle);
    server.enqueue({ text: 'must not be asked' });
    const result = await run({ file: 'secrets/ca.pem' });
    expect(diagnosticWithCode(errorDocument(result, 2), 'AGENTCTL_E_NETWORK_CA_INVALID').message).to.contain('PRIVATE KEY');
    expect(server.requests).to.have.length(0);
    expect(runCount(ws.db)).to.equal(0);
    assertBundleNowhere(bundle, result.stdout + result.stderr);
  });
});
