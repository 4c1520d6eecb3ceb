// Runtime behaviours the reference implementation's journeys rely on, driven through the real CLI.
import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, runCli, runCliAsync } from '../support/cli.js';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.js';
import { MCP_VERSION, startMcpServer, type McpTestServer } from '../support/mcp-server.js';
import { READ_TOOL } from '../support/agents.js';
import { diagnosticWithCode, errorDocument, outcome, rows, useWorkspace } from '../cases/helpers.js';

/** A workflow in the reference's own format. */
const reference = (spec: Record<string, unknown>, name = 'compat') => stringify({ apiVersion: 'agentctl.dev/v1alpha1', kind: 'Workflow', metadata: { name }, spec });

/** A policy that lets a run reach a test server on loopback over plain HTTP, and asks for no approval. */
const loopbackPolicy = (url: string) => ({ approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowedSchemes: ['http'], allowedPorts: [Number(new URL(url).port)], allowPrivate: true } });

describe('compat: runtime behaviours', () => {
  const state = useWorkspace();
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli([...args, '--db', state.ws.db, '--output', 'json'], { cwd: state.ws.dir, env: baseEnv(env) });

  describe('builtin data kinds return the reference result object', () => {
    const ASSIGN_RESULT_SCHEMA = {
      type: 'object',
      required: ['status', 'changed', 'before', 'after', 'diff', 'output', 'predictability'],
      properties: {
        status: { const: 'unchanged' },
        changed: { const: false },
        predictability: { const: 'fully_predictable' },
        output: { type: 'object', required: ['value'] },
      },
    };

    it('assign: {status, changed, before, after, diff, output, predictability} passes an outputSchema requiring status; output.output.KEY reads; replay has the same digest', () => {
      state.ws.write(
        'wf.yaml',
        reference({
          inputs: { scalar: 7 },
          outputs: { value: '${{ tasks.copy.output.output.value }}', status: '${{ tasks.copy.output.status }}', passed: '${{ tasks.verify.output.passed }}' },
          actions: { assign: { kind: 'builtin.assign' }, assert: { kind: 'builtin.assert' } },
          tasks: [
            { id: 'copy', uses: 'action:assign', with: { value: '${{ inputs.scalar }}' }, outputSchema: ASSIGN_RESULT_SCHEMA },
            { id: 'verify', uses: 'action:assert', needs: ['copy'], with: { that: '${{ tasks.copy.output.changed == false }}' }, outputSchema: { type: 'object', required: ['status', 'changed', 'passed'] } },
          ],
        }),
      );
      const run = outcome(cli(['run', state.ws.file('wf.yaml')]), 0);
      expect(run.data.output).to.deep.equal({ value: 7, status: 'unchanged', passed: true });
      const [copy] = rows(state.ws.db, "SELECT output_json FROM tasks WHERE task_id = 'copy'");
      expect(JSON.parse(copy.output_json)).to.deep.equal({ status: 'unchanged', changed: false, before: null, after: { value: 7 }, diff: null, output: { value: 7 }, predictability: 'fully_predictable' });
      const [verify] = rows(state.ws.db, "SELECT output_json FROM tasks WHERE task_id = 'verify'");
      expect(JSON.parse(verify.output_json)).to.deep.equal({ status: 'unchanged', changed: false, passed: true });
      const replay = outcome(cli(['replay', run.data.runId]), 0);
      const first = outcome(cli(['replay', run.data.runId]), 0);
      expect(replay.data.output).to.deep.equal(run.data.output);
      expect(replay.data.outputDigest).to.match(/^sha256:/).and.equal(first.data.outputDigest);
    });
  });

  describe('reading a file that is not UTF-8', () => {
    const LATIN1 = Buffer.from('caf\xe9\n', 'latin1');

    it('builtin.read refuses it (AGENTCTL_E_FILE_ENCODING, exit 4) and records the read effect failed', () => {
      writeFileSync(state.ws.file('latin1.txt'), LATIN1);
      state.ws.write('wf.yaml', reference({ actions: { read: { kind: 'builtin.read' } }, tasks: [{ id: 'load', uses: 'action:read', with: { path: 'latin1.txt' } }] }));
      const error = errorDocument(cli(['run', state.ws.file('wf.yaml')]), 4);
      expect(diagnosticWithCode(error, 'AGENTCTL_E_FILE_ENCODING').message).to.contain('latin1.txt is not valid UTF-8');
      const effects = rows(state.ws.db, 'SELECT operation, state, error_json FROM effects');
      expect(effects.map((row) => [row.operation, row.state, JSON.parse(row.error_json).code])).to.deep.equal([['filesystem.read', 'failed', 'AGENTCTL_E_FILE_ENCODING']]);
      expect(rows(state.ws.db, 'SELECT state FROM tasks')).to.deep.equal([{ state: 'failed' }]);
    });

    it('the builtin.workspace.read tool refuses it too: the tool call fails, nothing lossy reaches the model', () => {
      writeFileSync(state.ws.file('latin1.txt'), LATIN1);
      state.ws.write(
        'wf.yaml',
        reference({
          providers: { fake: { kind: 'fake' } },
          policy: { approval: 'never' },
          tools: { read_note: READ_TOOL },
          agents: { a: { provider: 'fake', model: 'scripted', instructions: 'Read.', tools: ['read_note'], maxTurns: 2, maxToolCalls: 1, providerOptions: { toolInput: { path: 'latin1.txt' }, finalText: 'done' } } },
          tasks: [{ id: 'ask', uses: 'agent:a', with: { prompt: 'read it' } }],
        }),
      );
      const result = cli(['run', state.ws.file('wf.yaml')]);
      const calls = rows(state.ws.db, "SELECT state, result_json, error_json FROM effects WHERE operation = 'tool.call'");
      expect(calls.map((row) => [row.state, JSON.parse(row.error_json).code])).to.deep.equal([['failed', 'AGENTCTL_E_FILE_ENCODING']]);
      expect(result.stdout + result.stderr).to.not.contain('\ufffd');
      const requests = rows(state.ws.db, "SELECT input_json FROM effects WHERE operation = 'model.request'");
      for (const request of requests) expect(request.input_json).to.not.contain('\\ufffd').and.not.contain('caf\ufffd');
    });
  });

  describe("a task's own retry on an agent task", () => {
    let server: OpenAiServer;
    beforeEach(async () => (server = await startOpenAiServer()));
    afterEach(async () => server.close());

    const agentRun = (retry: Record<string, unknown>, agent: Record<string, unknown> = {}) => {
      state.ws.write(
        'wf.yaml',
        reference({
          providers: { openai: { kind: 'openai', endpoint: server.url } },
          policy: loopbackPolicy(server.url),
          agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.', timeoutSeconds: 2, ...agent } },
          outputs: { text: '${{ tasks.ask.output.text }}' },
          tasks: [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'hello' }, retry }],
        }),
      );
      return runCliAsync(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json'], { cwd: state.ws.dir, env: baseEnv({ OPENAI_API_KEY: 'sk-test-key' }) });
    };
    const attempts = () => rows(state.ws.db, "SELECT attempt, state FROM effects WHERE operation = 'model.request' ORDER BY rowid").map((row) => [row.attempt, row.state]);

    it('a 429 then a success: the task retries in a new attempt and succeeds (the agent has no retry of its own)', async () => {
      server.enqueue({ error: 429, type: 'rate_limit_error' }, { text: 'ok' });
      const document = outcome(await agentRun({ maxAttempts: 2, backoffMs: 10 }), 0);
      expect(document.data.output).to.deep.equal({ text: 'ok' });
      expect(server.requests).to.have.length(2);
      expect(attempts()).to.deep.equal([[1, 'failed'], [2, 'succeeded']]);
      expect(rows(state.ws.db, "SELECT attempt, state FROM tasks WHERE task_id = 'ask'")).to.deep.equal([{ attempt: 2, state: 'succeeded' }]);
    });

    it('a 400 is a refusal, not retried by the task (exit 6, one request)', async () => {
      server.enqueue({ error: 400, type: 'invalid_request_error' }, { text: 'never' });
      diagnosticWithCode(errorDocument(await agentRun({ maxAttempts: 3, backoffMs: 10 }), 6), 'AGENTCTL_E_PROVIDER_REJECTED');
      expect(server.requests).to.have.length(1);
      expect(attempts()).to.deep.equal([[1, 'failed']]);
    });

    it('an uncertain request (no answer in time) is never retried by the task (exit 4, the effect uncertain)', async () => {
      server.enqueue({ hang: true }, { text: 'never' });
      diagnosticWithCode(errorDocument(await agentRun({ maxAttempts: 3, backoffMs: 10 }, { timeoutSeconds: 1 }), 4), 'AGENTCTL_E_PROVIDER_UNCERTAIN');
      expect(server.requests).to.have.length(1);
      expect(attempts()).to.deep.equal([[1, 'uncertain']]);
    });
  });

  describe("a sub-workflow's output boundary when a child was skipped by its own when", () => {
    /** The reference's subworkflow example with a `prepare` child that its `when` skips; `outputs` picks the output map. */
    const invocation = (outputs: Record<string, string>) =>
      reference({
        inputs: { message: 'durable' },
        outputs: { result: '${{ tasks.summary.output.result }}', after: '${{ tasks.after.output.output.ran }}' },
        actions: { assign: { kind: 'builtin.assign' } },
        subworkflows: {
          summarize: {
            version: '1.0.0',
            inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
            outputSchema: { type: 'object', required: ['result'], properties: { result: { type: 'string' } } },
            outputs,
            tasks: [
              { id: 'prepare', uses: 'action:assign', when: "${{ inputs.message == 'never' }}", with: { value: '${{ inputs.message }}' } },
              { id: 'finish', uses: 'action:assign', with: { result: '${{ inputs.message }}' } },
            ],
          },
        },
        tasks: [
          { id: 'summary', uses: 'workflow:summarize', with: { message: '${{ inputs.message }}' } },
          { id: 'after', uses: 'action:assign', needs: ['summary'], with: { ran: true } },
        ],
      });
    const states = () => Object.fromEntries(rows(state.ws.db, 'SELECT task_id, state FROM tasks ORDER BY position').map((row) => [String(row.task_id).replace(/-inputs-[0-9a-f]+$/, '-inputs'), row.state]));

    it('the boundary still renders its output map (the skip is not inherited): the invocation and its dependents succeed', () => {
      state.ws.write('wf.yaml', invocation({ result: '${{ tasks.finish.output.output.result }}' }));
      const run = outcome(cli(['run', state.ws.file('wf.yaml')]), 0);
      expect(run.data.output).to.deep.equal({ result: 'durable', after: true });
      expect(states()).to.deep.equal({ 'summary--inputs': 'succeeded', 'summary--prepare': 'skipped', 'summary--finish': 'succeeded', summary: 'succeeded', after: 'succeeded' });
      const replay = outcome(cli(['replay', run.data.runId]), 0);
      expect(replay.data.output).to.deep.equal(run.data.output);
    });

    it('an output map that reads the skipped child fails the invocation (exit 4, AGENTCTL_E_TEMPLATE_EVALUATION at the invocation)', () => {
      state.ws.write('wf.yaml', invocation({ result: '${{ tasks.prepare.output.output.value }}' }));
      const error = errorDocument(cli(['run', state.ws.file('wf.yaml')]), 4);
      expect(diagnosticWithCode(error, 'AGENTCTL_E_TEMPLATE_EVALUATION').taskId).to.equal('summary');
      expect(states()).to.deep.equal({ 'summary--inputs': 'succeeded', 'summary--prepare': 'skipped', 'summary--finish': 'succeeded', summary: 'failed', after: 'skipped' });
    });
  });

  describe('an MCP session the server forgot (404)', () => {
    let server: McpTestServer;
    afterEach(async () => server.close());

    const mcpRun = async (expireFirstSession: 'initialized' | 'call', idempotency: string) => {
      server = await startMcpServer({ expireFirstSession });
      state.ws.write(
        'wf.yaml',
        reference({
          policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowPrivate: true } },
          mcpServers: { fixture: { url: server.url, protocolVersion: MCP_VERSION, timeoutSeconds: 5 } },
          actions: { probe: { kind: 'mcp.call', idempotency } },
          outputs: { ok: '${{ tasks.probe.output.ok }}' },
          tasks: [{ id: 'probe', uses: 'action:probe', with: { server: 'fixture', tool: 'durable', arguments: { value: 'safe' } } }],
        }),
      );
      return runCliAsync(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json'], { cwd: state.ws.dir, env: baseEnv() });
    };
    const recorded = () => rows(state.ws.db, "SELECT state, result_json FROM effects WHERE operation = 'mcp.call'").map((row) => [row.state, JSON.parse(row.result_json ?? 'null')?.sessionGeneration ?? null]);

    it('forgotten before tools/call was sent: the session is opened again (generation 2) and the call proceeds, whatever the idempotency', async () => {
      const document = outcome(await mcpRun('initialized', 'unknown'), 0);
      expect(document.data.output).to.deep.equal({ ok: true });
      expect(server.methods()).to.deep.equal(['initialize', 'notifications/initialized', 'initialize', 'notifications/initialized', 'tools/call']);
      expect(recorded()).to.deep.equal([['succeeded', 2]]);
    });

    it('forgotten at tools/call, idempotent: opened again once and the call is sent again', async () => {
      const document = outcome(await mcpRun('call', 'idempotent'), 0);
      expect(document.data.output).to.deep.equal({ ok: true });
      expect(server.methods()).to.deep.equal(['initialize', 'notifications/initialized', 'tools/call', 'initialize', 'notifications/initialized', 'tools/call']);
      expect(recorded()).to.deep.equal([['succeeded', 2]]);
    });

    it('forgotten at tools/call, idempotency unknown: the call may have run, so it is uncertain and not sent again; resume refuses (exit 3)', async () => {
      const failed = errorDocument(await mcpRun('call', 'unknown'), 6);
      diagnosticWithCode(failed, 'AGENTCTL_E_MCP_SESSION_EXPIRED');
      expect(server.methods()).to.deep.equal(['initialize', 'notifications/initialized', 'tools/call']);
      expect(recorded()).to.deep.equal([['uncertain', 1]]);
      const resumed = runCli(['resume', failed.error.runId, '--db', state.ws.db, '--output', 'json'], { cwd: state.ws.dir, env: baseEnv() });
      diagnosticWithCode(errorDocument(resumed, 3), 'AGENTCTL_E_EFFECT_UNRECONCILED');
      expect(server.methods()).to.have.length(3);
    });
  });

  describe('OpenAI reasoning items carried between turns (reasoningContext: all_turns)', () => {
    let server: OpenAiServer;
    beforeEach(async () => (server = await startOpenAiServer()));
    afterEach(async () => server.close());

    const reasoningRun = (providerOptions: Record<string, unknown>) => {
      state.ws.write('note.txt', 'NOTE\n');
      state.ws.write(
        'wf.yaml',
        reference({
          providers: { openai: { kind: 'openai', endpoint: server.url } },
          policy: loopbackPolicy(server.url),
          tools: { read_note: READ_TOOL },
          agents: { analyst: { provider: 'openai', model: 'gpt-5-mini', instructions: 'Be brief.', tools: ['read_note'], reasoning: { effort: 'low' }, timeoutSeconds: 5, providerOptions } },
          outputs: { text: '${{ tasks.ask.output.text }}' },
          tasks: [{ id: 'ask', uses: 'agent:analyst', with: { prompt: 'What does the note say?' } }],
        }),
      );
      server.enqueue({ toolCalls: [{ name: 'read_note', arguments: { path: 'note.txt' }, callId: 'call_1' }], reasoning: { id: 'rs_keep', summary: 'read the note first', encrypted: 'enc-opaque-1' } }, { text: 'It says NOTE.' });
      return runCliAsync(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json'], { cwd: state.ws.dir, env: baseEnv({ OPENAI_API_KEY: 'sk-test-key' }) });
    };

    it('all_turns: the reasoning item of turn 1 goes back before its function_call in turn 2 (encrypted content asked for when store is false); replay needs no server', async () => {
      const document = outcome(await reasoningRun({ reasoningContext: 'all_turns', store: false }), 0);
      expect(document.data.output).to.deep.equal({ text: 'It says NOTE.' });
      const [first, second] = server.requests as any[];
      expect(first.body.include).to.deep.equal(['reasoning.encrypted_content']);
      expect(second.body.input.slice(1, 3)).to.deep.equal([
        { type: 'reasoning', id: 'rs_keep', summary: [{ type: 'summary_text', text: 'read the note first' }], encrypted_content: 'enc-opaque-1' },
        { type: 'function_call', call_id: 'call_1', name: 'read_note', arguments: '{"path":"note.txt"}' },
      ]);
      await server.close();
      const replay = outcome(runCli(['replay', document.data.runId, '--db', state.ws.db, '--output', 'json'], { cwd: state.ws.dir, env: baseEnv() }), 0);
      expect(replay.data.output).to.deep.equal(document.data.output);
      server = await startOpenAiServer();
    });

    it('current_turn: no reasoning item is sent back', async () => {
      outcome(await reasoningRun({ reasoningContext: 'current_turn' }), 0);
      const second = (server.requests as any[])[1];
      expect(second.body.input.map((item: any) => item.type ?? item.role)).to.deep.equal(['user', 'function_call', 'function_call_output']);
      expect(second.body.include).to.equal(undefined);
    });
  });
});
