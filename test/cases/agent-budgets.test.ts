// Agent budgets on the run's reservation ledger: a model request reserves its worst case before it is recorded and is
// settled to the reported usage; a refusal sends nothing, records budget.exceeded and fails the run.
import { expect } from 'chai';
import { stringify } from 'yaml';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows } from './helpers.js';
import { READ_TOOL } from '../support/agents.js';

type Workspace = ReturnType<typeof workspace>;

const twoTurns = { tools: ['read_note'], maxTurns: 2, providerOptions: { toolInput: { path: 'note.txt' }, finalText: 'done' } };

function document(budgets: Record<string, number>, agents: Record<string, Record<string, unknown>>, tasks: Record<string, unknown>[], runtime: Record<string, unknown> = {}) {
  return stringify({
    apiVersion: 'agentctl.dev/v1',
    kind: 'Workflow',
    metadata: { name: 'agent-budgets' },
    spec: {
      providers: { fake: { kind: 'fake' } },
      policy: { approval: 'never' },
      runtime: { budgets, ...runtime },
      tools: { read_note: READ_TOOL },
      agents: Object.fromEntries(Object.entries(agents).map(([name, fields]) => [name, { provider: 'fake', model: 'scripted', instructions: 'Answer.', ...fields }])),
      tasks,
    },
  });
}

