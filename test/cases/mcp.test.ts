// mcp.call end to end: the CLI against a local MCP server speaking Streamable HTTP, through the real network policy
// client. The happy path (check, run, inspect, replay with the server gone), an SSE answer, the refusals at compile
// time and at preflight, each failure the server can give, a hang left uncertain until reconciled, and a canary
// header that reaches the server and nothing else.
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, runCliAsync, startCli, workspace } from '../support/cli.js';
import { MCP_VERSION, startMcpServer, type McpServerOptions, type McpTestServer } from '../support/mcp-server.js';
import { assertNoCanary, diagnosticWithCode, errorDocument, finished, outcome, rows, runCount, unique, waitFor } from './helpers.js';

interface DocumentOptions {
  readonly server?: Record<string, unknown>;
  readonly policy?: Record<string, unknown>;
  readonly action?: Record<string, unknown>;
  readonly task?: Record<string, unknown>;
  readonly with?: Record<string, unknown>;
}

describe('mcp.call against a local MCP server', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  let server: McpTestServer | undefined;
  let canary: string;
  beforeEach(() => {
    ws = workspace();
    canary = unique('canary-');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    ws.cleanup();
  });

  const start = async (options: McpServerOptions = {}) => (server = await startMcpServer(options));
  const document = (options: DocumentOptions = {}) =>
    stringify({
      apiVersion: 'agentctl.dev/v1',
      kind: 'Workflow',
      metadata: { name: 'mcp-probe' },
      spec: {
        policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowPrivate: true }, ...options.policy },
        mcpServers: { fixture: { url: server?.url ?? 'http://127.0.0.1:9/mcp', protocolVersion: MCP_VERSION, timeoutSeconds: 5, ...options.server } },
        actions: { probe: { kind: 'mcp.call', idempotency: 'idempotent', ...options.action } },
        tasks: [
          {
            id: 'probe',
            uses: 'action:probe',
            outputSchema: { type: 'object', required: ['ok'], properties: { ok: { const: true } } },
            with: { server: 'fixture', tool: 'durable', arguments: { value: 'safe' }, ...options.with },
            ...options.task,
          },
        ],
      },
    });
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliAsync([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv(env) });
  const run = (options?: DocumentOptions, env?: NodeJS.ProcessEnv) => cli(['run', ws.write('wf.yaml', document(options))], env);
  const effects = () => rows(ws.db, 'SELECT state, operation, effect_class, risk, idempotency FROM effects ORDER BY rowid');

  it('check, run, inspect, then replay with the server stopped: the output is the structuredContent', async () => {
    await start();
    const checked = await runCliAsync(['check', ws.write('wf.yaml', document()), '--output', 'json'], { cwd: ws.dir, env: baseEnv() });
    expect(outcome(checked, 0).ok).to.equal(true);
    const done = outcome(await run(), 0);
    expect(done.data.state).to.equal('succeeded');
    expect(server!.methods()).to.deep.equal(['initialize', 'notifications/initialized', 'tools/call']);
    const [initialize, initialized, call] = server!.requests.map((request) => ({ headers: request.headers, body: JSON.parse(request.body) }));
    expect(initialize!.body).to.deep.include({ jsonrpc: '2.0', method: 'initialize' });
    expect(initialize!.body.params).to.deep.include({ protocolVersion: MCP_VERSION, capabilities: {} });
    expect(initialize!.body.params.clientInfo.name).to.equal('agentctl');
    expect(initialize!.headers.accept).to.equal('application/json, text/event-stream');
    expect(initialize!.headers).to.not.have.property('mcp-session-id');
    const session = initialized!.headers['mcp-session-id'];
    expect(session).to.match(/^session-/);
    for (const later of [initialized!, call!]) expect(later.headers).to.deep.include({ 'mcp-session-id': session, 'mcp-protocol-version': MCP_VERSION });
    expect(call!.body).to.deep.include({ method: 'tools/call', params: { name: 'durable', arguments: { value: 'safe' } } });

    const inspected = outcome(await cli(['inspect', done.data.runId]), 0).data;
    expect(inspected.tasks.map((task: any) => task.output)).to.deep.equal([{ ok: true, received: { value: 'safe' } }]);
    expect(inspected.effects).to.have.length(1);
    const [effect] = inspected.effects;
    expect(effect).to.deep.include({ operation: 'mcp.call', effectClass: 'network', risk: 'medium', idempotency: 'idempotent', state: 'succeeded' });
    expect(effect.input).to.deep.equal({ server: 'fixture', url: server!.url, protocolVersion: MCP_VERSION, tool: 'durable', arguments: { value: 'safe' }, headers: {} });
    expect(effect.result.structuredContent).to.deep.equal({ ok: true, received: { value: 'safe' } });
    // The call is also one of the run's protocol calls, as the reference lists them, and `effects inspect` names it.
    expect(inspected.protocolCalls.map((item: any) => [item.effectId, item.protocol, item.operation, item.status, item.idempotency])).to.deep.equal([[effect.effectId, 'mcp', 'mcp.call', 'succeeded', 'idempotent']]);
    expect(outcome(await cli(['effects', 'inspect', effect.effectId]), 0).data.protocolCall).to.deep.equal(inspected.protocolCalls[0]);

    await server!.close();
    server = undefined;
    const replayed = outcome(await cli(['replay', done.data.runId]), 0);
    expect(replayed.data.state).to.equal('succeeded');
    const again = outcome(await cli(['inspect', replayed.data.runId]), 0).data;
    expect(again.tasks.map((task: any) => task.output)).to.deep.equal([{ ok: true, received: { value: 'safe' } }]);
    expect(again.effects).to.deep.equal([]);
  });

  it('reads an answer sent as an event stream (a notification first, then the response)', async () => {
    await start({ sse: true });
    const done = outcome(await run(), 0);
    expect(done.data.state).to.equal('succeeded');
    expect(rows(ws.db, 'SELECT output_json FROM tasks').map((row) => JSON.parse(row.output_json))).to.deep.equal([{ ok: true, received: { value: 'safe' } }]);
  });

  it('outputs the content blocks of a tool result without structuredContent', async () => {
    await start();
    const done = outcome(await run({ with: { tool: 'plain' }, task: { outputSchema: { type: 'array' } } }), 0);
    expect(done.data.state).to.equal('succeeded');
    expect(rows(ws.db, 'SELECT output_json FROM tasks').map((row) => JSON.parse(row.output_json))).to.deep.equal([[{ type: 'text', text: 'no structure' }]]);
  });

  it('a server answering another protocol version fails the effect before any tool is called', async () => {
    await start({ protocolVersion: '2025-06-18' });
    const found = diagnosticWithCode(errorDocument(await run(), 6), 'AGENTCTL_E_MCP_VERSION');
    expect(found.message).to.contain('"2025-06-18"').and.contain(`not "${MCP_VERSION}"`);
    expect(server!.methods()).to.deep.equal(['initialize']);
    expect(effects().map((row) => row.state)).to.deep.equal(['failed']);
  });

  it('check refuses a task naming an undeclared server, with a suggestion, before anything runs', async () => {
    const checked = await runCliAsync(['check', ws.write('wf.yaml', document({ with: { server: 'fixtrue' } })), '--output', 'json'], { cwd: ws.dir, env: baseEnv() });
    const found = diagnosticWithCode(errorDocument(checked, 2), 'AGENTCTL_E_SCHEMA');
    expect(found.path).to.equal('spec.tasks[0].with.server');
    expect(found.message).to.contain('unknown MCP server "fixtrue"; did you mean "fixture"? declared servers: fixture');
  });

  it('check refuses an unknown field in a server entry (and no task is then judged against the broken section)', async () => {
    const check = async (text: string) => errorDocument(await runCliAsync(['check', ws.write('wf.yaml', text), '--output', 'json'], { cwd: ws.dir, env: baseEnv() }), 2);
    const broken = await check(document({ server: { bogus: true } }));
    expect(broken.diagnostics.map((item: any) => [item.code, item.path])).to.deep.equal([['AGENTCTL_E_UNKNOWN_FIELD', 'spec.mcpServers.fixture.bogus']]);
    const noTool = await check(document({ with: { tool: '' } }));
    expect(diagnosticWithCode(noTool, 'AGENTCTL_E_SCHEMA')).to.deep.include({ path: 'spec.tasks[0].with.tool' });
  });

  it('an unknown tool is a JSON-RPC error: the effect fails, once', async () => {
    await start();
    const found = diagnosticWithCode(errorDocument(await run({ with: { tool: 'missing' }, task: { retry: { maxAttempts: 1 } } }), 6), 'AGENTCTL_E_MCP_RPC_ERROR');
    expect(found.message).to.contain('error -32602: Unknown tool: missing');
    expect(effects().map((row) => row.state)).to.deep.equal(['failed']);
  });

  it('a result with isError fails the effect and records the result', async () => {
    await start();
    const found = diagnosticWithCode(errorDocument(await run({ with: { tool: 'fails' } }), 6), 'AGENTCTL_E_MCP_TOOL_ERROR');
    expect(found.message).to.contain('tool fails reported an error: disk quota exceeded');
    expect(effects().map((row) => row.state)).to.deep.equal(['failed']);
  });

  it('a session the server keeps forgetting is opened again once, then an explicit failure', async () => {
    await start({ expireSession: true });
    diagnosticWithCode(errorDocument(await run(), 6), 'AGENTCTL_E_MCP_SESSION_EXPIRED');
    expect(server!.methods()).to.deep.equal(['initialize', 'notifications/initialized', 'tools/call', 'initialize', 'notifications/initialized', 'tools/call']);
  });

  it('a host outside the allowlist is refused at preflight: no run, and no request reaches the server', async () => {
    await start();
    const failed = errorDocument(await run({ policy: { networkAllowlist: ['example.com'] } }), 3);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_NETWORK_DENIED').path).to.equal('spec.mcpServers.fixture.url');
    expect(server!.requests).to.deep.equal([]);
    expect(runCount(ws.db)).to.equal(0);
  });

  it('a redirect is never followed: the effect fails', async () => {
    await start({ redirect: 'http://127.0.0.1:9/elsewhere' });
    diagnosticWithCode(errorDocument(await run(), 6), 'AGENTCTL_E_NETWORK_REDIRECT');
    expect(server!.requests).to.have.length(1);
    expect(effects().map((row) => row.state)).to.deep.equal(['failed']);
  });

  it('an HTTP error status on tools/call fails the effect with AGENTCTL_E_MCP_RESPONSE_INVALID naming the status', async () => {
    await start({ callStatus: 500 });
    const failed = errorDocument(await run(), 6);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_MCP_RESPONSE_INVALID').message).to.contain('answered tools/call with HTTP 500');
    expect(effects().map((row) => row.state)).to.deep.equal(['failed']);
    expect(server!.methods().filter((method) => method === 'tools/call')).to.have.length(1);
  });

  it('a tool that hangs past timeoutSeconds is uncertain, sent once; resume refuses until it is reconciled', async () => {
    let calls = 0;
    await start({ tools: { slow: (args) => (++calls === 1 ? 'hang' : { result: { content: [], structuredContent: { ok: true, received: args } } }) } });
    const failed = errorDocument(await run({ server: { timeoutSeconds: 3 }, with: { tool: 'slow' }, task: { retry: { maxAttempts: 3 } } }), 6);
    diagnosticWithCode(failed, 'AGENTCTL_E_MCP_UNCERTAIN');
    expect(effects().map((row) => row.state)).to.deep.equal(['uncertain']);
    expect(server!.methods().filter((method) => method === 'tools/call')).to.have.length(1);
    const runId = failed.error.runId;
    diagnosticWithCode(errorDocument(await cli(['resume', runId]), 3), 'AGENTCTL_E_EFFECT_UNRECONCILED');
    const [effect] = rows(ws.db, 'SELECT id FROM effects');
    outcome(await cli(['effects', 'reconcile', effect.id, '--status', 'not-applied', '--reason', 'the server log shows no call']), 0);
    const resumed = outcome(await cli(['resume', runId]), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(server!.methods().filter((method) => method === 'tools/call')).to.have.length(1 + 1);
  });

  it('a run cancelled while the tool runs leaves the call uncertain and tells the server (notifications/cancelled)', async () => {
    await start();
    const child = startCli(['run', ws.write('wf.yaml', document({ with: { tool: 'slow' } })), '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv() });
    const ended = finished(child);
    await waitFor('tools/call at the server', () => server!.methods().includes('tools/call'), 60_000);
    child.kill('SIGTERM');
    const result = await ended;
    expect(outcome(result, 130).data.state).to.equal('cancelled');
    expect(effects().map((row) => row.state)).to.deep.equal(['uncertain']);
    expect(server!.methods()).to.deep.equal(['initialize', 'notifications/initialized', 'tools/call', 'notifications/cancelled']);
    const call = JSON.parse(server!.requests[2]!.body);
    expect(JSON.parse(server!.requests[3]!.body).params.requestId).to.equal(call.id);
  });

  it('a secret header reaches the server and nowhere else: not the database, stdout or stderr', async () => {
    await start();
    const options = { server: { headers: { Authorization: { env: 'MCP_TOKEN' } } }, with: { tool: 'echo-auth' }, task: { outputSchema: { type: 'object' } } };
    const result = await run(options, { MCP_TOKEN: `Bearer ${canary}` });
    const done = outcome(result, 0);
    for (const request of server!.requests) expect(request.headers.authorization).to.equal(`Bearer ${canary}`);
    const inspected = await cli(['inspect', done.data.runId]);
    const view = outcome(inspected, 0).data;
    expect(view.effects[0].input.headers.Authorization.secret).to.deep.equal({ env: 'MCP_TOKEN' });
    expect(view.effects[0].input.headers.Authorization.digest).to.match(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(view.tasks[0].output).to.deep.equal({ authorization: '[REDACTED]' });
    const audited = await runCliAsync(['auth', 'check', ws.file('wf.yaml'), '--output', 'json'], { cwd: ws.dir, env: baseEnv({ MCP_TOKEN: `Bearer ${canary}` }) });
    expect(outcome(audited, 0).data.map((use: any) => [use.provider, use.where, use.text, use.present])).to.deep.equal([[null, 'spec.mcpServers.fixture.headers.Authorization', '{env: MCP_TOKEN}', true]]);
    assertNoCanary(canary, ws.dir, result.stdout, result.stderr, inspected.stdout, inspected.stderr, audited.stdout, audited.stderr);
  });

  it('a header secret that is not set stops the run in preflight (exit 4): no run, nothing sent', async () => {
    await start();
    const failed = errorDocument(await run({ server: { headers: { Authorization: { env: 'MCP_TOKEN' } } } }), 4);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_SECRET_MISSING').path).to.equal('spec.mcpServers.fixture.headers.Authorization');
    expect(server!.requests).to.deep.equal([]);
    expect(runCount(ws.db)).to.equal(0);
  });
});
