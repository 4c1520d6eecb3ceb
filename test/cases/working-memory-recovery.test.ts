// Working memory across the run's life: commit in compiled order at concurrency, resume after a pause and after a
// SIGKILL, replay with zero effects, retry reuse, and no secret value in the ledger, its WAL or the output.
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, ROOT, runCli, startCli, workspace } from '../support/cli.js';
import { assertNoCanary, errorDocument, finished, outcome, rows, waitFor } from './helpers.js';
import { memoryWorkflow } from './memory-workflow.js';

const SECRET = 'canary-Mw7r2QxT9z';
const gate = (command: string) => ({ kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', command] });

describe('working memory: commit order and recovery', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const cli = (args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ CANARY: SECRET }) });
  const inspect = (runId: string) => outcome(cli(['inspect', runId]), 0).data;
  const byTask = (view: any) => Object.fromEntries(view.tasks.map((task: any) => [task.taskId, task]));

  it('at maxConcurrency 2 a fast later task waits: deltas commit in compiled order, each with its success', () => {
    const file = ws.write(
      'wf.yaml',
      memoryWorkflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        runtime: { maxConcurrency: 2 },
        actions: { slow: gate('sleep 1') },
        tasks: [
          { id: 'slow', uses: 'action:slow' },
          { id: 'after-slow', uses: 'action:remember', needs: ['slow'], with: { key: 'a', value: 1 } },
          { id: 'fast', uses: 'action:remember', with: { key: 'b', value: 2 } },
        ],
      }),
    );
    const plan = outcome(runCli(['plan', file, '--output', 'json'], { cwd: ws.dir }), 0).data;
    expect(plan.order).to.deep.equal(['slow', 'after-slow', 'fast']);
    const result = outcome(cli(['run', file]), 0);
    const view = inspect(result.data.runId);
    expect(view.checkpoints.map((checkpoint: any) => [checkpoint.taskId, checkpoint.state.memoryDelta ?? null])).to.deep.equal([['slow', null], ['after-slow', { a: 1 }], ['fast', { b: 2 }]]);
    const succeeded = view.audit.filter((event: any) => event.type === 'task.succeeded').map((event: any) => event.taskId);
    expect(succeeded).to.deep.equal(['slow', 'after-slow', 'fast']);
    expect(view.run.workingMemory).to.deep.equal({ a: 1, b: 2 });
    expect([byTask(view).fast.stateDelta, byTask(view).slow.stateDelta]).to.deep.equal([{ b: 2 }, null]);
    expect(byTask(view).fast.stateDeltaDigest).to.match(/^[0-9a-f]{64}$/);
  });

  it('with tasks at once, a snapshot holds what the task depends on, never an unordered task that happened to finish first', () => {
    const spec = (maxConcurrency: number) =>
      memoryWorkflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        runtime: { maxConcurrency },
        working: { k: 0 },
        actions: { slow: gate('sleep 1') },
        tasks: [
          { id: 'write', uses: 'action:remember', with: { key: 'k', value: 1 } },
          { id: 'slow', uses: 'action:slow' },
          { id: 'read', uses: 'action:set', needs: ['slow'], with: { seen: '${{ memory.k }}' } },
        ],
      });
    const seen = (maxConcurrency: number) => {
      const result = outcome(cli(['run', ws.write(`wf-${maxConcurrency}.yaml`, spec(maxConcurrency))]), 0);
      const view = inspect(result.data.runId);
      expect(view.run.workingMemory).to.deep.equal({ k: 1 });
      return byTask(view).read.output.output.seen;
    };
    // `write` committed long before `read` started in both runs; only one task at a time makes it part of the snapshot.
    expect([seen(2), seen(1)]).to.deep.equal([0, 1]);
  });

  it('a paused run resumed in another process reads the memory its committed tasks wrote', () => {
    const file = ws.write(
      'wf.yaml',
      memoryWorkflow({
        policy: { processAllowlist: ['sh'], writableRoots: ['.'] },
        working: { k: 0 },
        actions: { touch: gate('touch marker') },
        tasks: [
          { id: 'write', uses: 'action:remember', with: { key: 'k', value: 1 } },
          { id: 'touch', uses: 'action:touch', needs: ['write'] },
          { id: 'read', uses: 'action:set', needs: ['touch'], with: { seen: '${{ memory.k }}' } },
        ],
      }),
    );
    const paused = outcome(cli(['run', file]), 3);
    expect(inspect(paused.data.runId).run.workingMemory).to.deep.equal({ k: 1 });
    const [approval] = outcome(cli(['approvals', 'list', paused.data.runId]), 0).data;
    outcome(cli(['approvals', 'approve', approval.approvalId, '--reason', 'fine']), 0);
    expect(outcome(cli(['resume', paused.data.runId]), 0).data.state).to.equal('succeeded');
    const view = inspect(paused.data.runId);
    expect(byTask(view).read.output.output).to.deep.equal({ seen: 1 });
    expect(view.run.workingMemory).to.deep.equal({ k: 1 });
  });

  it('a task paused for approval keeps its snapshot: a later task that committed meanwhile does not change what it reads on resume', () => {
    const file = ws.write(
      'wf.yaml',
      memoryWorkflow({
        policy: { processAllowlist: ['sh'] },
        working: { k: 0 },
        actions: { say: gate('echo "$1"') },
        tasks: [
          { id: 'say', uses: 'action:say', with: { args: ['sh', 'k ${{ memory.k }}'] } },
          { id: 'later', uses: 'action:remember', with: { key: 'k', value: 2 } },
        ],
      }),
    );
    const paused = outcome(cli(['run', file]), 3);
    expect(paused.data.tasks).to.deep.equal({ say: 'waiting_for_approval', later: 'succeeded' });
    expect(inspect(paused.data.runId).run.workingMemory).to.deep.equal({ k: 2 });
    const [approval] = outcome(cli(['approvals', 'list', paused.data.runId]), 0).data;
    outcome(cli(['approvals', 'approve', approval.approvalId, '--reason', 'fine']), 0);
    expect(outcome(cli(['resume', paused.data.runId]), 0).data.state).to.equal('succeeded');
    const view = inspect(paused.data.runId);
    expect(byTask(view).say.output.stdout).to.equal('k 0\n');
    // The approved effect was found by id: the input rendered on resume is the one rendered before.
    expect(view.effects.filter((effect: any) => effect.taskId === 'say').map((effect: any) => effect.state)).to.deep.equal(['succeeded']);
    expect(view.run.workingMemory).to.deep.equal({ k: 2 });
  });

  it('after a SIGKILL, resume rebuilds the same memory from the ledger: the killed task runs again and reads it', async () => {
    const file = ws.write(
      'wf.yaml',
      memoryWorkflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        working: { k: 0 },
        actions: { wait: gate('test -f go || sleep 30') },
        tasks: [
          { id: 'write', uses: 'action:remember', with: { key: 'k', value: 'kept' } },
          { id: 'wait', uses: 'action:wait', needs: ['write'] },
          { id: 'read', uses: 'action:set', needs: ['wait'], with: { seen: '${{ memory.k }}' } },
          { id: 'again', uses: 'action:remember', needs: ['read'], with: { key: 'k', value: 'last' } },
        ],
      }),
    );
    const child = startCli(['run', file, '--db', ws.db, '--output', 'json'], { cwd: ws.dir });
    const done = finished(child);
    await waitFor('the wait task to start its effect', () => rows(ws.db, `SELECT state FROM effects WHERE task_id = 'wait' AND state = 'started'`).length === 1);
    child.kill('SIGKILL');
    await done;
    const [{ run_id: runId, id: effectId }] = rows(ws.db, `SELECT run_id, id FROM effects WHERE task_id = 'wait'`);
    expect(JSON.parse(rows(ws.db, 'SELECT memory_json FROM runs')[0].memory_json)).to.deep.equal({ k: 'kept' });
    outcome(cli(['effects', 'reconcile', effectId, '--status', 'not-applied', '--reason', 'the wait changed nothing']), 0);
    ws.write('go', '');
    expect(outcome(cli(['resume', runId]), 0).data.state).to.equal('succeeded');
    const view = inspect(runId);
    expect(byTask(view).read.output.output).to.deep.equal({ seen: 'kept' });
    expect(view.run.workingMemory).to.deep.equal({ k: 'last' });
    // The memory write was confirmed before the kill: it is reused, never recorded twice.
    expect(rows(ws.db, `SELECT COUNT(*) AS n FROM effects WHERE task_id = 'write'`)[0].n).to.equal(1);
  });

  it('replay reproduces the working memory and each task delta with zero effects', () => {
    const source = outcome(cli(['run', join(ROOT, 'test', 'compat', 'fixtures', 'reference', 'working-memory.yaml')]), 0);
    const replayed = outcome(cli(['replay', source.data.runId]), 0);
    const view = inspect(replayed.data.runId);
    expect(view.run).to.deep.include({ mode: 'replay', sourceRunId: source.data.runId, workingMemory: { counter: 1 } });
    expect(view.effects).to.deep.equal([]);
    expect(byTask(view).remember.stateDelta).to.deep.equal({ counter: 1 });
    expect(byTask(view).remember.stateDeltaDigest).to.equal(byTask(inspect(source.data.runId)).remember.stateDeltaDigest);
  });

  it('retry reuses a writer and a reader of memory.KEY: the delta is applied again in the derived run, which a fresh task reads', () => {
    const file = ws.write(
      'wf.yaml',
      memoryWorkflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        actions: { check: gate('test -f go') },
        tasks: [
          { id: 'write', uses: 'action:remember', with: { key: 'k', value: 'v' } },
          { id: 'use', uses: 'action:set', needs: ['write'], with: { seen: '${{ memory.k }}' } },
          { id: 'check', uses: 'action:check', needs: ['use'] },
          { id: 'read', uses: 'action:recall', needs: ['check'], with: { key: 'k' } },
        ],
      }),
    );
    const failed = errorDocument(cli(['run', file]), 4);
    ws.write('go', '');
    const retried = outcome(cli(['retry', file, failed.error.runId, '--failed']), 0);
    // `use` read memory.k in its with: its input renders again against its source snapshot, so it is reused too.
    expect(retried.data).to.deep.include({ state: 'succeeded', mode: 'retry', reused: ['write', 'use'] });
    const view = inspect(retried.data.runId);
    expect(view.run.workingMemory).to.deep.equal({ k: 'v' });
    expect(byTask(view).read.output).to.deep.equal({ status: 'unchanged', changed: false, value: 'v' });
    expect(view.checkpoints[0].state).to.deep.equal({ task: 'write', state: 'succeeded', disposition: 'reused', memoryDelta: { k: 'v' } });
    expect(view.effects.filter((effect: any) => effect.taskId === 'write')).to.deep.equal([]);
  });

  it('a secret value written to memory is redacted everywhere: the database, its WAL, stdout and stderr', () => {
    const file = ws.write(
      'wf.yaml',
      memoryWorkflow({
        policy: { processAllowlist: ['sh'], approval: 'never', environmentAllowlist: ['TOKEN'] },
        actions: { leak: { ...gate('printf %s "$TOKEN"'), env: { TOKEN: { env: 'CANARY' } } } },
        outputs: { kept: '${{ memory.leaked }}' },
        tasks: [
          { id: 'leak', uses: 'action:leak' },
          { id: 'keep', uses: 'action:remember', needs: ['leak'], with: { key: 'leaked', value: '${{ tasks.leak.output.stdout }}' } },
          { id: 'read', uses: 'action:recall', needs: ['keep'], with: { key: 'leaked' } },
        ],
      }),
    );
    const result = cli(['run', file]);
    const document = outcome(result, 0);
    const inspected = cli(['inspect', document.data.runId]);
    const human = runCli(['inspect', document.data.runId, '--db', ws.db], { cwd: ws.dir });
    expect(JSON.parse(inspected.stdout).data.run.workingMemory).to.deep.equal({ leaked: '[REDACTED]' });
    assertNoCanary(SECRET, ws.dir, result.stdout, result.stderr, inspected.stdout, inspected.stderr, human.stdout, human.stderr);
  });
});
