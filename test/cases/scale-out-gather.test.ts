// `runs gather FILE`: the prepare run and one succeeded run per shard become one run whose output is the
// single-machine run's; every item ran exactly once, or the gather is refused naming the shard. inspect, report,
// replay and repair treat the gathered run like any other.
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { errorDocument, outcome, rows, runCount, useWorkspace, workflow } from './helpers.js';
import { fanoutWorkflow, ITEMS } from './scale-out-workflow.js';

describe('scale-out: runs gather', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[]) => runCli([...args, '--db', ws().db, '--output', 'json']);
  const log = (name: string, root = ws()) => (existsSync(root.file(`log/${name}.txt`)) ? readFileSync(root.file(`log/${name}.txt`), 'utf8').trim().split('\n') : []);
  const staged = (shards: number) => {
    const file = ws().write('fanout.yaml', fanoutWorkflow());
    const prepare = outcome(cli(['run', file, '--stage', 'prepare']), 0).data.runId as string;
    const shardRuns = Array.from({ length: shards }, (_, index) => cli(['run', file, '--shard', `${index}/${shards}`, '--from', prepare]));
    return { file, prepare, shardRuns };
  };

  it('prepare + 3 shards + gather: the output equals the whole run, every fan-out effect is recorded once across the shards', () => {
    const { file, prepare, shardRuns } = staged(3);
    const shards = shardRuns.map((result) => outcome(result, 0).data.runId as string);
    const gathered = outcome(cli(['runs', 'gather', file]), 0).data;
    expect(gathered).to.deep.include({ state: 'succeeded', mode: 'gather', sourceRunId: prepare, shardRunIds: shards });
    const single = workspace();
    try {
      const wholeFile = single.write('fanout.yaml', fanoutWorkflow());
      const whole = outcome(runCli(['run', wholeFile, '--db', single.db, '--output', 'json']), 0).data;
      expect(gathered.output).to.deep.equal(whole.output);
      expect(gathered.tasks).to.deep.equal(whole.tasks);
      expect([...log('items')].sort()).to.deep.equal([...log('items', single)].sort());
    } finally {
      single.cleanup();
    }
    expect([...log('items')].sort()).to.deep.equal([...ITEMS].sort());
    expect(log('setup')).to.have.length(1);
    expect(log('summary')).to.have.length(1);
    const marks = rows(ws().db, "SELECT run_id, task_id FROM effects WHERE task_id LIKE '%--mark' AND state = 'succeeded'");
    expect(marks).to.have.length(5);
    expect(new Set(marks.map((row) => row.task_id)).size).to.equal(5);
    expect(marks.every((row) => shards.includes(String(row.run_id)))).to.equal(true);
    expect(rows(ws().db, 'SELECT task_id FROM effects WHERE run_id = ?', gathered.runId)).to.deep.equal([{ task_id: 'summary' }]);
    // Each reused task names the run that executed it.
    const reuse = rows(ws().db, 'SELECT task_id, source_run_id FROM task_reuse WHERE run_id = ?', gathered.runId);
    expect(reuse.find((row) => row.task_id === 'setup')!.source_run_id).to.equal(prepare);
    const [firstItemMark] = reuse.filter((row) => String(row.task_id).startsWith('each--0000') && String(row.task_id).endsWith('--mark'));
    expect(firstItemMark!.source_run_id).to.equal(shards[0]);
    const lineage = rows(ws().db, 'SELECT mode, source_run_id, plan_json FROM run_lineage WHERE run_id = ?', gathered.runId)[0]!;
    expect(lineage).to.deep.include({ mode: 'gather', source_run_id: prepare });
    expect(JSON.parse(String(lineage.plan_json)).shardRunIds).to.deep.equal(shards);
  });

  it('inspect, report, replay and repair work on the gathered run', () => {
    const { file, shardRuns } = staged(2);
    for (const result of shardRuns) outcome(result, 0);
    const gathered = outcome(cli(['runs', 'gather', file]), 0).data;
    const inspected = outcome(cli(['inspect', gathered.runId]), 0).data;
    expect(inspected.run.stage).to.deep.include({ stage: 'gather', fanout: 'each', shard: null, shards: 2, items: [0, 1, 2, 3, 4] });
    expect(inspected.lineage.mode).to.equal('gather');
    expect(inspected.run.output).to.deep.equal(gathered.output);
    const report = runCli(['report', gathered.runId, '--format', 'markdown', '--db', ws().db]);
    expect(report.status, report.stderr).to.equal(0);
    expect(report.stdout).to.contain(gathered.runId);
    const replayed = outcome(cli(['replay', gathered.runId]), 0).data;
    expect(replayed.output).to.deep.equal(gathered.output);
    const repaired = outcome(cli(['repair', file, gathered.runId, '--from', 'summary', '--restart-successful']), 0).data;
    expect(repaired).to.deep.include({ state: 'succeeded', output: gathered.output });
    expect(log('summary')).to.have.length(2);
    expect(log('items')).to.have.length(5);
  });

  it('a missing, failed, duplicated or foreign shard is refused with a code naming it; a retried shard is gathered', () => {
    const { file, prepare, shardRuns } = staged(3);
    const count = () => runCount(ws().db);
    const refused = (args: string[], code: string, text: string) => {
      const before = count();
      const document = errorDocument(cli(args), 2);
      expect(document.diagnostics[0].code).to.equal(code);
      expect(document.error.message).to.contain(text);
      expect(count()).to.equal(before);
    };
    const shards = shardRuns.map((result) => outcome(result, 0).data.runId as string);
    refused(['runs', 'gather', file, '--from', prepare, '--from', shards[0]!, '--from', shards[1]!], 'AGENTCTL_E_GATHER_INCOMPLETE', 'shard 2/3 has no succeeded run');
    // The same shard run again in this ledger reports its earlier run; a second run of it made in another ledger and
    // imported here is a duplicate.
    expect(outcome(cli(['run', file, '--shard', '0/3', '--from', prepare]), 0).data).to.deep.include({ runId: shards[0], alreadySucceeded: true });
    const duplicate = ws().file('state/duplicate/runtime.db');
    const again = outcome(runCli(['run', file, '--shard', '0/3', '--from', ws().db, '--db', duplicate, '--output', 'json']), 0).data.runId as string;
    outcome(cli(['runs', 'import', duplicate, '--run', again]), 0);
    refused(['runs', 'gather', file, '--from', shards[0]!, '--from', again, '--from', shards[1]!, '--from', shards[2]!], 'AGENTCTL_E_GATHER_INCOMPLETE', 'shard 0/3 is named twice');
    const other = outcome(cli(['run', file, '--shard', '0/2', '--from', prepare]), 0).data.runId as string;
    refused(['runs', 'gather', file], 'AGENTCTL_E_GATHER_INCOMPLETE', 'different shard counts');
    refused(['runs', 'gather', file, '--from', other, '--from', shards[1]!], 'AGENTCTL_E_GATHER_INCOMPLETE', 'different shard counts');
    const whole = outcome(cli(['run', file]), 0).data.runId as string;
    refused(['runs', 'gather', file, '--from', whole], 'AGENTCTL_E_STAGE_SOURCE_INVALID', 'not a prepare or shard run');
    const elsewhere = ws().write('other.yaml', fanoutWorkflow({ items: ['one', 'two'] }));
    refused(['runs', 'gather', elsewhere], 'AGENTCTL_E_STAGE_SOURCE_INVALID', 'no succeeded prepare run of this plan');

    // A fresh start in another ledger: shard 1 fails, the gather names it, a retry of it is gathered.
    const second = workspace();
    try {
      const secondFile = second.write('fanout.yaml', fanoutWorkflow());
      const run = (args: string[]) => runCli([...args, '--db', second.db, '--output', 'json']);
      const secondPrepare = outcome(run(['run', secondFile, '--stage', 'prepare']), 0).data.runId as string;
      outcome(run(['run', secondFile, '--shard', '0/2', '--from', secondPrepare]), 0);
      second.write('fail-beta', '');
      const failed = errorDocument(run(['run', secondFile, '--shard', '1/2', '--from', secondPrepare]), 4).error.runId as string;
      const incomplete = errorDocument(run(['runs', 'gather', secondFile]), 2);
      expect(incomplete.diagnostics[0].code).to.equal('AGENTCTL_E_GATHER_INCOMPLETE');
      expect(incomplete.error.message).to.contain(`shard 1/2 has no succeeded run (run ${failed} is failed)`);
      expect(errorDocument(run(['runs', 'gather', secondFile, '--from', failed]), 2).error.message).to.contain(`shard 1/2 (run ${failed}) is failed`);
      unlinkSync(second.file('fail-beta'));
      const retried = outcome(run(['retry', secondFile, failed, '--failed']), 0).data.runId as string;
      const gathered = outcome(run(['runs', 'gather', secondFile]), 0).data;
      expect(gathered.state).to.equal('succeeded');
      expect(gathered.shardRunIds[1]).to.equal(retried);
      expect(log('items', second).filter((line) => line === 'beta')).to.have.length(1);
    } finally {
      second.cleanup();
    }
  });

  it('an item that failed in a shard that went on (failure: continue) is never run again by the gather: it names the task', () => {
    const file = ws().write(
      'continue.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        actions: { check: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'mkdir -p log && echo "$0" >> log/checked.txt && test "$0" != b'] } },
        tasks: [
          { id: 'each', uses: 'action:check', failure: 'continue', foreach: { items: ['a', 'b', 'c'] }, with: { args: ['${{ vars.item }}'] } },
          { id: 'after', uses: 'action:check', needs: ['each'], with: { args: ['z'] } },
        ],
      }),
    );
    const prepare = outcome(cli(['run', file, '--stage', 'prepare']), 0).data.runId as string;
    // The shard goes on past its failed item and ends succeeded, as a whole run of this workflow does.
    const went = outcome(cli(['run', file, '--shard', '1/2', '--from', prepare]), 0).data;
    expect(Object.values(went.tasks)).to.deep.equal(['failed']);
    outcome(cli(['run', file, '--shard', '0/2', '--from', prepare]), 0);
    const before = runCount(ws().db);
    const refused = errorDocument(cli(['runs', 'gather', file]), 2);
    expect(refused.diagnostics[0].code).to.equal('AGENTCTL_E_GATHER_INCOMPLETE');
    expect(refused.error.message).to.match(new RegExp(`task each--0001-[0-9a-f]{8} is failed in run ${went.runId}`));
    expect(runCount(ws().db)).to.equal(before);
    expect(log('checked').filter((line) => line === 'b')).to.have.length(1);
    expect(log('checked')).to.not.include('z');
  });
});
