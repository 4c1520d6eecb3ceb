// Budgets of a scale-out run: a shard reserves against its share of what prepare left (by its items), the gather
// against what the prepare and shard runs left; wall time applies to each stage's run whole.
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { errorDocument, outcome, useWorkspace } from './helpers.js';
import { fanoutWorkflow } from './scale-out-workflow.js';

describe('scale-out: budgets', () => {
  const state = useWorkspace();
  const cli = (args: string[]) => runCli([...args, '--db', state.ws.db, '--output', 'json']);
  const budgetOf = (runId: string) => outcome(cli(['inspect', runId]), 0).data;

  it('a shard gets (limit - prepare used) x its items / all items, at least 1; too small a share refuses its effect; the gather gets the rest', () => {
    const file = state.ws.write('fanout.yaml', fanoutWorkflow({ budgets: { maxProcessOutputBytes: 400, maxWallTimeSeconds: 600 }, outputLimit: 100, concurrency: 1 }));
    const prepare = outcome(cli(['run', file, '--stage', 'prepare']), 0).data.runId as string;
    const prepared = budgetOf(prepare);
    expect(prepared.run.stage).to.not.have.property('budgets');
    const used = prepared.budget.usage.processOutputBytes.used as number;
    expect(used).to.equal('setup\n'.length);
    // One item of five: floor(394 / 5) = 78 bytes, less than one process reserves (100): refused before it starts.
    const starved = errorDocument(cli(['run', file, '--shard', '0/5', '--from', prepare]), 4);
    expect(starved.error.message).to.contain('processOutputBytes');
    const starvedRun = budgetOf(starved.error.runId);
    expect(starvedRun.run.stage.budgets).to.deep.equal({ maxProcessOutputBytes: Math.floor((400 - used) / 5), maxWallTimeSeconds: 600 });
    expect(starvedRun.budget.limits).to.deep.equal(starvedRun.run.stage.budgets);
    // Three items and two of five: enough.
    const shards = [0, 1].map((index) => outcome(cli(['run', file, '--shard', `${index}/2`, '--from', prepare]), 0).data.runId as string);
    const [first, second] = shards.map(budgetOf);
    expect(first!.run.stage.budgets.maxProcessOutputBytes).to.equal(Math.floor(((400 - used) * 3) / 5));
    expect(second!.run.stage.budgets.maxProcessOutputBytes).to.equal(Math.floor(((400 - used) * 2) / 5));
    const gathered = outcome(cli(['runs', 'gather', file, '--from', prepare, '--from', shards[0]!, '--from', shards[1]!]), 0).data;
    const spent = used + first!.budget.usage.processOutputBytes.used + second!.budget.usage.processOutputBytes.used;
    expect(budgetOf(gathered.runId).run.stage.budgets).to.deep.equal({ maxProcessOutputBytes: 400 - spent, maxWallTimeSeconds: 600 });
  });

  it('the gather checks the sum of every stage against the limits: over, its own reservation fails as usual', () => {
    // Five items of 61 bytes of output each: the shards fit their shares, and what is left is less than the 70 bytes
    // the gather's one process reserves (a whole run of this workflow is refused at the same task).
    const items = ['a', 'b', 'c', 'd', 'e'].map((letter) => letter.repeat(60));
    const file = state.ws.write('fanout.yaml', fanoutWorkflow({ items, budgets: { maxProcessOutputBytes: 350 }, outputLimit: 70, concurrency: 1 }));
    const prepare = outcome(cli(['run', file, '--stage', 'prepare']), 0).data.runId as string;
    for (const index of [0, 1]) outcome(cli(['run', file, '--shard', `${index}/2`, '--from', prepare]), 0);
    const refused = errorDocument(cli(['runs', 'gather', file]), 4);
    expect(refused.diagnostics[0].code).to.equal('AGENTCTL_E_BUDGET_EXCEEDED');
    expect(refused.error.message).to.contain('processOutputBytes');
    const gathered = budgetOf(refused.error.runId);
    expect(gathered.run.stage.budgets).to.deep.equal({ maxProcessOutputBytes: 350 - 6 - 5 * 61 });
    expect(gathered.run.state).to.equal('failed');
  });
});
