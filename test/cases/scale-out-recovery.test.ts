// A shard behaves like any run: an approval inside it pauses it and `resume` continues it in its own ledger, and a
// failed shard is retried with `retry --failed`, which runs only that shard's failed items again, within its stage.
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { errorDocument, outcome, rows, useWorkspace, workflow } from './helpers.js';
import { fanoutWorkflow } from './scale-out-workflow.js';

describe('scale-out: recovering a shard', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[]) => runCli([...args, '--db', ws().db, '--output', 'json']);
  const log = (name: string) => (existsSync(ws().file(`log/${name}.txt`)) ? readFileSync(ws().file(`log/${name}.txt`), 'utf8').trim().split('\n') : []);
  const stageOf = (runId: string) => JSON.parse(String(rows(ws().db, 'SELECT stage_json FROM runs WHERE id = ?', runId)[0]!.stage_json));

  it('an approval inside a shard pauses it (exit 3); once approved, resume runs the effect once and ends the shard succeeded', () => {
    const file = ws().write(
      'approve.yaml',
      workflow({
        policy: { processAllowlist: ['sh', 'mkdir'], approval: 'mutations' },
        actions: { set: { kind: 'builtin.assign' }, mark: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'mkdir -p log && echo "$0" >> log/items.txt'] } },
        tasks: [
          { id: 'setup', uses: 'action:set', with: { value: 'ready' } },
          { id: 'each', uses: 'action:mark', needs: ['setup'], foreach: { items: ['a', 'b', 'c'] }, with: { args: ['${{ vars.item }}'] } },
        ],
      }),
    );
    const prepare = outcome(cli(['run', file, '--stage', 'prepare']), 0).data.runId as string;
    const paused = outcome(cli(['run', file, '--shard', '1/3', '--from', prepare]), 3);
    expect(paused.data.state).to.equal('paused');
    const shard = paused.data.runId as string;
    expect(log('items')).to.deep.equal([]);
    const [approval] = rows(ws().db, "SELECT id FROM approvals WHERE run_id = ? AND state = 'pending'", shard);
    outcome(cli(['approvals', 'approve', approval!.id, '--reason', 'item b may be marked']), 0);
    const resumed = outcome(cli(['resume', shard]), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect(Object.keys(resumed.data.tasks)).to.have.length(2);
    expect(log('items')).to.deep.equal(['b']);
    expect(stageOf(shard)).to.deep.include({ stage: 'shard', shard: 1, shards: 3, items: [1] });
  });

  it('a failed shard is exit 4; retry --failed runs only its failed items again, keeps its stage, and reuses the rest', () => {
    const file = ws().write('fanout.yaml', fanoutWorkflow());
    const prepare = outcome(cli(['run', file, '--stage', 'prepare']), 0).data.runId as string;
    ws().write('fail-beta', '');
    const failed = errorDocument(cli(['run', file, '--shard', '1/2', '--from', prepare]), 4);
    const shard = failed.error.runId as string;
    expect(log('items')).to.include('beta');
    unlinkSync(ws().file('fail-beta'));
    const retried = outcome(cli(['retry', file, shard, '--failed']), 0);
    expect(retried.data).to.deep.include({ state: 'succeeded', mode: 'retry', sourceRunId: shard });
    // beta's mark happened once; its check ran again; delta ran once; no task of another shard or the gather ran.
    expect(log('items').filter((line) => line === 'beta')).to.have.length(1);
    expect(log('items').filter((line) => line === 'delta')).to.have.length(1);
    expect(log('items').filter((line) => !['beta', 'delta'].includes(line))).to.deep.equal([]);
    expect(log('checked').filter((line) => line === 'beta')).to.have.length(1);
    expect(log('summary')).to.deep.equal([]);
    const retry = retried.data.runId as string;
    expect(stageOf(retry)).to.deep.equal(stageOf(shard));
    const tasks = rows(ws().db, 'SELECT task_id, disposition FROM tasks WHERE run_id = ? ORDER BY position', retry);
    expect(tasks.map((task) => task.task_id)).to.deep.equal(stageOf(shard).taskIds);
    expect(tasks.find((task) => task.task_id === 'setup')!.disposition).to.equal('reused');
    expect(tasks.find((task) => /--check$/.test(String(task.task_id)) && String(task.task_id).startsWith('each--0001'))!.disposition).to.equal('executed');
    expect(tasks.find((task) => /--mark$/.test(String(task.task_id)) && String(task.task_id).startsWith('each--0001'))!.disposition).to.equal('reused');
  });
});