describe('agent budgets', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    ws.write('note.txt', 'NOTE\n');
  });
  afterEach(() => ws.cleanup());
  const cli = (...args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv() });
  const runId = () => rows(ws.db, 'SELECT id FROM runs ORDER BY created_at DESC LIMIT 1')[0].id as string;
  const exceeded = () => rows(ws.db, "SELECT task_id, data_json FROM audit_events WHERE type = 'budget.exceeded' ORDER BY seq").map((row) => ({ taskId: row.task_id, ...JSON.parse(row.data_json) }));
  const modelRequests = () => rows(ws.db, "SELECT state FROM effects WHERE operation = 'model.request' ORDER BY rowid").map((row) => row.state);

  it('maxProviderRequests 1 with two turns: the second request is never recorded or sent, budget.exceeded names it, the run fails', () => {
    ws.write('wf.yaml', document({ maxProviderRequests: 1 }, { a: twoTurns }, [{ id: 'ask', uses: 'agent:a' }]));
    const failed = errorDocument(cli('run', ws.file('wf.yaml')), 4);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_BUDGET_EXCEEDED').message).to.contain('maxProviderRequests');
    expect(modelRequests()).to.deep.equal(['succeeded']);
    expect(exceeded()).to.have.length(1);
    expect(exceeded()[0]).to.include({ taskId: 'ask', dimension: 'providerRequests', field: 'maxProviderRequests', limit: 1, used: 1, requested: 1 });
    const inspected = outcome(cli('inspect', runId()), 0).data;
    expect(inspected.run.state).to.equal('failed');
    expect(inspected.budget.usage.providerRequests).to.deep.equal({ used: 1, reserved: 0, limit: 1 });
    expect(inspected.modelUsage).to.deep.equal({ providerRequests: 1, toolCalls: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });
  });

  it('two agent tasks side by side under maxProviderRequests 1: only one reserves, the other sends nothing', () => {
    ws.write('wf.yaml', document({ maxProviderRequests: 1 }, { a: { providerOptions: { delayMs: 300 } } }, [
      { id: 'left', uses: 'agent:a' },
      { id: 'right', uses: 'agent:a' },
    ], { maxConcurrency: 2 }));
    diagnosticWithCode(errorDocument(cli('run', ws.file('wf.yaml')), 4), 'AGENTCTL_E_BUDGET_EXCEEDED');
    expect(modelRequests()).to.deep.equal(['succeeded']);
    expect(outcome(cli('inspect', runId()), 0).data.budget.usage.providerRequests.used).to.equal(1);
  });

  it('maxToolCalls 1 across two agent tasks: the second call is refused before it runs', () => {
    ws.write('wf.yaml', document({ maxToolCalls: 1 }, { a: twoTurns }, [{ id: 'first', uses: 'agent:a' }, { id: 'second', uses: 'agent:a', needs: ['first'] }]));
    diagnosticWithCode(errorDocument(cli('run', ws.file('wf.yaml')), 4), 'AGENTCTL_E_BUDGET_EXCEEDED');
    expect(rows(ws.db, "SELECT task_id FROM effects WHERE operation = 'tool.call'").map((row) => row.task_id)).to.deep.equal(['first']);
    expect(exceeded()[0]).to.include({ taskId: 'second', dimension: 'toolCalls' });
  });

  it('maxOutputTokens below the agent maxOutputTokens: the first request cannot reserve its worst case and is never sent', () => {
    ws.write('wf.yaml', document({ maxOutputTokens: 100 }, { a: { maxOutputTokens: 200 } }, [{ id: 'ask', uses: 'agent:a' }]));
    const failed = errorDocument(cli('run', ws.file('wf.yaml')), 4);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_BUDGET_EXCEEDED').message).to.contain('maxOutputTokens');
    expect(modelRequests()).to.deep.equal([]);
  });

  it('a request reserves its worst case and is settled to the reported usage, which then refuses the next', () => {
    // Each answer reports 60 output tokens: the first reserves 64 and settles to 60; the second needs 64 of 100.
    ws.write('wf.yaml', document({ maxOutputTokens: 100 }, { a: { ...twoTurns, maxOutputTokens: 64, providerOptions: { ...twoTurns.providerOptions, usage: { inputTokens: 5, outputTokens: 60 } } } }, [{ id: 'ask', uses: 'agent:a' }]));
    diagnosticWithCode(errorDocument(cli('run', ws.file('wf.yaml')), 4), 'AGENTCTL_E_BUDGET_EXCEEDED');
    expect(exceeded()[0]).to.include({ dimension: 'outputTokens', used: 60, requested: 64, limit: 100 });
    expect(outcome(cli('inspect', runId()), 0).data.budget.usage.outputTokens).to.deep.equal({ used: 60, reserved: 0, limit: 100 });
  });

  it('maxCostMicrousd with a versioned pricing table: the priced worst case is reserved; a cheap enough run succeeds', () => {
    const pricing = { version: '2026-12', models: { 'fake/scripted': { inputMicrousdPerMillionTokens: 1_000_000, outputMicrousdPerMillionTokens: 2_000_000 } } };
    ws.write('wf.yaml', document({ maxCostMicrousd: 1_000_000 }, { a: { maxOutputTokens: 16 } }, [{ id: 'ask', uses: 'agent:a', with: { prompt: 'hi' } }], { pricing }));
    const result = outcome(cli('run', ws.file('wf.yaml')), 0);
    expect(result.data.usage).to.deep.equal({ providerRequests: 1, toolCalls: 0, inputTokens: 1, outputTokens: 1, totalTokens: 2 });
    const output = JSON.parse(rows(ws.db, "SELECT output_json FROM tasks WHERE task_id = 'ask'")[0].output_json);
    // 1 input token at 1 µ$/token plus 1 output token at 2 µ$/token.
    expect(output.usage.costMicrousd).to.equal(3);
    const inspected = outcome(cli('inspect', result.data.runId), 0).data.budget;
    expect(inspected.pricingVersion).to.equal('2026-12');
    expect(inspected.usage.costMicrousd).to.deep.equal({ used: 3, reserved: 0, limit: 1_000_000 });
    // A limit below the worst case of one request (16 output tokens at 2 µ$ each, plus the input bound) refuses it.
    ws.write('wf.yaml', document({ maxCostMicrousd: 40 }, { a: { maxOutputTokens: 16 } }, [{ id: 'ask', uses: 'agent:a', with: { prompt: 'hi' } }], { pricing }));
    diagnosticWithCode(errorDocument(cli('run', ws.file('wf.yaml')), 4), 'AGENTCTL_E_BUDGET_EXCEEDED');
    expect(exceeded().at(-1)).to.include({ dimension: 'costMicrousd' });
  });
});
