// `kind: action` tools end to end with the fake provider: the action a model runs through a tool is judged, recorded,
// approved, budgeted and timed exactly as the same action run as a task, and the call itself is a `tool.call` effect.
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { actionTool } from '../support/agents.js';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows } from './helpers.js';
import { packProject, writeConfig } from './pack-project.js';

type Workspace = ReturnType<typeof workspace>;

/** A shell action that appends one line to `calls.log`: the number of lines is the number of times it ran. */
const appending = (extra: Record<string, unknown> = {}) => ({ kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'echo ran >> calls.log; echo hi'], ...extra });


interface Spec {
  policy?: Record<string, unknown>;
  runtime?: Record<string, unknown>;
  action?: Record<string, unknown>;
  tool?: Record<string, unknown>;
  agent?: Record<string, unknown>;
  /** Run the action as a task instead of through the agent. */
  asTask?: boolean;
}

const document = (spec: Spec) =>
  stringify({
    apiVersion: 'agentctl.dev/v1',
    kind: 'Workflow',
    metadata: { name: 'action-tools' },
    spec: {
      providers: { fake: { kind: 'fake' } },
      policy: { processAllowlist: ['sh'], writableRoots: ['.'], approval: 'never', nonInteractive: 'pause', ...spec.policy },
      ...(spec.runtime ? { runtime: spec.runtime } : {}),
      actions: { work: spec.action ?? appending() },
      tools: { work_tool: actionTool('work', spec.tool) },
      agents: { a: { provider: 'fake', model: 'scripted', instructions: 'Work.', tools: ['work_tool'], providerOptions: { toolInput: {}, finalText: 'done' }, ...spec.agent } },
      tasks: [spec.asTask ? { id: 'ask', uses: 'action:work' } : { id: 'ask', uses: 'agent:a' }],
    },
  });

