// Agents against a local server that speaks the OpenAI Responses API, end to end through the CLI and the network
// policy: the tool loop, retries, refusals, a hang, budgets, the network denials, and a canary credential that must
// reach the server's Authorization header and nothing else.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, runCliAsync, workspace } from '../support/cli.js';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.js';
import { assertNoCanary as assertNoCanaryIn, diagnosticWithCode, errorDocument, outcome, rows, runCount, unique } from './helpers.js';
import { READ_TOOL } from '../support/agents.js';

type Workspace = ReturnType<typeof workspace>;

interface Options {
  endpoint?: string;
  network?: Record<string, unknown>;
  allowlist?: string[];
  agent?: Record<string, unknown>;
  budgets?: Record<string, number>;
  tasks?: Record<string, unknown>[];
  actions?: Record<string, unknown>;
}

describe('agents against an OpenAI-format server', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let server: OpenAiServer;
  let canary: string;
  beforeEach(async () => {
    ws = workspace();
    ws.write('note.txt', 'NOTE_FROM_FILE\n');
    server = await startOpenAiServer();
    canary = unique('sk-canary-');
  });
  afterEach(async () => {
    await server.close();
    ws.cleanup();
  });

  const port = () => new URL(server.url).port;
  const document = (options: Options = {}) =>
    stringify({
      apiVersion: 'agentctl.dev/v1',
      kind: 'Workflow',
      metadata: { name: 'openai-agent' },
      spec: {
        providers: { openai: { kind: 'openai', endpoint: options.endpoint ?? server.url } },
        policy: {
          approval: 'never',
          networkAllowlist: options.allowlist ?? ['127.0.0.1'],
          network: options.network ?? { allowedSchemes: ['http'], allowedPorts: [Number(port())], allowPrivate: true },
        },
        ...(options.budgets ? { runtime: { budgets: options.budgets } } : {}),
        tools: { read_note: READ_TOOL },
        ...(options.actions ? { actions: options.actions } : {}),
        agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.', tools: ['read_note'], timeoutSeconds: 10, ...options.agent } },
        tasks: options.tasks ?? [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'What does the note say?' } }],
      },
    });
  const cli = (args: string[], env: NodeJS.ProcessEnv = { OPENAI_API_KEY: canary }) => runCliAsync([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv(env) });
  const run = async (options: Options = {}, env?: NodeJS.ProcessEnv) => cli(['run', ws.write('wf.yaml', document(options))], env);

  const assertNoCanary = (...outputs: string[]) => assertNoCanaryIn(canary, ws.dir, ...outputs);

  it('a two-turn tool loop: the tool result goes back as function_call_output; the credential is only in Authorization', async () => {
    server.enqueue({ toolCalls: [{ name: 'read_note', arguments: { path: 'note.txt' }, callId: 'call_1' }] }, { text: 'The note says NOTE_FROM_FILE.', usage: { input: 40, output: 9 } });
    const result = await run();
    const document = outcome(result, 0);
    expect(document.data.state).to.equal('succeeded');
    expect(document.data.usage).to.deep.equal({ providerRequests: 2, toolCalls: 1, inputTokens: 51, outputTokens: 16, totalTokens: 67 });
    expect(server.requests).to.have.length(2);
    const [first, second] = server.requests as any[];
    expect(first.path).to.equal('/v1/responses');
    expect(first.headers.authorization).to.equal(`Bearer ${canary}`);
    expect(first.body.model).to.equal('gpt-5-mini');
    expect(first.body.instructions).to.equal('Be brief.');
    expect(first.body.input).to.deep.equal([{ role: 'user', content: [{ type: 'input_text', text: 'What does the note say?' }] }]);
    expect(first.body.tools).to.deep.equal([{ type: 'function', name: 'read_note', description: 'Read one workspace file.', parameters: READ_TOOL.inputSchema, strict: true }]);
    expect(first.body.max_output_tokens).to.equal(2048);
    expect(second.body.input.slice(1, 2)).to.deep.equal([{ type: 'function_call', call_id: 'call_1', name: 'read_note', arguments: '{"path":"note.txt"}' }]);
    const output = JSON.parse(second.body.input[2].output);
    expect(second.body.input[2]).to.include({ type: 'function_call_output', call_id: 'call_1' });
    expect(output).to.include({ path: 'note.txt', content: 'NOTE_FROM_FILE\n' });
    const inspected = await cli(['inspect', document.data.runId]);
    expect(outcome(inspected, 0).data.effects.map((effect: any) => effect.operation)).to.deep.equal(['model.request', 'tool.call', 'model.request']);
    assertNoCanary(result.stdout, result.stderr, inspected.stdout, inspected.stderr);
  });

  it('a 503 then a success is retried within the agent retry budget', async () => {
    server.enqueue({ error: 503, type: 'server_error' }, { text: 'ok' });
    const document = outcome(await run({ agent: { tools: [], retry: { maxAttempts: 2 } } }), 0);
    expect(server.requests).to.have.length(2);
    expect(rows(ws.db, 'SELECT state FROM effects WHERE run_id = ? ORDER BY rowid', document.data.runId).map((row) => row.state)).to.deep.equal(['failed', 'succeeded']);
  });

  it('a 400 fails the run with exit 6, once, and its message carries no request content', async () => {
    server.enqueue({ error: 400, type: 'invalid_request_error', code: 'unknown_parameter', message: 'echo: Be brief. What does the note say?' });
    const result = await run({ agent: { tools: [], retry: { maxAttempts: 3 } } });
    const failed = errorDocument(result, 6);
    const found = diagnosticWithCode(failed, 'AGENTCTL_E_PROVIDER_REJECTED');
    expect(found.message).to.contain('400').and.not.to.contain('Be brief');
    expect(server.requests).to.have.length(1);
    assertNoCanary(result.stdout, result.stderr);
  });

  it('a server that hangs past timeoutSeconds leaves the request uncertain; resume refuses (exit 3) until it is reconciled', async () => {
    server.enqueue({ hang: true });
    diagnosticWithCode(errorDocument(await run({ agent: { tools: [], timeoutSeconds: 1 } }), 4), 'AGENTCTL_E_PROVIDER_UNCERTAIN');
    const runId = rows(ws.db, 'SELECT id FROM runs')[0].id;
    expect(rows(ws.db, 'SELECT state FROM effects').map((row) => row.state)).to.deep.equal(['uncertain']);
    diagnosticWithCode(errorDocument(await cli(['resume', runId]), 3), 'AGENTCTL_E_EFFECT_UNRECONCILED');
    expect(server.requests).to.have.length(1);
  });

  it('maxProviderRequests 1 with two turns: the server sees one request, budget.exceeded is recorded, the run fails', async () => {
    server.enqueue({ toolCalls: [{ name: 'read_note', arguments: { path: 'note.txt' } }] }, { text: 'never sent' });
    diagnosticWithCode(errorDocument(await run({ budgets: { maxProviderRequests: 1 } }), 4), 'AGENTCTL_E_BUDGET_EXCEEDED');
    expect(server.requests).to.have.length(1);
    expect(rows(ws.db, "SELECT count(*) AS n FROM audit_events WHERE type = 'budget.exceeded'")[0].n).to.equal(1);
  });

  it('a missing credential fails before any run exists, with exit 6', async () => {
    const failed = errorDocument(await run({}, {}), 6);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING').path).to.equal('spec.providers.openai.credential');
    expect(runCount(ws.db)).to.equal(0);
    expect(server.requests).to.have.length(0);
  });

  it('a repair whose fresh tasks hold no agent needs no provider credential', async () => {
    server.enqueue({ text: 'analysis' });
    const tasks = [
      { id: 'ask', uses: 'agent:analyst', with: { prompt: 'hi' } },
      { id: 'save', uses: 'action:save', needs: ['ask'], with: { path: 'out/report.txt', content: '${{ tasks.ask.output.text }}' } },
    ];
    const options: Options = { agent: { tools: [] }, tasks, actions: { save: { kind: 'builtin.write' } } };
    // The first run fails at the write (no writable root), after the agent succeeded.
    const failed = errorDocument(await run(options), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_POLICY_NOT_WRITABLE');
    const runId = rows(ws.db, 'SELECT id FROM runs')[0].id;
    const fixed = document(options).replace('approval: never', 'approval: never\n    writableRoots: [out]');
    const repaired = outcome(await cli(['repair', ws.write('fixed.yaml', fixed), runId, '--from', 'save'], {}), 0);
    expect(repaired.data.state).to.equal('succeeded');
    expect(readFileSync(ws.file('out/report.txt'), 'utf8')).to.equal('analysis');
    expect(server.requests).to.have.length(1);
  });

  describe('the network policy, before any byte is sent', () => {
    const denied = async (options: Options, code: string, exitCode: number, fragment: string, env: NodeJS.ProcessEnv = {}) => {
      server.enqueue({ text: 'must not be asked' });
      const failed = errorDocument(await run({ ...options, agent: { tools: [] } }, { OPENAI_API_KEY: canary, ...env }), exitCode);
      expect(diagnosticWithCode(failed, code).message).to.contain(fragment);
      expect(server.requests, 'the server recorded a request').to.have.length(0);
      expect(runCount(ws.db)).to.equal(0);
    };

    it('a host not in networkAllowlist', () => denied({ allowlist: ['api.example.com'] }, 'AGENTCTL_E_NETWORK_DENIED', 3, '127.0.0.1'));
    it('http when only https is allowed', () => denied({ network: { allowedSchemes: ['https'], allowPrivate: true } }, 'AGENTCTL_E_NETWORK_DENIED', 3, 'http'));
    it('a port that is not allowed', () => denied({ network: { allowedSchemes: ['http'], allowedPorts: [443], allowPrivate: true } }, 'AGENTCTL_E_NETWORK_DENIED', 3, port()));
    it('a URL with userinfo', () => denied({ endpoint: server.url.replace('http://', 'http://user:pw@') }, 'AGENTCTL_E_NETWORK_DENIED', 3, 'user name or password'));
    it('a name that resolves to 127.0.0.1 without allowPrivate', () =>
      denied({ endpoint: server.url.replace('127.0.0.1', 'localhost'), allowlist: ['localhost'], network: { allowedSchemes: ['http'] } }, 'AGENTCTL_E_NETWORK_DENIED', 3, '127.0.0.1'));
    it('an invalid customCa bundle', () =>
      denied({ network: { allowedSchemes: ['http'], allowPrivate: true, customCa: { env: 'CORP_CA' } } }, 'AGENTCTL_E_NETWORK_CA_INVALID', 2, 'outside PEM', { CORP_CA: 'not a PEM bundle at all' }));

    it('a bundle that holds a private key is refused, and its bytes show nowhere', async () => {
      const key = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(canary).toString('base64')}\n-----END PRIVATE KEY-----\n`;
      server.enqueue({ text: 'must not be asked' });
      const result = await run({ agent: { tools: [] }, network: { allowedSchemes: ['http'], allowPrivate: true, customCa: { env: 'CORP_CA' } } }, { OPENAI_API_KEY: canary, CORP_CA: key });
      expect(diagnosticWithCode(errorDocument(result, 2), 'AGENTCTL_E_NETWORK_CA_INVALID').message).to.contain('PRIVATE KEY');
      expect(server.requests).to.have.length(0);
      expect(result.stdout + result.stderr).to.not.contain(Buffer.from(canary).toString('base64'));
    });

    it('a 302 to an allowed host is not followed: the target records nothing', async () => {
      const target = await startOpenAiServer();
      try {
        server.enqueue({ redirect: target.url });
        target.enqueue({ text: 'must not be asked' });
        const failed = errorDocument(await run({ agent: { tools: [] }, network: { allowedSchemes: ['http'], allowPrivate: true } }), 6);
        diagnosticWithCode(failed, 'AGENTCTL_E_NETWORK_REDIRECT');
        expect(server.requests).to.have.length(1);
        expect(target.requests).to.have.length(0);
      } finally {
        await target.close();
      }
    });
  });
});
