// The cut of a compiled plan for scale-out: prepare, items, gather, the reason a plan cannot be split, the assignment.
import { expect } from 'chai';
import { stringify } from 'yaml';
import type { CompiledPlan } from '@agentctl/sdk';
import { compileText } from '../../core/compiler/compile.js';
import { cutPlan, stageTaskIds } from '../../core/compiler/stages.js';
import { gatherBudgets, shardBudgets } from '../../core/runner/stage.js';
import { composeHost } from '../../core/cli/composition.js';

const host = composeHost();
const actions = { set: { kind: 'builtin.assign' } };
const chain = {
  version: '1.0.0',
  inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
  outputs: { last: '${{ tasks.second.output }}' },
  tasks: [
    { id: 'first', uses: 'action:set', with: { value: '${{ inputs.item }}' } },
    { id: 'second', uses: 'action:set', needs: ['first'], with: { value: '${{ tasks.first.output }}' } },
  ],
};

async function compiled(tasks: unknown[], extra: Record<string, unknown> = {}): Promise<CompiledPlan> {
  const text = stringify({ apiVersion: 'agentctl.dev/v1', kind: 'Workflow', metadata: { name: 'cut' }, spec: { actions, ...extra, tasks } });
  return (await compileText(host, 'cut.yaml', text)).plan;
}

const ids = (plan: CompiledPlan, prefix: string) => plan.tasks.map((task) => task.id).filter((id) => id.startsWith(prefix));

