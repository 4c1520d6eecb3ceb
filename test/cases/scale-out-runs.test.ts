// `run --stage prepare` and `run --shard I/N --from PREPARE`: the prepare stage runs only what the items need, a shard
// reuses it by the reuse proofs of repair and runs only its items; every bad combination is refused, nothing written.
import { readFileSync, existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, runCli } from '../support/cli.js';
import { errorDocument, outcome, rows, runCount, unique, useWorkspace, workflow } from './helpers.js';
import { fanoutWorkflow, ITEMS } from './scale-out-workflow.js';

describe('scale-out: the prepare stage and shards', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[], env = baseEnv()) => runCli([...args, '--db', ws().db, '--output', 'json'], { env });
  const log = (name: string) => (existsSync(ws().file(`log/${name}.txt`)) ? readFileSync(ws().file(`log/${name}.txt`), 'utf8').trim().split('\n') : []);
  const prepare = (text = fanoutWorkflow()) => {
    const file = ws().write('fanout.yaml', text);
    return { file, runId: outcome(cli(['run', file, '--stage', 'prepare']), 0).data.runId as string };
  };
  const stageOf = (runId: string) => JSON.parse(String(rows(ws().db, 'SELECT stage_json FROM runs WHERE id = ?', runId)[0]!.stage_json));

  it('--stage prepare runs only the tasks the items need, records its stage, ends succeeded with output {}; inspect shows the stage', () => {
    const file = ws().write('fanout.yaml', fanoutWorkflow());
    const done = outcome(cli(['run', file, '--stage', 'prepare']), 0);
    expect(done.data).to.deep.include({ state: 'succeeded', output: {}, tasks: { setup: 'succeeded' } });
    expect(log('setup')).to.deep.equal(['setup']);
    expect(log('items')).to.deep.equal([]);
    const stage = stageOf(done.data.runId);
    expect(stage).to.deep.include({ stage: 'prepare', fanout: 'each', shard: null, shards: null, items: [], taskIds: ['setup'] });
    expect(stage.planDigest).to.equal(outcome(runCli(['plan', file, '--output', 'json']), 0).data.planDigest);
    const inspected = outcome(cli(['inspect', done.data.runId]), 0);
    expect(inspected.data.run.stage).to.deep.equal(stage);
    expect(inspected.data.run.plan.tasks).to.have.length(23);
    expect(runCli(['inspect', done.data.runId, '--db', ws().db]).stdout).to.contain('stage prepare of fan-out each: 1 tasks');
    // An ordinary run has no stage.
    const whole = outcome(cli(['run', file]), 0);
    expect(outcome(cli(['inspect', whole.data.runId]), 0).data.run.stage).to.equal(null);
    // runs list names each run's stage.
    const listed = outcome(cli(['runs', 'list']), 0).data.runs;
    expect(listed.map((run: any) => [run.runId, run.stage])).to.deep.equal([
      [whole.data.runId, null],
      [done.data.runId, { stage: 'prepare', shard: null, shards: null }],
    ]);
    const shard = outcome(cli(['run', file, '--shard', '1/2', '--from', done.data.runId]), 0).data.runId as string;
    expect(runCli(['runs', 'list', '--db', ws().db]).stdout).to.contain(`${shard}  fanout  succeeded`).and.to.match(/ shard 1\/2\n/);
  });

  it('shards reuse the prepare run (no credential needed for it) and run only their items, each exactly once', () => {
    const { file, runId } = prepare();
    const shards = [0, 1, 2].map((index) => outcome(cli(['run', file, '--shard', `${index}/3`, '--from', runId]), 0).data);
    expect(log('setup')).to.have.length(1);
    expect([...log('items')].sort()).to.deep.equal([...ITEMS].sort());
    expect(shards[0]).to.deep.include({ state: 'succeeded', output: {}, mode: 'shard', sourceRunId: runId });
    const first = shards[0]!.runId as string;
    expect(stageOf(first)).to.deep.include({ stage: 'shard', fanout: 'each', shard: 0, shards: 3, items: [0, 3] });
    const tasks = rows(ws().db, 'SELECT task_id, disposition FROM tasks WHERE run_id = ? ORDER BY position', first);
    expect(tasks[0]).to.deep.equal({ task_id: 'setup', disposition: 'reused' });
    expect(tasks.slice(1).every((task) => task.disposition === 'executed')).to.equal(true);
    expect(tasks).to.have.length(9);
    expect(rows(ws().db, "SELECT mode, source_run_id FROM run_lineage WHERE run_id = ?", first)[0]).to.deep.equal({ mode: 'shard', source_run_id: runId });
    expect(rows(ws().db, 'SELECT COUNT(*) AS n FROM effects WHERE run_id = ? AND task_id = ?', first, 'setup')[0]!.n).to.equal(0);
    // A shard with no item succeeds at once, with the prepare task reused.
    const empty = outcome(cli(['run', file, '--shard', '6/7', '--from', runId]), 0).data;
    expect(empty.tasks).to.deep.equal({ setup: 'succeeded' });
    expect(log('items')).to.have.length(5);
  });

  it('each stage resolves only its own credentials; no secret value reaches the ledger or the output', () => {
    const file = ws().write('fanout.yaml', fanoutWorkflow({ secrets: true }));
    const [setupSecret, itemSecret] = [unique('setupcanary'), unique('itemcanary')];
    const prepared = cli(['run', file, '--stage', 'prepare'], baseEnv({ SCALE_SETUP_TOKEN: setupSecret }));
    const runId = outcome(prepared, 0).data.runId as string;
    // The shard needs the items' credential and not the prepare task's: it is reused.
    const missing = errorDocument(cli(['run', file, '--shard', '0/2', '--from', runId], baseEnv({ SCALE_SETUP_TOKEN: setupSecret })), 4);
    expect(JSON.stringify(missing.diagnostics)).to.contain('SCALE_ITEM_TOKEN');
    const shard = cli(['run', file, '--shard', '0/2', '--from', runId], baseEnv({ SCALE_ITEM_TOKEN: itemSecret }));
    expect(outcome(shard, 0).data.state).to.equal('succeeded');
    expect(log('items')).to.deep.equal(['alpha', 'gamma', 'epsilon']);
    for (const path of [ws().db, `${ws().db}-wal`].filter(existsSync)) {
      const bytes = readFileSync(path);
      expect(bytes.includes(setupSecret), path).to.equal(false);
      expect(bytes.includes(itemSecret), path).to.equal(false);
    }
    for (const text of [prepared.stdout, prepared.stderr, shard.stdout, shard.stderr]) expect(text).to.not.contain(setupSecret).and.not.contain(itemSecret);
  });

  it('a workflow with no shardable fan-out, --stage other than prepare, and --stage with --shard are exit 2; nothing is written', () => {
    const single = ws().write('single.yaml', workflow({ actions: { set: { kind: 'builtin.assign' } }, tasks: [{ id: 'only', uses: 'action:set' }] }));
    const none = errorDocument(cli(['run', single, '--stage', 'prepare']), 2);
    expect(none.diagnostics[0].code).to.equal('AGENTCTL_E_NOT_SHARDABLE');
    expect(none.error.message).to.contain('(no_fanout)');
    const file = ws().write('fanout.yaml', fanoutWorkflow());
    expect(errorDocument(cli(['run', file, '--stage', 'gather']), 2).diagnostics[0].code).to.equal('AGENTCTL_E_USAGE');
    expect(errorDocument(cli(['run', file, '--stage', 'prepare', '--shard', '0/2']), 2).error.message).to.contain('--stage and --shard cannot be combined');
    expect(errorDocument(cli(['run', file, '--stage', 'prepare', '--fanout', 'summary']), 2).diagnostics[0].code).to.equal('AGENTCTL_E_FANOUT_NOT_FOUND');
    expect(errorDocument(cli(['run', file, '--fanout', 'each']), 2).error.message).to.contain('without --stage or --shard');
    expect(existsSync(ws().db)).to.equal(false);
  });

  it('a malformed --shard, I >= N, a missing --from, and a --from that is no usable prepare run are refused; no run is added', () => {
    const { file, runId } = prepare();
    for (const bad of ['x', '1', '2/2', '0/0', '0/257', '1.0/2']) expect(errorDocument(cli(['run', file, '--shard', bad, '--from', runId]), 2).diagnostics[0].code, bad).to.equal('AGENTCTL_E_SHARDS_INVALID');
    expect(errorDocument(cli(['run', file, '--shard', '0/2']), 2).error.message).to.contain('--shard needs --from');
    const whole = outcome(cli(['run', file]), 0).data.runId as string;
    const invalid = (args: string[], text: string) => {
      const refused = errorDocument(cli(args), 2);
      expect(refused.diagnostics[0].code).to.equal('AGENTCTL_E_STAGE_SOURCE_INVALID');
      expect(refused.error.message).to.contain(text);
    };
    const count = runCount(ws().db);
    invalid(['run', file, '--shard', '0/2', '--from', whole], 'is not a prepare run');
    const other = ws().write('other.yaml', fanoutWorkflow({ items: ['one', 'two'] }));
    invalid(['run', other, '--shard', '0/2', '--from', runId], 'ran another workflow or plan');
    // The prepare run of a workflow with two fan-outs, cut at the other one.
    const twoFanouts = ws().write('twofan.yaml', workflow({
      policy: { processAllowlist: ['sh'], approval: 'never' },
      actions: { say: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'echo "$0"'] } },
      tasks: [
        { id: 'small', uses: 'action:say', foreach: { items: ['a', 'b'] }, with: { args: ['${{ vars.item }}'] } },
        { id: 'large', uses: 'action:say', foreach: { items: ['a', 'b', 'c'] }, with: { args: ['${{ vars.item }}'] } },
      ],
    }));
    const small = outcome(cli(['run', twoFanouts, '--stage', 'prepare', '--fanout', 'small']), 0).data.runId as string;
    invalid(['run', twoFanouts, '--shard', '0/2', '--from', small], 'was cut at fan-out small, this shard at large');
    expect(outcome(cli(['run', twoFanouts, '--shard', '0/2', '--from', small, '--fanout', 'small']), 0).data.state).to.equal('succeeded');
    // A prepare run that did not succeed.
    const failing = ws().write('failing.yaml', fanoutWorkflow({ checkedSetup: true }));
    ws().write('fail-setup', '');
    const failed = errorDocument(cli(['run', failing, '--stage', 'prepare']), 4).error.runId as string;
    invalid(['run', failing, '--shard', '0/2', '--from', failed], 'is failed');
    expect(runCount(ws().db)).to.equal(count + 3);
  });

  it('a prepare task that fails a reuse proof blocks the shard: exit 3 AGENTCTL_E_REPAIR_BLOCKED, nothing written', () => {
    const { file, runId } = prepare();
    const db = new Database(ws().db);
    db.prepare("UPDATE tasks SET output_json = '{\"tampered\":true}' WHERE run_id = ? AND task_id = 'setup'").run(runId);
    db.close();
    const count = runCount(ws().db);
    const blocked = errorDocument(cli(['run', file, '--shard', '0/2', '--from', runId]), 3);
    expect(blocked.diagnostics[0]).to.deep.include({ code: 'AGENTCTL_E_REPAIR_BLOCKED', taskId: 'setup' });
    expect(blocked.diagnostics[0].message).to.contain('output_digest_mismatch');
    expect(runCount(ws().db)).to.equal(count);
    expect(log('items')).to.deep.equal([]);
  });

  it('a prepare task that failed in a prepare run that went on is not run again by a shard: the shard is refused', () => {
    const file = ws().write(
      'continue.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        actions: { check: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'mkdir -p log && echo "$0" >> log/checked.txt && test "$0" != setup'] } },
        tasks: [
          { id: 'setup', uses: 'action:check', failure: 'continue', with: { args: ['setup'] } },
          { id: 'each', uses: 'action:check', needs: ['setup'], foreach: { items: ['a', 'b'] }, with: { args: ['${{ vars.item }}'] } },
        ],
      }),
    );
    const prepared = outcome(cli(['run', file, '--stage', 'prepare']), 0).data;
    expect(prepared.tasks).to.deep.equal({ setup: 'failed' });
    const count = runCount(ws().db);
    const refused = errorDocument(cli(['run', file, '--shard', '0/2', '--from', prepared.runId]), 2);
    expect(refused.diagnostics[0].code).to.equal('AGENTCTL_E_STAGE_SOURCE_INVALID');
    expect(refused.error.message).to.contain('prepare task setup is failed there');
    expect(runCount(ws().db)).to.equal(count);
    expect(log('checked')).to.deep.equal(['setup']);
  });
});
