// A JSON answer from outside nested 5,000 levels deep (about 10 KB) is refused where it is parsed, at 64 levels as a
// workflow document: from an extension, an MCP tool and a model (tool arguments, a whole answer, structured output).
// Each ends the run failed with the kind's response-invalid code and the effect's outcome recorded; recording it
// once overflowed the stack (exit 5, the run left running).
import { join } from 'node:path';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, ROOT, runCli, runCliAsync, workspace } from '../support/cli.js';
import { MCP_VERSION, startMcpServer, type McpTestServer } from '../support/mcp-server.js';
import { startOpenAiServer, type OpenAiServer, type Reply } from '../support/openai-server.js';
import { READ_TOOL } from '../support/agents.js';
import { diagnosticWithCode, errorDocument, fixtureExtension, rows, workflow } from './helpers.js';

const DEEP = `${'['.repeat(5000)}${']'.repeat(5000)}`;

describe('a JSON answer nested 5,000 levels deep', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());
  const states = () => ({
    runs: rows(ws.db, 'SELECT state FROM runs').map((row) => row.state),
    tasks: rows(ws.db, 'SELECT state FROM tasks').map((row) => row.state),
    effects: rows(ws.db, 'SELECT operation, state, error_json FROM effects ORDER BY rowid').map((row) => [row.operation, row.state, JSON.parse(row.error_json ?? 'null')?.code ?? null]),
  });

  it('from an extension: AGENTCTL_E_EXTENSION_RESPONSE, exit 4, the run failed, the effect recorded uncertain', () => {
    const action = fixtureExtension('deep-output', { outputSchema: { type: 'object' } });
    const document = workflow({ policy: { processAllowlist: ['node'], approval: 'never' }, actions: { ext: action }, tasks: [{ id: 'ext', uses: 'action:ext', with: { value: 'hi' } }] });
    const failed = errorDocument(runCli(['run', ws.write('wf.yaml', document), '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv() }), 4);
    const found = diagnosticWithCode(failed, 'AGENTCTL_E_EXTENSION_RESPONSE');
    expect(found.message).to.equal('the invocation of extension ext (node) printed JSON nested more than 64 levels deep on stdout');
    expect(states()).to.deep.equal({ runs: ['failed'], tasks: ['failed'], effects: [['extension.invoke', 'uncertain', 'AGENTCTL_E_EXTENSION_RESPONSE']] });
  });

  describe('from an MCP tool', () => {
    let server: McpTestServer;
    afterEach(() => server.close());

    it('AGENTCTL_E_MCP_RESPONSE_INVALID, exit 6, the run failed, the call recorded uncertain (the tool may have run)', async () => {
      server = await startMcpServer({ tools: { deep: () => ({ raw: `{"content":[],"structuredContent":{"value":${DEEP}}}` }) } });
      const document = stringify({
        apiVersion: 'agentctl.dev/v1',
        kind: 'Workflow',
        metadata: { name: 'mcp-deep' },
        spec: {
          policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowPrivate: true } },
          mcpServers: { fixture: { url: server.url, protocolVersion: MCP_VERSION, timeoutSeconds: 5 } },
          actions: { probe: { kind: 'mcp.call', idempotency: 'idempotent' } },
          tasks: [{ id: 'probe', uses: 'action:probe', with: { server: 'fixture', tool: 'deep', arguments: {} } }],
        },
      });
      const result = await runCliAsync(['run', ws.write('wf.yaml', document), '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv() });
      const found = diagnosticWithCode(errorDocument(result, 6), 'AGENTCTL_E_MCP_RESPONSE_INVALID');
      expect(found.message).to.equal('MCP server fixture: tools/call: the answer is JSON nested more than 64 levels deep');
      expect(states()).to.deep.equal({ runs: ['failed'], tasks: ['failed'], effects: [['mcp.call', 'uncertain', 'AGENTCTL_E_MCP_RESPONSE_INVALID']] });
    });
  });

  describe('from a model', () => {
    let server: OpenAiServer;
    beforeEach(async () => (server = await startOpenAiServer()));
    afterEach(() => server.close());
    const run = (reply: Reply, agent: Record<string, unknown> = {}) => {
      server.enqueue(reply);
      const port = Number(new URL(server.url).port);
      const document = workflow({
        providers: { openai: { kind: 'openai', endpoint: server.url } },
        policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowedSchemes: ['http'], allowedPorts: [port], allowPrivate: true } },
        tools: { read_note: READ_TOOL },
        agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.', tools: ['read_note'], timeoutSeconds: 10, ...agent } },
        tasks: [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'Go.' } }],
      } as never);
      return runCliAsync(['run', ws.write('wf.yaml', document), '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ OPENAI_API_KEY: 'sk-test-key-0000' }) });
    };

    it('as tool-call arguments: AGENTCTL_E_PROVIDER_RESPONSE_INVALID, exit 6, the run failed, the request recorded failed, no tool run', async () => {
      const found = diagnosticWithCode(errorDocument(await run({ toolCalls: [{ name: 'read_note', arguments: DEEP }] }), 6), 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID');
      expect(found.message).to.equal('openai answer: output.0: the arguments of function_call read_note are JSON nested more than 64 levels deep');
      expect(states()).to.deep.equal({ runs: ['failed'], tasks: ['failed'], effects: [['model.request', 'failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID']] });
    });

    it('anywhere in the answer (here a reasoning item it would skip): AGENTCTL_E_PROVIDER_RESPONSE_INVALID, exit 6, the run failed, the request recorded failed', async () => {
      const found = diagnosticWithCode(errorDocument(await run({ raw: `{"output":[{"type":"reasoning","summary":${DEEP}}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}` }), 6), 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID');
      expect(found.message).to.equal('openai answer: the body is JSON nested more than 64 levels deep');
      expect(states()).to.deep.equal({ runs: ['failed'], tasks: ['failed'], effects: [['model.request', 'failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID']] });
    });

    it('as structured output: AGENTCTL_E_AGENT_OUTPUT_INVALID, exit 4, the run failed, the request recorded succeeded', async () => {
      const found = diagnosticWithCode(errorDocument(await run({ text: DEEP }, { tools: [], structuredOutput: { type: 'array' } }), 4), 'AGENTCTL_E_AGENT_OUTPUT_INVALID');
      expect(found.message).to.equal('agent analyst: the final answer is JSON nested more than 64 levels deep; structuredOutput allows at most 64');
      expect(states()).to.deep.equal({ runs: ['failed'], tasks: ['failed'], effects: [['model.request', 'succeeded', null]] });
    });
  });
});