describe('the cut of a plan into prepare, items and gather', () => {
  it('foreach: what the items need is prepare, each child is an item, the aggregate, what follows it and an unrelated task are gather', async () => {
    const plan = await compiled([
      { id: 'setup', uses: 'action:set', with: { value: 1 } },
      { id: 'lonely', uses: 'action:set', with: { value: 2 } },
      { id: 'each', uses: 'action:set', needs: ['setup'], foreach: { items: ['a', 'b', 'c'] }, with: { value: '${{ vars.item }}' } },
      { id: 'post', uses: 'action:set', needs: ['each'] },
    ]);
    const stages = cutPlan(plan);
    const children = ids(plan, 'each--');
    expect(stages).to.deep.include({ shardable: true, reason: null, fanout: { taskId: 'each', construct: 'foreach', items: 3 }, prepare: ['setup'], gather: ['lonely', 'each', 'post'], shards: null, assignment: null });
    expect(stages.items).to.deep.equal(children.map((id, index) => ({ index, taskIds: [id] })));
  });

  it('matrix: one item per cell, nothing to prepare', async () => {
    const plan = await compiled([{ id: 'grid', uses: 'action:set', matrix: { axes: { os: ['linux', 'macos'], mode: ['debug', 'release'] } }, with: { value: '${{ vars.matrix.os }}' } }]);
    const stages = cutPlan(plan);
    expect(stages.fanout).to.deep.equal({ taskId: 'grid', construct: 'matrix', items: 4 });
    expect(stages.prepare).to.deep.equal([]);
    expect(stages.items.map((item) => item.taskIds)).to.deep.equal(ids(plan, 'grid--').map((id) => [id]));
    expect(stages.gather).to.deep.equal(['grid']);
  });

  it('a per-item chain (a sub-workflow invoked per item) stays with its item', async () => {
    const plan = await compiled(
      [
        { id: 'setup', uses: 'action:set', with: { value: 1 } },
        { id: 'each', uses: 'workflow:chain', needs: ['setup'], foreach: { items: ['a', 'b', 'c'] }, with: { item: '${{ vars.item }}' } },
        { id: 'post', uses: 'action:set', needs: ['each'] },
      ],
      { subworkflows: { chain } },
    );
    const stages = cutPlan(plan);
    expect(stages.prepare).to.deep.equal(['setup']);
    expect(stages.gather).to.deep.equal(['each', 'post']);
    expect(stages.items).to.have.length(3);
    for (const item of stages.items) {
      expect(item.taskIds).to.have.length(4);
      const child = plan.tasks.find((task) => task.expansion?.parent === 'each' && task.expansion.index === item.index && !task.id.includes('--inputs-'))!;
      expect(item.taskIds).to.deep.equal(ids(plan, `${child.id}`));
    }
    expect(stageTaskIds(plan, stages, 'shard', { index: 1, count: 2 })).to.deep.equal(['setup', ...stages.items[1]!.taskIds]);
    expect(stageTaskIds(plan, stages, 'prepare')).to.deep.equal(['setup']);
    expect(stageTaskIds(plan, stages, 'gather')).to.have.length(plan.tasks.length);
  });

  it('two expansions: the one with the most items is cut (a tie goes to the first), --fanout picks the other', async () => {
    const plan = await compiled([
      { id: 'small', uses: 'action:set', foreach: { items: ['a', 'b'] } },
      { id: 'large', uses: 'action:set', foreach: { items: ['a', 'b', 'c'] } },
      { id: 'twin', uses: 'action:set', foreach: { items: ['x', 'y', 'z'] } },
    ]);
    expect(cutPlan(plan).fanout).to.deep.equal({ taskId: 'large', construct: 'foreach', items: 3 });
    const picked = cutPlan(plan, { fanout: 'small' });
    expect(picked.fanout).to.deep.equal({ taskId: 'small', construct: 'foreach', items: 2 });
    expect(picked.gather).to.include.members(['small', 'large', 'twin', ...ids(plan, 'large--')]);
  });

  it('the assignment: item i goes to shard i mod N, and a shard may get none', async () => {
    const plan = await compiled([{ id: 'each', uses: 'action:set', foreach: { items: ['a', 'b', 'c'] } }]);
    const children = ids(plan, 'each--');
    expect(cutPlan(plan, { shards: 2 }).assignment).to.deep.equal([
      { shard: 0, items: [0, 2], taskIds: [children[0], children[2]] },
      { shard: 1, items: [1], taskIds: [children[1]] },
    ]);
    const wide = cutPlan(plan, { shards: 5 });
    expect(wide.shards).to.equal(5);
    expect(wide.assignment!.map((shard) => shard.items)).to.deep.equal([[0], [1], [2], [], []]);
  });

  it('each reason a plan cannot be split has its code', async () => {
    const none = cutPlan(await compiled([{ id: 'only', uses: 'action:set' }]));
    expect(none).to.deep.include({ shardable: false, fanout: null, prepare: [], items: [], gather: ['only'], assignment: null });
    expect(none.reason!.code).to.equal('no_fanout');
    const single = await compiled([{ id: 'each', uses: 'action:set', foreach: { items: ['a'] } }]);
    expect(cutPlan(single).reason!.code).to.equal('single_item');
    const two = await compiled([{ id: 'each', uses: 'action:set', foreach: { items: ['a', 'b'] } }, { id: 'other', uses: 'action:set' }]);
    const missing = cutPlan(two, { fanout: 'other' });
    expect(missing.reason).to.deep.include({ code: 'fanout_not_found' });
    expect(missing.reason!.message).to.contain('this plan has: each');
    // A compile tap may rewrite the plan: a child that waits for its sibling cannot run apart from it.
    const [first, second] = two.tasks.filter((task) => task.expansion?.parent === 'each');
    const tied = { ...two, tasks: two.tasks.map((task) => (task === second ? { ...task, needs: [first!.id] } : task)) } as CompiledPlan;
    expect(cutPlan(tied).reason!.code).to.equal('items_depend_on_each_other');
  });

  it('budgets: a shard gets its items\' share of what prepare left (rounded down, at least 1 with items), the gather the rest; wall time stays whole', () => {
    const budgets = { maxTasks: 10, maxProcessOutputBytes: 1000, maxWallTimeSeconds: 60 };
    const prepared = { tasks: { used: 1, reserved: 0 }, processOutputBytes: { used: 100, reserved: 0 } };
    expect(shardBudgets(budgets, prepared, 2, 5)).to.deep.equal({ maxTasks: 3, maxProcessOutputBytes: 360, maxWallTimeSeconds: 60 });
    expect(shardBudgets(budgets, prepared, 1, 50)).to.deep.equal({ maxTasks: 1, maxProcessOutputBytes: 18, maxWallTimeSeconds: 60 });
    expect(shardBudgets(budgets, prepared, 0, 5)).to.deep.equal({ maxTasks: 0, maxProcessOutputBytes: 0, maxWallTimeSeconds: 60 });
    expect(shardBudgets(undefined, prepared, 2, 5)).to.equal(undefined);
    expect(gatherBudgets(budgets, [prepared, { tasks: { used: 4, reserved: 0 } }, { tasks: { used: 6, reserved: 0 } }])).to.deep.equal({ maxTasks: 0, maxProcessOutputBytes: 900, maxWallTimeSeconds: 60 });
  });
});
