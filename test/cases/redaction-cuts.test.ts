// Text from outside that agentctl quotes in a message is redacted before it is cut: a secret echoed across the cut
// (an MCP tool's error text and JSON-RPC error at 300 characters, a model's refusal at 200, an extension handshake's
// value at 80) leaves no piece of itself on stdout, stderr or in the database. Each surface is run once with the
// secret 10 characters before its cut; every offset across the cut is swept in test/unit/redactor.test.ts.
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, ROOT, runCli, runCliAsync, workspace } from '../support/cli.js';
import { MCP_VERSION, startMcpServer, type McpTestServer, type Tool } from '../support/mcp-server.js';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.js';
import { assertNoCanary, diagnosticWithCode, errorDocument, fixtureExtension, rows, workflow } from './helpers.js';

/** A secret of letters and digits only, so that no piece of it can be mistaken for padding. */
const secretValue = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;
/** The first characters of the secret, which the old cut-then-redact order left behind (at least 7 of them). */
const piece = (secret: string) => secret.slice(0, 6);

describe('text quoted in a message is redacted before it is cut', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  describe('mcp.call', () => {
    let server: McpTestServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    /** The X-Api-Key header the server got, 290 characters into the text it answers with. */
    const echoed = (request: Parameters<Tool>[1]) => `${'.'.repeat(290)}${String(request.headers['x-api-key'])}${'.'.repeat(100)}`;
    const run = async (tool: string, secret: string) => {
      const document = stringify({
        apiVersion: 'agentctl.dev/v1',
        kind: 'Workflow',
        metadata: { name: 'mcp-cut' },
        spec: {
          policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowPrivate: true } },
          mcpServers: { fixture: { url: server!.url, protocolVersion: MCP_VERSION, timeoutSeconds: 5, headers: { 'X-Api-Key': { env: 'MCP_KEY' } } } },
          actions: { probe: { kind: 'mcp.call', idempotency: 'idempotent' } },
          tasks: [{ id: 'probe', uses: 'action:probe', with: { server: 'fixture', tool, arguments: {} } }],
        },
      });
      return runCliAsync(['run', ws.write('wf.yaml', document), '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ MCP_KEY: secret }) });
    };

    it('a tool error (isError) echoing the header secret at character 290 of 300: AGENTCTL_E_MCP_TOOL_ERROR, no piece of the secret anywhere', async () => {
      const secret = secretValue('Kx');
      server = await startMcpServer({ tools: { leaky: (_args, request) => ({ result: { content: [{ type: 'text', text: echoed(request) }], isError: true } }) } });
      const result = await run('leaky', secret);
      const found = diagnosticWithCode(errorDocument(result, 6), 'AGENTCTL_E_MCP_TOOL_ERROR');
      expect(found.message).to.equal(`MCP server fixture: tool leaky reported an error: ${'.'.repeat(290)}[REDACTED]…`);
      expect(rows(ws.db, 'SELECT state FROM effects').map((row) => row.state)).to.deep.equal(['failed']);
      assertNoCanary(piece(secret), ws.dir, result.stdout, result.stderr);
    });

    it('a JSON-RPC error message echoing the header secret at character 290 of 300: AGENTCTL_E_MCP_RPC_ERROR, no piece of the secret anywhere', async () => {
      const secret = secretValue('Kx');
      server = await startMcpServer({ tools: { leaky: (_args, request) => ({ error: { code: -32000, message: echoed(request) } }) } });
      const result = await run('leaky', secret);
      const found = diagnosticWithCode(errorDocument(result, 6), 'AGENTCTL_E_MCP_RPC_ERROR');
      expect(found.message).to.equal(`MCP server fixture refused tools/call of tool leaky with error -32000: ${'.'.repeat(290)}[REDACTED]…`);
      assertNoCanary(piece(secret), ws.dir, result.stdout, result.stderr);
    });
  });

  describe('an agent', () => {
    let server: OpenAiServer;
    beforeEach(async () => (server = await startOpenAiServer()));
    afterEach(() => server.close());

    it('a refusal echoing the credential at character 190 of 200: AGENTCTL_E_AGENT_OUTPUT_INVALID, no piece of it anywhere', async () => {
      const credential = secretValue('sk');
      server.enqueue({ refusal: `${'.'.repeat(190)}${credential}${'.'.repeat(50)}` });
      const port = Number(new URL(server.url).port);
      const document = workflow({
        providers: { openai: { kind: 'openai', endpoint: server.url } },
        policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowedSchemes: ['http'], allowedPorts: [port], allowPrivate: true } },
        agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.', timeoutSeconds: 10 } },
        tasks: [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'Say no.' } }],
      } as never);
      const result = await runCliAsync(['run', ws.write('wf.yaml', document), '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ OPENAI_API_KEY: credential }) });
      const found = diagnosticWithCode(errorDocument(result, 4), 'AGENTCTL_E_AGENT_OUTPUT_INVALID');
      expect(found.message).to.equal(`agent analyst: the model refused: ${'.'.repeat(190)}[REDACTED]…`);
      assertNoCanary(piece(credential), ws.dir, result.stdout, result.stderr);
    });
  });

  describe('extension.process', () => {
    /** Runs the extension fixture with a behaviour, the secret in its environment as TOKEN. */
    const runFixture = (behaviour: string, secret: string) => {
      const action = fixtureExtension(behaviour, { env: { TOKEN: { env: 'SOURCE' } } });
      const document = workflow({ policy: { processAllowlist: ['node'], approval: 'never', environmentAllowlist: ['TOKEN'] }, actions: { ext: action }, tasks: [{ id: 'ext', uses: 'action:ext', with: { value: 'hi' } }] });
      return runCli(['run', ws.write('wf.yaml', document), '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ SOURCE: secret }) });
    };

    it('a handshake value holding the secret (as \\u escapes) at character 70 of 80: AGENTCTL_E_EXTENSION_HANDSHAKE, no piece of it anywhere', () => {
      const secret = secretValue('Tk');
      const result = runFixture('handshake-echoes-token', secret);
      const found = diagnosticWithCode(errorDocument(result, 4), 'AGENTCTL_E_EXTENSION_HANDSHAKE');
      expect(found.message).to.contain(`outputSchema differs at /properties/value/type: the action declares "string", the extension "${'.'.repeat(69)}[REDACTED]…`);
      assertNoCanary(piece(secret), ws.dir, result.stdout, result.stderr);
    });

    it('a response whose effectId spells the secret (as \\u escapes) in 500 more characters: AGENTCTL_E_EXTENSION_RESPONSE quotes it redacted and cut at 80', () => {
      const secret = secretValue('Tk');
      const result = runFixture('effect-echoes-token', secret);
      const found = diagnosticWithCode(errorDocument(result, 4), 'AGENTCTL_E_EXTENSION_RESPONSE');
      expect(found.message).to.match(/does not answer this effect: it answers effect "eff_\[REDACTED\]\.{65}…, not eff_[0-9a-f]{40}$/);
      assertNoCanary(piece(secret), ws.dir, result.stdout, result.stderr);
    });
  });
});
