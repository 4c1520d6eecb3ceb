// Scale-out with one ledger per stage, as a Job, a matrix or a DAG runs it: `run --shard I/N --from LEDGER` takes the
// prepare run in from the prepare stage's ledger, `runs gather --from LEDGER...` takes in every shard's, and the same
// shard run again continues its earlier run instead of doing its items twice.
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { runCli, startCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, useWorkspace, workflow } from './helpers.js';
import { fanoutWorkflow, ITEMS } from './scale-out-workflow.js';

describe('scale-out: one ledger per stage', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const ledger = (name: string) => join(ws().dir, 'state', name, 'runtime.db');
  const cli = (args: string[], db: string) => runCli([...args, '--db', db, '--output', 'json']);
  const log = (name: string) => (existsSync(ws().file(`log/${name}.txt`)) ? readFileSync(ws().file(`log/${name}.txt`), 'utf8').trim().split('\n') : []);
  const prepared = (options: Parameters<typeof fanoutWorkflow>[0] = {}) => {
    const file = ws().write('fanout.yaml', fanoutWorkflow(options));
    const prepare = outcome(cli(['run', file, '--stage', 'prepare'], ledger('prepare')), 0).data.runId as string;
    return { file, prepare };
  };
  const shard = (file: string, index: number, count: number) => cli(['run', file, '--shard', `${index}/${count}`, '--from', ledger('prepare')], ledger(`shard-${index}`));

  it('prepare, 3 shards and the gather, each in its own ledger: the output equals the whole run, every item ran once', () => {
    const { file, prepare } = prepared();
    const shards = [0, 1, 2].map((index) => outcome(shard(file, index, 3), 0).data);
    expect(shards.map((run) => run.sourceRunId)).to.deep.equal([prepare, prepare, prepare]);
    // Each shard ledger holds the imported prepare run and its own shard run, nothing of the other shards.
    for (const [index, run] of shards.entries()) {
      expect(rows(ledger(`shard-${index}`), 'SELECT id FROM runs ORDER BY created_at').map((row) => row.id)).to.deep.equal([prepare, run.runId]);
    }
    const gathered = outcome(cli(['runs', 'gather', file, ...[0, 1, 2].flatMap((index) => ['--from', ledger(`shard-${index}`)])], ledger('gather')), 0).data;
    expect(gathered).to.deep.include({ state: 'succeeded', mode: 'gather', sourceRunId: prepare, shardRunIds: shards.map((run) => run.runId) });
    const single = workspace();
    try {
      const whole = outcome(runCli(['run', single.write('fanout.yaml', fanoutWorkflow()), '--db', single.db, '--output', 'json']), 0).data;
      expect(gathered.output).to.deep.equal(whole.output);
    } finally {
      single.cleanup();
    }
    expect([...log('items')].sort()).to.deep.equal([...ITEMS].sort());
    expect(log('setup')).to.have.length(1);
    expect(log('summary')).to.have.length(1);
    // The gather ledger holds every stage's run, linked; inspect names where each imported run came from.
    const inGather = rows(ledger('gather'), 'SELECT id, mode FROM runs ORDER BY created_at');
    expect(inGather.map((row) => row.mode)).to.deep.equal(['execute', 'shard', 'shard', 'shard', 'gather']);
    const inspected = outcome(cli(['inspect', shards[1].runId], ledger('gather')), 0).data;
    expect(inspected.importedFrom.sourcePath).to.contain('shard-1');
    expect(rows(ledger('gather'), "SELECT COUNT(*) AS n FROM effects WHERE task_id LIKE '%--mark' AND state = 'succeeded'")[0]!.n).to.equal(ITEMS.length);
    // Gathering again from the same ledgers imports nothing new and makes a second gather run of the same output.
    const again = outcome(cli(['runs', 'gather', file, ...[0, 1, 2].flatMap((index) => ['--from', ledger(`shard-${index}`)])], ledger('gather')), 0).data;
    expect(again.output).to.deep.equal(gathered.output);
    expect(log('summary')).to.have.length(2);
  });

  it('the same shard run again: a succeeded shard is reported as it is, a failed one runs only its failed items again', () => {
    const { file } = prepared({ failing: 'beta' });
    writeFileSync(ws().file('fail-beta'), '');
    const first = outcome(shard(file, 0, 2), 0).data;
    const again = outcome(shard(file, 0, 2), 0).data;
    expect(again).to.deep.include({ runId: first.runId, state: 'succeeded', alreadySucceeded: true });
    // beta is item 1: shard 1/2 holds beta and delta; its check fails while fail-beta exists.
    const failed = JSON.parse(shard(file, 1, 2).stderr);
    expect(failed.error.exitCode).to.equal(4);
    expect(log('items').filter((line) => line === 'beta')).to.have.length(1);
    unlinkSync(ws().file('fail-beta'));
    const retried = outcome(shard(file, 1, 2), 0).data;
    expect(retried.runId).to.not.equal(failed.error.runId);
    expect(retried.mode).to.equal('retry');
    expect(retried.sourceRunId).to.equal(failed.error.runId);
    // beta's mark (which succeeded) is reused, not done again; its failed check and delta, which never started, ran.
    expect(log('items').filter((line) => line === 'beta')).to.have.length(1);
    expect(log('items').filter((line) => line === 'delta')).to.have.length(1);
    expect(log('checked').filter((line) => line === 'beta')).to.have.length(1);
    const gathered = outcome(cli(['runs', 'gather', file, '--from', ledger('shard-0'), '--from', ledger('shard-1')], ledger('gather')), 0).data;
    expect(gathered.shardRunIds).to.deep.equal([first.runId, retried.runId]);
  });

  it('refusals: a ledger without the prepare run, a shard two ledgers both bring, a missing shard, a ledger of another family or of nothing of this plan; a refused gather leaves no ledger', () => {
    const { file, prepare } = prepared();
    // A shard from a ledger that holds no prepare run of this plan: the shard's new ledger is removed again.
    const other = workspace();
    try {
      const otherFile = other.write('fanout.yaml', fanoutWorkflow({ items: ['one', 'two'] }));
      outcome(runCli(['run', otherFile, '--stage', 'prepare', '--db', other.db, '--output', 'json']), 0);
      const refused = errorDocument(runCli(['run', file, '--shard', '0/2', '--from', other.db, '--db', ledger('stray'), '--output', 'json']), 2);
      expect(diagnosticWithCode(refused, 'AGENTCTL_E_STAGE_SOURCE_INVALID').message).to.contain('no succeeded prepare run of this plan');
      expect(existsSync(join(ws().dir, 'state', 'stray'))).to.equal(false);
      outcome(shard(file, 0, 2), 0);
      outcome(shard(file, 1, 2), 0);
      const gatherFrom = (...names: string[]) => cli(['runs', 'gather', file, ...names.flatMap((name) => ['--from', name])], ledger('gather'));
      // Shard 0 run a second time in another ledger: two runs of one shard.
      outcome(cli(['run', file, '--shard', '0/2', '--from', ledger('prepare')], ledger('shard-0-again')), 0);
      expect(diagnosticWithCode(errorDocument(gatherFrom(ledger('shard-0'), ledger('shard-0-again'), ledger('shard-1')), 2), 'AGENTCTL_E_GATHER_INCOMPLETE').message).to.match(/shard 0\/2 ran twice/);
      expect(existsSync(ledger('gather'))).to.equal(false);
      expect(diagnosticWithCode(errorDocument(gatherFrom(ledger('shard-0')), 2), 'AGENTCTL_E_GATHER_INCOMPLETE').message).to.contain('shard 1/2 has no succeeded run');
      expect(existsSync(ledger('gather'))).to.equal(false);
      // A ledger of another family (another prepare ledger's): refused before anything is written.
      expect(diagnosticWithCode(errorDocument(gatherFrom(ledger('shard-0'), ledger('shard-1'), other.db), 5), 'AGENTCTL_E_LEDGER_FAMILY').message).to.contain('not one ledger family');
      expect(existsSync(ledger('gather'))).to.equal(false);
      // A ledger of the same family that holds nothing of this plan (only another workflow's prepare run).
      const otherPlan = outcome(cli(['run', ws().write('other.yaml', fanoutWorkflow({ items: ['one', 'two'] })), '--stage', 'prepare'], ledger('prepare')), 0).data.runId as string;
      outcome(cli(['runs', 'import', ledger('prepare'), '--run', otherPlan], ledger('unrelated')), 0);
      expect(diagnosticWithCode(errorDocument(gatherFrom(ledger('shard-0'), ledger('shard-1'), ledger('unrelated')), 2), 'AGENTCTL_E_STAGE_SOURCE_INVALID').message).to.contain('holds no prepare or shard run of this plan');
      expect(existsSync(ledger('gather'))).to.equal(false);
      // The prepare ledger is a valid --from too: it brings the prepare run the shards already carry.
      expect(outcome(gatherFrom(ledger('prepare'), ledger('shard-0'), ledger('shard-1')), 0).data.sourceRunId).to.equal(prepare);
    } finally {
      other.cleanup();
    }
  });
  it("a shard whose process died under another host's lease waits for the lease to lapse, then continues that run", async () => {
    const file = ws().write('slow.yaml', workflow({
      policy: { processAllowlist: ['sh'], writableRoots: ['log'], approval: 'never' },
      actions: { slow: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'mkdir -p log && echo "$0" >> log/started.txt && sleep 30'] }, set: { kind: 'builtin.assign' } },
      tasks: [
        { id: 'setup', uses: 'action:set', with: { value: 1 } },
        { id: 'each', uses: 'action:slow', needs: ['setup'], foreach: { items: ['a', 'b'] }, with: { args: ['${{ vars.item }}'] } },
      ],
    }, 'slow'));
    outcome(cli(['run', file, '--stage', 'prepare'], ledger('prepare')), 0);
    const args = ['run', file, '--shard', '0/1', '--from', ledger('prepare'), '--db', ledger('shard-0')];
    const child = startCli([...args, '--output', 'json'], { cwd: ws().dir });
    while (!existsSync(ws().file('log/started.txt'))) await delay(50);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    // The lease now names a process of another host, as a replacement pod sees its predecessor's: it lapses in 3 s.
    const handle = new Database(ledger('shard-0'));
    handle.prepare("UPDATE runs SET lease_owner = 'other-pod:1:nonce', lease_expires_at = ? WHERE mode = 'shard'").run(Date.now() + 3_000);
    handle.close();
    const started = Date.now();
    const again = runCli([...args, '--output', 'human'], { cwd: ws().dir });
    expect(again.stderr, again.stderr).to.contain('is held by other-pod:1:nonce; waiting up to 65 s for its lease to lapse');
    expect(Date.now() - started).to.be.at.least(2_500);
    // The run is continued, not run anew: the effect the kill cut short is in doubt, and the resume says so (not leased).
    expect(again.status, again.stderr).to.equal(3);
    expect(again.stderr).to.contain('AGENTCTL_E_EFFECT_UNRECONCILED');
    expect(rows(ledger('shard-0'), "SELECT COUNT(*) AS n FROM runs WHERE mode = 'shard'")[0]!.n).to.equal(1);
  });
});