describe('action tools (fake provider)', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());
  const cli = (args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ USER: 'dana' }) });
  const runDocument = (spec: Spec) => cli(['run', ws.write('wf.yaml', document(spec))]);
  const runId = () => rows(ws.db, 'SELECT id FROM runs ORDER BY rowid DESC LIMIT 1')[0].id as string;
  const effects = () => rows(ws.db, 'SELECT id, kind, operation, state, effect_class, risk, idempotency, input_json, error_json FROM effects WHERE run_id = ? ORDER BY rowid', runId());
  const lines = () => (existsSync(ws.file('calls.log')) ? readFileSync(ws.file('calls.log'), 'utf8').split('\n').filter(Boolean).length : 0);

  it("plan shows an action tool with its action's class, risk and idempotency, not the tool's declared ones", () => {
    const plan = outcome(runCli(['plan', ws.write('wf.yaml', document({})), '--output', 'json'], { cwd: ws.dir, env: baseEnv() }), 0);
    expect(plan.data.agents[0].tools).to.deep.equal([{ name: 'work_tool', kind: 'action', effectClass: 'process_execution', risk: 'high', idempotency: 'unknown', approval: 'policy' }]);
  });

  for (const approval of ['mutations', 'high_risk']) {
    it(`approval: ${approval}: the action's process effect carries the action's class and risk and pauses (exit 3), as the task does`, () => {
      for (const asTask of [true, false]) {
        const paused = outcome(runDocument({ policy: { approval }, asTask }), 3);
        expect(paused.data.state).to.equal('paused');
        diagnosticWithCode(paused, 'AGENTCTL_E_APPROVAL_PENDING');
        const waiting = effects().filter((row) => row.operation === 'process.exec');
        expect(waiting.map(({ kind, state, effect_class, risk, idempotency }) => ({ kind, state, effect_class, risk, idempotency }))).to.deep.equal([
          { kind: 'builtin.shell.exec', state: 'waiting_for_approval', effect_class: 'process_execution', risk: 'high', idempotency: 'unknown' },
        ]);
        const approvals = rows(ws.db, 'SELECT effect_id, state, reason FROM approvals WHERE run_id = ?', runId());
        expect(approvals.map((row) => [row.effect_id, row.state])).to.deep.equal([[waiting[0].id, 'pending']]);
        expect(approvals[0].reason).to.contain('process.exec is process_execution (risk high)');
        expect(lines()).to.equal(0);
      }
    });
  }

  it('resume after approval: the model is not asked again and the command runs exactly once', () => {
    outcome(runDocument({ policy: { approval: 'mutations' } }), 3);
    const id = runId();
    expect(effects().map((row) => [row.operation, row.state])).to.deep.equal([
      ['model.request', 'succeeded'],
      ['tool.call', 'succeeded'],
      ['process.exec', 'waiting_for_approval'],
    ]);
    const [approval] = rows(ws.db, "SELECT id FROM approvals WHERE run_id = ? AND state = 'pending'", id);
    outcome(cli(['approvals', 'approve', approval.id, '--reason', 'fine']), 0);
    const resumed = outcome(cli(['resume', id]), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(lines()).to.equal(1);
    const recorded = effects();
    expect(recorded.map((row) => [row.operation, row.state])).to.deep.equal([
      ['model.request', 'succeeded'],
      ['tool.call', 'succeeded'],
      ['process.exec', 'succeeded'],
      ['model.request', 'succeeded'],
    ]);
    // Two model turns in all, each sent once: the first was read back from the ledger on resume, not sent again.
    const turns = recorded.filter((row) => row.operation === 'model.request');
    expect(turns.map((row) => JSON.parse(row.input_json).turn)).to.deep.equal([1, 2]);
    for (const turn of turns) expect(rows(ws.db, "SELECT COUNT(*) AS n FROM audit_events WHERE effect_id = ? AND type = 'effect.started'", turn.id)[0].n).to.equal(1);
    const toolResult = JSON.parse(turns[1].input_json).request.messages[2].content[0];
    expect(toolResult.output.stdout).to.equal('hi\n');
  });

  describe('maxProcessOutputBytes', () => {
    // The action may write up to 100,000 bytes and writes 50,000: a 1,000-byte budget refuses it before it starts.
    const loud = appending({ args: ['-c', 'echo ran >> calls.log; head -c 50000 /dev/zero | tr "\\0" x'], combinedOutputLimitBytes: 100000 });

    it("the action's worst case is reserved before its process starts: over the budget nothing runs (exit 4), as for the task", () => {
      for (const asTask of [true, false]) {
        const failed = errorDocument(runDocument({ action: loud, runtime: { budgets: { maxProcessOutputBytes: 1000 } }, asTask }), 4);
        expect(diagnosticWithCode(failed, 'AGENTCTL_E_BUDGET_EXCEEDED').path).to.equal('spec.runtime.budgets.maxProcessOutputBytes');
        expect(lines()).to.equal(0);
        expect(effects().filter((row) => row.operation === 'process.exec')).to.deep.equal([]);
        const exceeded = rows(ws.db, "SELECT data_json FROM audit_events WHERE run_id = ? AND type = 'budget.exceeded'", runId()).map((row) => JSON.parse(row.data_json));
        expect(exceeded.map((data) => [data.dimension, data.requested, data.limit])).to.deep.equal([['processOutputBytes', 100000, 1000]]);
        expect(outcome(cli(['inspect', runId()]), 0).data.budget.usage).to.deep.equal({ processOutputBytes: { used: 0, reserved: 0, limit: 1000 } });
      }
    });

    it('within the budget the bytes the process wrote are counted', () => {
      const done = outcome(runDocument({ action: appending({ combinedOutputLimitBytes: 1000 }), runtime: { budgets: { maxProcessOutputBytes: 1000 } } }), 0);
      expect(done.data.state).to.equal('succeeded');
      expect(outcome(cli(['inspect', done.data.runId]), 0).data.budget.usage).to.deep.equal({ processOutputBytes: { used: 3, reserved: 0, limit: 1000 } });
    });
  });

  it('the call is a tool.call effect: counted in usage.toolCalls, denied by toolsDeny naming the tool, limited by maxToolCalls', () => {
    const done = outcome(runDocument({}), 0);
    expect(done.data.usage.toolCalls).to.equal(1);
    expect(effects().map((row) => [row.operation, row.kind])).to.deep.equal([
      ['model.request', 'agent'],
      ['tool.call', 'builtin.shell.exec'],
      ['process.exec', 'builtin.shell.exec'],
      ['model.request', 'agent'],
    ]);
    expect(JSON.parse(effects()[1].input_json)).to.deep.equal({ tool: 'work_tool', kind: 'action', action: 'work', callId: 'fake-call-1', input: {} });
    expect(lines()).to.equal(1);

    const denied = errorDocument(runDocument({ policy: { toolsDeny: ['work_tool'] } }), 4);
    expect(diagnosticWithCode(denied, 'AGENTCTL_E_POLICY_TOOL_DENIED').message).to.contain('work_tool');
    expect(rows(ws.db, "SELECT data_json FROM audit_events WHERE run_id = ? AND type = 'policy.denied'", runId()).map((row) => JSON.parse(row.data_json).operation)).to.deep.equal(['tool.call']);
    expect(effects().map((row) => row.operation)).to.deep.equal(['model.request']);
    expect(lines()).to.equal(1);

    const twice = { providerOptions: { turns: [{ toolCalls: [{ input: {} }, { input: {} }] }, { text: 'done' }] } };
    const limited = errorDocument(runDocument({ agent: twice, runtime: { budgets: { maxToolCalls: 1 } } }), 4);
    expect(diagnosticWithCode(limited, 'AGENTCTL_E_BUDGET_EXCEEDED').path).to.equal('spec.runtime.budgets.maxToolCalls');
    expect(effects().map((row) => row.operation)).to.deep.equal(['model.request', 'tool.call', 'process.exec']);
    expect(lines()).to.equal(2);
  });

  it("the tool's timeoutSeconds bounds the action's work: a 4 s command under a 1 s tool is stopped and fails the task", () => {
    const slow = appending({ args: ['-c', 'sleep 4; echo ran >> calls.log'] });
    const failed = errorDocument(runDocument({ action: slow, tool: { timeoutSeconds: 1 } }), 4);
    expect(lines()).to.equal(0);
    const process = effects().find((row) => row.operation === 'process.exec')!;
    // Stopped at the tool's deadline: in doubt (it may have done part of its work), well before the command's 4 s.
    expect(process.state).to.equal('uncertain');
    expect(JSON.parse(process.input_json).limits.timeoutSeconds).to.equal(1);
    const [times] = rows(ws.db, 'SELECT started_at, finished_at FROM effects WHERE id = ?', process.id);
    expect(Date.parse(times.finished_at) - Date.parse(times.started_at)).to.be.below(3000);
    const code = JSON.parse(process.error_json).code;
    expect(code).to.equal('AGENTCTL_E_PROCESS_TIMEOUT');
    diagnosticWithCode(failed, code);
  });

  it("a pack kind that ignores its signal and fails after the tool's timeoutSeconds is AGENTCTL_E_TASK_TIMEOUT naming the tool", () => {
    const project = packProject();
    try {
      project.write('packs/stubborn/package.json', JSON.stringify({ name: 'stubborn', version: '1.0.0', type: 'module', exports: './plugin.mjs' }));
      project.write(
        'packs/stubborn/plugin.mjs',
        `import { z } from 'zod';\nimport { defineActionKind } from '@agentctl/sdk';\nexport default defineActionKind({ version: '1.0.0', hostRange: '*', name: 'stubborn.wait', description: 'Waits 3 s whatever its signal says, then fails.', actionSchema: z.strictObject({}), inputSchema: z.strictObject({}), effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' }, async dispatch() { await new Promise((done) => setTimeout(done, 3000)); throw new Error('gave up'); } });\n`,
      );
      writeConfig(project, { packs: ['./packs/stubborn'] });
      const text = document({ action: { kind: 'stubborn.wait' }, tool: { timeoutSeconds: 1 } });
      const failed = errorDocument(runCli(['run', project.write('wf.yaml', text), '--db', project.db, '--output', 'json'], { cwd: project.dir, env: baseEnv() }), 4);
      const found = diagnosticWithCode(failed, 'AGENTCTL_E_TASK_TIMEOUT');
      expect(found.message).to.contain('tool work_tool (action work) exceeded its timeoutSeconds of 1s').and.to.contain('gave up');
    } finally {
      project.cleanup();
    }
  });
});
