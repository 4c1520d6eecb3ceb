// `plan FILE --stages [--shards N] [--fanout TASK]`: the cut in the Plan document and in human output, the shard
// count an emitter reads, and every bad count or fan-out refused with its code before anything is written.
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { errorDocument, outcome, useWorkspace, workflow } from './helpers.js';
import { fanoutWorkflow } from './scale-out-workflow.js';

describe('scale-out: plan --stages', () => {
  const state = useWorkspace();
  const file = (text = fanoutWorkflow()) => state.ws.write('fanout.yaml', text);
  const json = (args: string[]) => runCli([...args, '--output', 'json']);

  it('the Plan document gets stages (prepare, items with their chains, gather) and, with --shards, the assignment', () => {
    const plain = outcome(json(['plan', file()]), 0);
    expect(plain.data).to.not.have.property('stages');
    const { data } = outcome(json(['plan', file(), '--stages']), 0);
    const children = data.order.filter((id: string) => /^each--\d{4}-[0-9a-f]{8}$/.test(id));
    expect(data.stages).to.deep.include({ shardable: true, reason: null, fanout: { taskId: 'each', construct: 'foreach', items: 5 }, prepare: ['setup'], gather: ['each', 'summary'], shards: null, assignment: null });
    expect(data.stages.items.map((item: any) => item.taskIds.at(-1))).to.deep.equal(children);
    expect(data.stages.items[0].taskIds.map((id: string) => id.replace(children[0], 'C'))).to.deep.equal(['C--inputs-d1c5f46b', 'C--mark', 'C--check', 'C']);
    const sharded = outcome(json(['plan', file(), '--shards', '2']), 0).data.stages;
    expect(sharded.shards).to.equal(2);
    expect(sharded.assignment.map((shard: any) => [shard.shard, shard.items])).to.deep.equal([[0, [0, 2, 4]], [1, [1, 3]]]);
    expect(sharded.assignment[1].taskIds).to.deep.equal([...data.stages.items[1].taskIds, ...data.stages.items[3].taskIds]);
  });

  it('human output shows the three stages and which items each shard runs; a shard with none says so', () => {
    const result = runCli(['plan', file(), '--stages', '--shards', '7']);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('stages: cut at foreach each (5 items)');
    expect(result.stdout).to.contain('  prepare (1): setup');
    expect(result.stdout).to.contain('  gather (2): each, summary');
    expect(result.stdout).to.contain('    shard 1/7: items 1');
    expect(result.stdout).to.contain('    shard 6/7: no item (succeeds at once)');
  });

  it('a plan that cannot be split says why in stages.reason; --fanout picks another expansion', () => {
    const single = workflow({ actions: { set: { kind: 'builtin.assign' } }, tasks: [{ id: 'only', uses: 'action:set' }] });
    const none = outcome(json(['plan', file(single), '--stages']), 0).data.stages;
    expect(none).to.deep.include({ shardable: false, fanout: null, items: [], assignment: null });
    expect(none.reason.code).to.equal('no_fanout');
    expect(runCli(['plan', file(single), '--stages']).stdout).to.contain('stages: not shardable (no_fanout)');
    const two = workflow({
      actions: { set: { kind: 'builtin.assign' } },
      tasks: [
        { id: 'small', uses: 'action:set', foreach: { items: ['a', 'b'] } },
        { id: 'large', uses: 'action:set', foreach: { items: ['a', 'b', 'c'] } },
      ],
    });
    expect(outcome(json(['plan', file(two), '--stages']), 0).data.stages.fanout.taskId).to.equal('large');
    expect(outcome(json(['plan', file(two), '--stages', '--fanout', 'small']), 0).data.stages.fanout).to.deep.equal({ taskId: 'small', construct: 'foreach', items: 2 });
  });

  it('--shards 0, 257 and x, and a --fanout that is no expansion, are exit 2 with their codes', () => {
    for (const bad of ['0', '257', 'x', '1.5', '-1']) {
      const refused = errorDocument(json(['plan', file(), '--stages', '--shards', bad]), 2);
      expect(refused.diagnostics[0].code, bad).to.equal('AGENTCTL_E_SHARDS_INVALID');
    }
    const notFound = errorDocument(json(['plan', file(), '--stages', '--fanout', 'summary']), 2);
    expect(notFound.diagnostics[0].code).to.equal('AGENTCTL_E_FANOUT_NOT_FOUND');
    expect(notFound.error.message).to.contain('this plan has: each');
  });

  it('--shards feeds --emit: the emitter reads plan.stages', () => {
    const out = state.ws.file('emitted');
    outcome(json(['plan', file(), '--shards', '3', '--emit', 'json', '--out', out]), 0);
    const [name] = readdirSync(out);
    const emitted = JSON.parse(readFileSync(`${out}/${name}`, 'utf8'));
    const plan = emitted.data ?? emitted;
    expect(plan.stages.shards).to.equal(3);
    expect(plan.stages.assignment.map((shard: any) => shard.items)).to.deep.equal([[0, 3], [1, 4], [2]]);
  });
});
