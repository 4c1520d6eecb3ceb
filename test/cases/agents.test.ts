// Agent tasks with the fake provider, end to end through the CLI: the loop, its limits, tool contracts under policy,
// retries, approvals in the middle of a loop, replay without any provider, and the compile-time checks.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, BIN, ROOT, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows } from './helpers.js';
import { READ_TOOL } from '../support/agents.js';

type Workspace = ReturnType<typeof workspace>;

const WRITE_TOOL = {
  ...READ_TOOL,
  kind: 'builtin.workspace.write',
  description: 'Write one workspace file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false },
  capability: 'filesystem.write',
  risk: 'medium',
  effectClass: 'workspace_mutate',
};

interface AgentSpec {
  agents: Record<string, Record<string, unknown>>;
  tools?: Record<string, unknown>;
  tasks: Record<string, unknown>[];
  policy?: Record<string, unknown>;
  runtime?: Record<string, unknown>;
  actions?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

const document = (spec: AgentSpec) =>
  stringify({
    apiVersion: 'agentctl.dev/v1',
    kind: 'Workflow',
    metadata: { name: 'agents' },
    spec: { providers: { fake: { kind: 'fake' } }, policy: { approval: 'never', ...spec.policy }, ...spec },
  });

const agent = (fields: Record<string, unknown> = {}) => ({ provider: 'fake', model: 'scripted', instructions: 'Answer.', ...fields });

describe('agents (fake provider)', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    ws.write('fixture/note.txt', 'NOTE_MARKER\n');
  });
  afterEach(() => ws.cleanup());
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli([...args, ...(args[0] === 'check' ? [] : ['--db', ws.db]), '--output', 'json'], { cwd: ws.dir, env: baseEnv(env) });
  const run = (spec: AgentSpec, exitCode = 0) => outcome(cli(['run', ws.write('wf.yaml', document(spec))]), exitCode);
  const effects = (runId: string) => rows(ws.db, 'SELECT task_id, operation, state, input_json, result_json, error_json FROM effects WHERE run_id = ? ORDER BY rowid', runId);
  const audit = (runId: string, type: string) => rows(ws.db, 'SELECT task_id, data_json FROM audit_events WHERE run_id = ? AND type = ? ORDER BY seq', runId, type);

  it('without structuredOutput the output is {text, usage} summed over turns; the prompt is with.prompt', () => {
    const result = run({ agents: { a: agent() }, tasks: [{ id: 'ask', uses: 'agent:a', with: { prompt: 'hello' } }] });
    expect(result.data.state).to.equal('succeeded');
    const output = JSON.parse(rows(ws.db, "SELECT output_json FROM tasks WHERE task_id = 'ask'")[0].output_json);
    expect(output).to.deep.equal({ text: 'fake: hello', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costMicrousd: null } });
    const [turn] = effects(result.data.runId);
    expect(turn.operation).to.equal('model.request');
    const request = JSON.parse(turn.input_json).request;
    expect(request.messages).to.deep.equal([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    expect(request.instructions).to.equal('Answer.');
    expect(JSON.parse(turn.result_json).response.content).to.deep.equal([{ type: 'text', text: 'fake: hello' }]);
  });

  it('a with that is not a string prompt is sent as its JSON text', () => {
    const result = run({ agents: { a: agent() }, tasks: [{ id: 'ask', uses: 'agent:a', with: { prompt: { service: 'checkout' }, level: 2 } }] });
    const request = JSON.parse(effects(result.data.runId)[0].input_json).request;
    expect(request.messages[0].content[0].text).to.equal('{"level":2,"prompt":{"service":"checkout"}}');
  });

  it('a tool round: the call is recorded with the tool class, its output goes back to the model, the loop ends with finalText', () => {
    const result = run({
      tools: { read_note: READ_TOOL },
      agents: { a: agent({ tools: ['read_note'], maxTurns: 2, maxToolCalls: 1, providerOptions: { toolInput: { path: 'fixture/note.txt' }, finalText: 'done' } }) },
      tasks: [{ id: 'ask', uses: 'agent:a', with: { prompt: 'read it' } }],
    });
    expect(result.data.state).to.equal('succeeded');
    const recorded = effects(result.data.runId);
    expect(recorded.map((row) => [row.operation, row.state])).to.deep.equal([
      ['model.request', 'succeeded'],
      ['tool.call', 'succeeded'],
      ['model.request', 'succeeded'],
    ]);
    const call = JSON.parse(recorded[1].input_json);
    expect(call).to.deep.equal({ tool: 'read_note', kind: 'builtin.workspace.read', callId: 'fake-call-1', input: { path: 'fixture/note.txt' } });
    const profile = rows(ws.db, "SELECT effect_class, risk, idempotency FROM effects WHERE operation = 'tool.call'")[0];
    expect(profile).to.deep.equal({ effect_class: 'observe', risk: 'low', idempotency: 'idempotent' });
    const second = JSON.parse(recorded[2].input_json).request.messages;
    expect(second[2]).to.deep.equal({
      role: 'tool',
      content: [{ type: 'tool_result', callId: 'fake-call-1', name: 'read_note', output: { path: 'fixture/note.txt', content: 'NOTE_MARKER\n', bytes: 12, sha256: JSON.parse(recorded[1].result_json).sha256 } }],
    });
  });

  it('structuredOutput: the validated object is the output; an answer that is not JSON or breaks the schema fails (exit 4)', () => {
    const schema = { type: 'object', required: ['decision'], additionalProperties: false, properties: { decision: { enum: ['approved'] } } };
    const spec = (finalText: string): AgentSpec => ({
      agents: { a: agent({ structuredOutput: schema, providerOptions: { finalText } }) },
      tasks: [{ id: 'ask', uses: 'agent:a' }],
      outputs: { decision: '${{ tasks.ask.output.decision }}' },
    });
    expect(run(spec('{"decision":"approved"}')).data.output).to.deep.equal({ decision: 'approved' });
    const notJson = errorDocument(cli(['run', ws.write('wf.yaml', document(spec('approved')))]), 4);
    expect(diagnosticWithCode(notJson, 'AGENTCTL_E_AGENT_OUTPUT_INVALID').message).to.contain('not JSON');
    const wrong = errorDocument(cli(['run', ws.write('wf.yaml', document(spec('{"decision":"rejected"}')))]), 4);
    expect(diagnosticWithCode(wrong, 'AGENTCTL_E_AGENT_OUTPUT_INVALID').message).to.contain('does not match structuredOutput');
  });

  it('maxToolCalls: the call over the limit is never run and the task fails with "maximum tool-call count exceeded"', () => {
    const turns = [{ toolCalls: [{ input: { path: 'fixture/note.txt' } }, { input: { path: 'fixture/note.txt' } }] }, { text: 'done' }];
    const result = errorDocument(cli(['run', ws.write('wf.yaml', document({ tools: { read_note: READ_TOOL }, agents: { a: agent({ tools: ['read_note'], maxToolCalls: 1, providerOptions: { turns } }) }, tasks: [{ id: 'ask', uses: 'agent:a' }] }))]), 4);
    expect(diagnosticWithCode(result, 'AGENTCTL_E_AGENT_TOOL_CALL_LIMIT').message).to.contain('maximum tool-call count exceeded');
    expect(rows(ws.db, "SELECT count(*) AS n FROM effects WHERE operation = 'tool.call'")[0].n).to.equal(1);
  });

  it('maxTurns: a model that keeps calling tools fails with the turn limit after maxTurns requests', () => {
    const turns = [{ toolCalls: [{ input: { path: 'fixture/note.txt' } }] }, { toolCalls: [{ input: { path: 'fixture/note.txt' } }] }, { text: 'late' }];
    const result = errorDocument(cli(['run', ws.write('wf.yaml', document({ tools: { read_note: READ_TOOL }, agents: { a: agent({ tools: ['read_note'], maxTurns: 2, providerOptions: { turns } }) }, tasks: [{ id: 'ask', uses: 'agent:a' }] }))]), 4);
    expect(diagnosticWithCode(result, 'AGENTCTL_E_AGENT_TURN_LIMIT').message).to.contain('maximum turn count exceeded');
    expect(rows(ws.db, "SELECT count(*) AS n FROM effects WHERE operation = 'model.request'")[0].n).to.equal(2);
  });

  it('a call of an undeclared tool, or with input its inputSchema refuses, runs nothing and fails the task', () => {
    for (const [turns, fragment] of [
      [[{ toolCalls: [{ tool: 'shell', input: {} }] }], 'does not have'],
      [[{ toolCalls: [{ input: { path: 7 } }] }], 'does not match its inputSchema'],
    ] as const) {
      const result = errorDocument(cli(['run', ws.write('wf.yaml', document({ tools: { read_note: READ_TOOL }, agents: { a: agent({ tools: ['read_note'], providerOptions: { turns } }) }, tasks: [{ id: 'ask', uses: 'agent:a' }] }))]), 4);
      expect(diagnosticWithCode(result, 'AGENTCTL_E_TOOL_CALL_INVALID').message).to.contain(fragment);
    }
    expect(rows(ws.db, "SELECT count(*) AS n FROM effects WHERE operation = 'tool.call'")[0].n).to.equal(0);
  });

  it("a tool output that breaks the tool's outputSchema fails the task and is not sent to the model", () => {
    const tool = { ...READ_TOOL, outputSchema: { type: 'object', required: ['missing'] } };
    const result = errorDocument(cli(['run', ws.write('wf.yaml', document({ tools: { read_note: tool }, agents: { a: agent({ tools: ['read_note'], providerOptions: { toolInput: { path: 'fixture/note.txt' } } }) }, tasks: [{ id: 'ask', uses: 'agent:a' }] }))]), 4);
    diagnosticWithCode(result, 'AGENTCTL_E_TOOL_OUTPUT_INVALID');
    expect(rows(ws.db, "SELECT count(*) AS n FROM effects WHERE operation = 'model.request'")[0].n).to.equal(1);
  });

  it('toolsDeny names a tool: its call is denied by policy and recorded as a denial, never run', () => {
    const result = errorDocument(
      cli(['run', ws.write('wf.yaml', document({ policy: { toolsDeny: ['read_note'] }, tools: { read_note: READ_TOOL }, agents: { a: agent({ tools: ['read_note'], providerOptions: { toolInput: { path: 'fixture/note.txt' } } }) }, tasks: [{ id: 'ask', uses: 'agent:a' }] }))]),
      4,
    );
    diagnosticWithCode(result, 'AGENTCTL_E_POLICY_TOOL_DENIED');
    expect(audit(result.error.runId ?? rows(ws.db, 'SELECT id FROM runs')[0].id, 'policy.denied').map((row) => JSON.parse(row.data_json).operation)).to.deep.equal(['tool.call']);
  });

  it('a tool write outside the writable roots is refused by policy like any write', () => {
    const result = errorDocument(
      cli(['run', ws.write('wf.yaml', document({ policy: { writableRoots: ['out'] }, tools: { save: WRITE_TOOL }, agents: { a: agent({ tools: ['save'], providerOptions: { toolInput: { path: 'elsewhere.txt', content: 'x' } } }) }, tasks: [{ id: 'ask', uses: 'agent:a' }] }))]),
      4,
    );
    diagnosticWithCode(result, 'AGENTCTL_E_POLICY_NOT_WRITABLE');
  });

  it('failFirst with retry: a definite 503 is retried as a new effect; without retry budget the task fails with exit 6', () => {
    const ok = run({ agents: { a: agent({ retry: { maxAttempts: 2 }, providerOptions: { failFirst: 1, finalText: 'ok' } }) }, tasks: [{ id: 'ask', uses: 'agent:a' }] });
    expect(effects(ok.data.runId).map((row) => [row.state, row.error_json && JSON.parse(row.error_json).code])).to.deep.equal([
      ['failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE'],
      ['succeeded', null],
    ]);
    const failed = errorDocument(cli(['run', ws.write('wf.yaml', document({ agents: { a: agent({ providerOptions: { failFirst: 1 } }) }, tasks: [{ id: 'ask', uses: 'agent:a' }] }))]), 6);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_PROVIDER_UNAVAILABLE').message).to.contain('scripted transient failure');
  });

  it('a provider call that outlives timeoutSeconds is uncertain: the run fails and resume refuses until it is reconciled', () => {
    const failed = errorDocument(cli(['run', ws.write('wf.yaml', document({ agents: { a: agent({ timeoutSeconds: 1, providerOptions: { delayMs: 5000 } }) }, tasks: [{ id: 'ask', uses: 'agent:a' }] }))]), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_PROVIDER_UNCERTAIN');
    const runId = rows(ws.db, 'SELECT id FROM runs')[0].id;
    expect(effects(runId).map((row) => row.state)).to.deep.equal(['uncertain']);
    diagnosticWithCode(errorDocument(cli(['resume', runId]), 3), 'AGENTCTL_E_EFFECT_UNRECONCILED');
    // Once reconciled (it did not happen), resume continues the run: the task runs again at its next attempt.
    const [effect] = rows(ws.db, 'SELECT id FROM effects WHERE run_id = ?', runId);
    outcome(cli(['effects', 'reconcile', effect.id, '--status', 'not-applied', '--reason', 'the provider never answered'], { USER: 'dana' }), 0);
    diagnosticWithCode(errorDocument(cli(['resume', runId]), 4), 'AGENTCTL_E_PROVIDER_UNCERTAIN');
    expect(rows(ws.db, 'SELECT attempt, state FROM effects WHERE run_id = ? ORDER BY rowid', runId)).to.deep.equal([
      { attempt: 1, state: 'uncertain' },
      { attempt: 2, state: 'uncertain' },
    ]);
  });

  it('a tool with approval: always pauses the loop; after approval, resume sends no confirmed turn again', () => {
    const spec = document({
      policy: { nonInteractive: 'pause' },
      tools: { read_note: { ...READ_TOOL, approval: 'always' } },
      agents: { a: agent({ tools: ['read_note'], maxTurns: 2, providerOptions: { toolInput: { path: 'fixture/note.txt' }, finalText: 'done' } }) },
      tasks: [{ id: 'ask', uses: 'agent:a' }],
    });
    const paused = outcome(cli(['run', ws.write('wf.yaml', spec)]), 3);
    expect(paused.data.state).to.equal('paused');
    diagnosticWithCode(paused, 'AGENTCTL_E_APPROVAL_PENDING');
    const runId = rows(ws.db, 'SELECT id FROM runs')[0].id;
    const approval = rows(ws.db, 'SELECT id FROM approvals WHERE run_id = ?', runId)[0].id;
    outcome(cli(['approvals', 'approve', approval, '--reason', 'fine'], { USER: 'dana' }), 0);
    const resumed = outcome(cli(['resume', runId]), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(effects(runId).map((row) => [row.operation, row.state])).to.deep.equal([
      ['model.request', 'succeeded'],
      ['tool.call', 'succeeded'],
      ['model.request', 'succeeded'],
    ]);
  });

  it('instructionsFile is read when the task runs, as a recorded observe effect', () => {
    ws.write('prompts/analyst.md', 'You are careful.\n');
    const result = run({ agents: { a: agent({ instructions: undefined, instructionsFile: 'prompts/analyst.md' }) }, tasks: [{ id: 'ask', uses: 'agent:a', with: { prompt: 'hi' } }] });
    const recorded = effects(result.data.runId);
    expect(recorded.map((row) => row.operation)).to.deep.equal(['agent.instructions.read', 'model.request']);
    expect(JSON.parse(recorded[1].input_json).request.instructions).to.equal('You are careful.\n');
  });

  it('an action tool runs a declared shell action under the same policy: the call and its process effect are recorded', () => {
    const tool = {
      ...READ_TOOL,
      kind: 'action',
      action: 'stamp',
      description: 'Print a line.',
      inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
      capability: 'process.exec',
      effectClass: 'process_execution',
      idempotency: 'unknown',
    };
    const spec: AgentSpec = {
      policy: { processAllowlist: ['echo'], approval: 'never' },
      actions: { stamp: { kind: 'builtin.shell.exec', command: '/bin/echo', args: ['STAMPED'] } },
      tools: { stamp: tool },
      agents: { a: agent({ tools: ['stamp'], providerOptions: { toolInput: {}, finalText: 'stamped' } }) },
      tasks: [{ id: 'ask', uses: 'agent:a' }],
    };
    const result = run(spec);
    const recorded = effects(result.data.runId);
    expect(recorded.map((row) => row.operation)).to.deep.equal(['model.request', 'tool.call', 'process.exec', 'model.request']);
    const toolResult = JSON.parse(recorded[3].input_json).request.messages[2].content[0];
    expect(toolResult.output.stdout).to.equal('STAMPED\n');
    // The same action with echo not allowed: the process is denied and nothing runs.
    const denied = errorDocument(cli(['run', ws.write('wf.yaml', document({ ...spec, policy: { processAllowlist: [], approval: 'never' } }))]), 4);
    diagnosticWithCode(denied, 'AGENTCTL_E_POLICY_PROCESS_DENIED');
  });

  it('replay of an agent run needs no provider: zero effects and the same output digest', () => {
    const source = run({
      tools: { read_note: READ_TOOL },
      agents: { a: agent({ tools: ['read_note'], providerOptions: { toolInput: { path: 'fixture/note.txt' }, finalText: 'done' } }) },
      tasks: [{ id: 'ask', uses: 'agent:a' }],
      outputs: { text: '${{ tasks.ask.output.text }}' },
    });
    const before = rows(ws.db, 'SELECT count(*) AS n FROM effects')[0].n;
    const replay = outcome(cli(['replay', source.data.runId]), 0);
    expect(replay.data.output).to.deep.equal({ text: 'done' });
    expect(rows(ws.db, 'SELECT count(*) AS n FROM effects')[0].n).to.equal(before);
  });

  describe('check', () => {
    const check = (spec: AgentSpec) => errorDocument(cli(['check', ws.write('wf.yaml', document(spec))]), 2);
    const task = [{ id: 'ask', uses: 'agent:a' }];

    it("the reference's capability rule: reasoning on the fake provider fails check", () => {
      const found = diagnosticWithCode(check({ agents: { a: agent({ reasoning: { effort: 'high' } }) }, tasks: task }), 'AGENTCTL_E_AGENT_INVALID');
      expect(found.path).to.equal('spec.agents.a.reasoning');
    });

    for (const [label, spec, path] of [
      ['an unknown provider', { agents: { a: agent({ provider: 'missing' }) }, tasks: task }, 'spec.agents.a.provider'],
      ['an unknown tool', { agents: { a: agent({ tools: ['nope'] }) }, tasks: task }, 'spec.agents.a.tools[0]'],
      ['both instructions and instructionsFile', { agents: { a: agent({ instructionsFile: 'x.md' }) }, tasks: task }, 'spec.agents.a'],
      ['an unknown fake option', { agents: { a: agent({ providerOptions: { finalTxt: 'x' } }) }, tasks: task }, 'spec.agents.a.providerOptions'],
      ['a tool inputSchema that is not strict', { tools: { t: { ...READ_TOOL, inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }, agents: { a: agent({ tools: ['t'] }) }, tasks: task }, 'spec.tools.t.inputSchema'],
      ['a strict inputSchema with an optional property', { tools: { t: { ...READ_TOOL, inputSchema: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'], additionalProperties: false } } }, agents: { a: agent({ tools: ['t'] }) }, tasks: task }, 'spec.tools.t.inputSchema.required'],
      ['a read tool declared as a mutation', { tools: { t: { ...READ_TOOL, effectClass: 'workspace_mutate' } }, agents: { a: agent({ tools: ['t'] }) }, tasks: task }, 'spec.tools.t'],
      ['an agent of an unknown provider kind', { agents: { a: agent() }, tasks: task }, 'spec.providers.fake.kind'],
    ] as const) {
      it(`${label}: AGENTCTL_E_AGENT_INVALID at ${path}`, () => {
        const text = label === 'an agent of an unknown provider kind' ? document(spec as AgentSpec).replace('kind: fake', 'kind: telepathy') : document(spec as AgentSpec);
        const codes = errorDocument(cli(['check', ws.write('wf.yaml', text)]), 2).diagnostics.map((item: any) => item.path);
        expect(codes).to.include(path);
      });
    }

    it('an unknown agent field and an out-of-range maxTurns are schema errors with their paths', () => {
      const unknown = check({ agents: { a: agent({ temperature: 0.2 }) }, tasks: task });
      expect(diagnosticWithCode(unknown, 'AGENTCTL_E_UNKNOWN_FIELD').path).to.equal('spec.agents.a.temperature');
      const range = check({ agents: { a: agent({ maxTurns: 65 }) }, tasks: task });
      expect(diagnosticWithCode(range, 'AGENTCTL_E_SCHEMA').path).to.equal('spec.agents.a.maxTurns');
    });

    it('uses: agent:NAME of an undeclared agent is refused; kind: agent cannot be declared as an action', () => {
      expect(diagnosticWithCode(check({ agents: {}, tasks: [{ id: 'ask', uses: 'agent:ghost' }] }), 'AGENTCTL_E_UNKNOWN_ACTION').path).to.equal('spec.tasks[0].uses');
      expect(diagnosticWithCode(check({ agents: {}, actions: { sneaky: { kind: 'agent' } }, tasks: [{ id: 'x', uses: 'action:sneaky' }] }), 'AGENTCTL_E_UNKNOWN_ACTION_KIND').path).to.equal('spec.actions.sneaky.kind');
    });

    it('maxCostMicrousd needs a price for each agent model', () => {
      const found = diagnosticWithCode(
        check({ runtime: { budgets: { maxCostMicrousd: 1000 }, pricing: { version: 'v1', models: { 'fake/other': { inputMicrousdPerMillionTokens: 1, outputMicrousdPerMillionTokens: 1 } } } }, agents: { a: agent() }, tasks: task }),
        'AGENTCTL_E_BUDGET_PRICING_MISSING',
      );
      expect(found.message).to.contain('fake/scripted');
    });
  });

  it('the agent-mock-tool journey: offline run, two model effects and one tool effect, replay in an empty network namespace', () => {
    cpSync(join(ROOT, 'examples', 'agent-mock-tool'), ws.dir, { recursive: true });
    const env = { OPENAI_API_KEY: undefined };
    const result = outcome(cli(['run', ws.file('workflow.yaml')], env), 0);
    expect(result.data.output).to.deep.equal({ answer: 'SERVICE_FIXTURE_READ', report: 'out/agent-report.txt' });
    expect(readFileSync(ws.file('out/agent-report.txt'), 'utf8')).to.equal('marker: SERVICE_FIXTURE_READ');
    const inspected = outcome(cli(['inspect', result.data.runId], env), 0);
    const recorded = inspected.data.effects.filter((effect: any) => effect.taskId === 'inspect');
    expect(recorded.map((effect: any) => effect.operation)).to.deep.equal(['model.request', 'tool.call', 'model.request']);
    expect(recorded[0].input.request.tools[0].name).to.equal('read_service');
    expect(recorded[1].result.content).to.contain('SERVICE_FIXTURE_READ');
    expect(recorded[2].result.response.content).to.deep.equal([{ type: 'text', text: 'SERVICE_FIXTURE_READ' }]);
    // Replay reads the ledger only: no credential, no workflow file, and no network at all (a fresh namespace).
    const effectsBefore = rows(ws.db, 'SELECT count(*) AS n FROM effects')[0].n;
    const replayed = spawnSync('unshare', ['-n', process.execPath, BIN, 'replay', result.data.runId, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv(env), encoding: 'utf8' });
    const replay = outcome({ status: replayed.status, stdout: replayed.stdout, stderr: replayed.stderr } as any, 0);
    expect(replay.data.output).to.deep.equal(result.data.output);
    expect(rows(ws.db, 'SELECT count(*) AS n FROM effects')[0].n).to.equal(effectsBefore);
  });
});
