// Recovery of the same run: approvals, resume, reconciliation of effects in doubt, the run lease, and the driver's
// sliding window with ordered commit. Real CLI, real files, a real database.
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCli, startCli, workspace } from '../support/cli.js';
import { appendLine, diagnosticWithCode, errorDocument, finished, interruptedAtSecondTask, liveProcessesWith, outcome, rows, unique, waitFor, workflow } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;

const SECRET = 'token-Sx7q2wPz9';

/** A task that appends its line to out.txt through /bin/sh. */
const append = appendLine;

const lines = (ws: Workspace) => (existsSync(ws.file('out.txt')) ? readFileSync(ws.file('out.txt'), 'utf8').split('\n').filter(Boolean) : []);

describe('recovery: approvals and resume', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    // The default policy pauses for every process in a non-interactive run.
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], writableRoots: ['.'], environmentAllowlist: ['TOKEN'] },
        actions: { one: { ...append('one'), env: { TOKEN: { env: 'RECOVERY_TOKEN' } } } },
        tasks: [{ id: 'one', uses: 'action:one' }],
      }),
    );
  });
  afterEach(() => ws.cleanup());
  const cli = (...args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ RECOVERY_TOKEN: SECRET, USER: 'dana' }) });

  function pause(): { runId: string; approval: any } {
    const paused = outcome(cli('run', ws.file('wf.yaml')), 3);
    expect(paused.data.state).to.equal('paused');
    const listed = outcome(cli('approvals', 'list', paused.data.runId), 0);
    expect(listed.kind).to.equal('ApprovalList');
    expect(listed.data).to.have.length(1);
    return { runId: paused.data.runId, approval: listed.data[0] };
  }

  it('approve, then resume: the effect runs exactly once, with the decision recorded; the run succeeds (exit 0)', () => {
    const { runId, approval } = pause();
    const effect = rows(ws.db, 'SELECT id FROM effects')[0].id as string;
    expect(approval).to.deep.include({ status: 'pending', state: 'pending', taskId: 'one', effectId: effect, operation: 'process.exec', runId });
    // Deterministic from the effect id, and the input is shown with its secret redacted.
    expect(approval.approvalId).to.match(/^apr_[0-9a-f]{24}$/);
    expect(approval.input.env.TOKEN.secret).to.deep.equal({ env: 'RECOVERY_TOKEN' });
    expect(JSON.stringify(approval.input)).to.not.contain(SECRET);
    expect(lines(ws)).to.deep.equal([]);

    const decided = outcome(cli('approvals', 'approve', approval.approvalId, '--reason', 'reviewed'), 0);
    expect(decided.data).to.deep.include({ approvalId: approval.approvalId, status: 'approved', actor: 'dana', decisionReason: 'reviewed' });
    expect(decided.data.decidedAt).to.be.a('string');

    const resumed = outcome(cli('resume', runId), 0);
    expect(resumed.kind).to.equal('RunOutcome');
    expect(resumed.data).to.deep.include({ runId, state: 'succeeded', tasks: { one: 'succeeded' } });
    expect(lines(ws)).to.deep.equal(['one']);
    expect(rows(ws.db, 'SELECT id, state FROM effects')).to.deep.equal([{ id: effect, state: 'succeeded' }]);
    const types = rows(ws.db, 'SELECT type FROM audit_events ORDER BY seq').map((row) => row.type);
    expect(types.slice(types.indexOf('run.paused'))).to.deep.equal(['run.paused', 'approval.approved', 'run.resumed', 'task.running', 'effect.requested', 'effect.started', 'effect.succeeded', 'task.succeeded', 'run.succeeded']);

    // A decision is recorded once, and a finished run is not resumed again.
    diagnosticWithCode(errorDocument(cli('approvals', 'reject', approval.approvalId, '--reason', 'late'), 2), 'AGENTCTL_E_APPROVAL_NOT_PENDING');
    diagnosticWithCode(errorDocument(cli('resume', runId), 2), 'AGENTCTL_E_RUN_NOT_RESUMABLE');
    expect(lines(ws)).to.deep.equal(['one']);
  });

  it('reject, then resume: exit 4, the task and run fail, the effect never ran', () => {
    const { runId, approval } = pause();
    outcome(cli('approvals', 'reject', approval.approvalId, '--reason', 'not today', '--actor', 'lee'), 0);
    const failed = errorDocument(cli('resume', runId), 4);
    expect(failed.error.runId).to.equal(runId);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_APPROVAL_REJECTED').taskId).to.equal('one');
    expect(lines(ws)).to.deep.equal([]);
    expect(rows(ws.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'failed' }]);
    expect(rows(ws.db, 'SELECT state FROM tasks')).to.deep.equal([{ state: 'failed' }]);
    expect(rows(ws.db, `SELECT COUNT(*) AS n FROM audit_events WHERE type = 'effect.started'`)).to.deep.equal([{ n: 0 }]);
    expect(rows(ws.db, 'SELECT state, actor, decision_reason FROM approvals')).to.deep.equal([{ state: 'rejected', actor: 'lee', decision_reason: 'not today' }]);
  });

  it('resume of a run still waiting pauses again (exit 3); bad approval commands are refused with their codes', () => {
    const { runId, approval } = pause();
    const again = outcome(cli('resume', runId), 3);
    expect(again.data.state).to.equal('paused');
    diagnosticWithCode(again, 'AGENTCTL_E_APPROVAL_PENDING');
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM approvals')).to.deep.equal([{ n: 1 }]);
    diagnosticWithCode(errorDocument(cli('approvals', 'approve', approval.approvalId), 2), 'AGENTCTL_E_USAGE');
    diagnosticWithCode(errorDocument(cli('approvals', 'approve', approval.approvalId, '--reason', '  '), 2), 'AGENTCTL_E_USAGE');
    diagnosticWithCode(errorDocument(cli('approvals', 'approve', 'apr_nope', '--reason', 'x'), 2), 'AGENTCTL_E_APPROVAL_NOT_FOUND');
    diagnosticWithCode(errorDocument(cli('resume', 'run_nope'), 2), 'AGENTCTL_E_RUN_NOT_FOUND');
    expect(lines(ws)).to.deep.equal([]);
  });

  it('two concurrent resumes of one run: one proceeds, the other exits 5 with AGENTCTL_E_RUN_LEASED', async () => {
    ws.write('wf.yaml', workflow({ policy: { processAllowlist: ['sh'], writableRoots: ['.'] }, actions: { one: append('one', 'while [ ! -f go ]; do sleep 0.1; done; ') }, tasks: [{ id: 'one', uses: 'action:one' }] }));
    const { runId, approval } = pause();
    outcome(cli('approvals', 'approve', approval.approvalId, '--reason', 'ok'), 0);
    const first = startCli(['resume', runId, '--db', ws.db, '--output', 'json'], { cwd: ws.dir });
    const done = finished(first);
    await waitFor('the first resume to start the effect', () => rows(ws.db, `SELECT state FROM effects WHERE state = 'started'`).length === 1);
    const second = errorDocument(cli('resume', runId), 5);
    diagnosticWithCode(second, 'AGENTCTL_E_RUN_LEASED');
    // The first resume's effect waits for this file, so the second one met the lease however slowly it started.
    ws.write('go', '');
    const result = await done;
    expect(outcome(result, 0).data.state).to.equal('succeeded');
    expect(lines(ws)).to.deep.equal(['one']);
  });
});

describe('recovery: effects in doubt', () => {
  let ws: Workspace;
  afterEach(() => ws.cleanup());
  const cli = (...args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir });

  it('SIGTERM mid-run (exit 130); resume refuses the uncertain effect (exit 3); reconcile not-applied, resume: a is not repeated, b gets attempt 2', async () => {
    ws = workspace();
    const cancelled = await interruptedAtSecondTask(ws);
    const runId = cancelled.data.runId as string;
    expect(cancelled.data.tasks).to.deep.equal({ a: 'succeeded', b: 'cancelled' });

    const listed = outcome(cli('effects', 'list', runId), 0);
    expect(listed.kind).to.equal('EffectList');
    const doubtful = (listed.data.effects as any[]).filter((effect) => effect.inDoubt);
    expect(doubtful.map((effect) => [effect.taskId, effect.state])).to.deep.equal([['b', 'uncertain']]);
    const refused = errorDocument(cli('resume', runId), 3);
    expect(diagnosticWithCode(refused, 'AGENTCTL_E_EFFECT_UNRECONCILED').message).to.contain(doubtful[0].effectId);

    // The operator checks the file: b's line is not there.
    expect(lines(ws)).to.deep.equal(['a']);
    const reconciled = outcome(cli('effects', 'reconcile', doubtful[0].effectId, '--status', 'not-applied', '--reason', 'no b line in out.txt', '--actor', 'ops'), 0);
    expect(reconciled.data).to.deep.include({ status: 'not_applied', actor: 'ops', reason: 'no b line in out.txt' });
    expect(reconciled.data.effect).to.deep.include({ reconciled: 'not_applied', inDoubt: false });
    // Append-only and never contradicted.
    diagnosticWithCode(errorDocument(cli('effects', 'reconcile', doubtful[0].effectId, '--status', 'applied', '--reason', 'changed my mind'), 2), 'AGENTCTL_E_RECONCILIATION_REFUSED');
    diagnosticWithCode(errorDocument(cli('effects', 'reconcile', listed.data.effects[0].effectId, '--status', 'applied', '--reason', 'x'), 2), 'AGENTCTL_E_RECONCILIATION_REFUSED');
    expect(rows(ws.db, 'SELECT outcome, actor, reason FROM reconciliations')).to.deep.equal([{ outcome: 'not_applied', actor: 'ops', reason: 'no b line in out.txt' }]);

    ws.write('go', '');
    const resumed = outcome(cli('resume', runId), 0);
    expect(resumed.data).to.deep.include({ state: 'succeeded', tasks: { a: 'succeeded', b: 'succeeded' } });
    expect(lines(ws)).to.deep.equal(['a', 'b']);
    expect(rows(ws.db, 'SELECT task_id, attempt, state FROM effects ORDER BY task_id, attempt')).to.deep.equal([
      { task_id: 'a', attempt: 1, state: 'succeeded' },
      { task_id: 'b', attempt: 1, state: 'uncertain' },
      { task_id: 'b', attempt: 2, state: 'succeeded' },
    ]);
    const inspected = outcome(cli('effects', 'inspect', doubtful[0].effectId), 0);
    expect(inspected.data.reconciliations.map((item: any) => item.outcome)).to.deep.equal(['not_applied']);
  });

  it('a run whose process was killed (SIGKILL) is taken over by resume: the started effect is named (exit 3), then reconciled and resumed', async () => {
    ws = workspace();
    const marker = unique('killed');
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], writableRoots: ['.'], approval: 'never' },
        actions: { a: append('a'), b: { ...append('b', 'test -f go || sleep 30; '), args: ['-c', 'test -f go || sleep 30; echo b >> out.txt', marker] } },
        tasks: [{ id: 'a', uses: 'action:a' }, { id: 'b', uses: 'action:b', needs: ['a'] }],
      }),
    );
    const child = startCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { cwd: ws.dir });
    const done = finished(child);
    await waitFor('task b to start its effect', () => rows(ws.db, `SELECT state FROM effects WHERE task_id = 'b' AND state = 'started'`).length === 1);
    child.kill('SIGKILL');
    await done;
    // The orphaned shell of the killed run is the operator's to stop.
    for (const orphan of liveProcessesWith(marker)) process.kill(orphan.pid, 'SIGKILL');
    const runId = rows(ws.db, 'SELECT id FROM runs')[0].id as string;
    expect(outcome(cli('runs', 'list'), 0).data.runs[0]).to.deep.include({ runId, state: 'running', liveness: 'interrupted' });
    const effect = rows(ws.db, `SELECT id FROM effects WHERE task_id = 'b'`)[0].id as string;
    expect(diagnosticWithCode(errorDocument(cli('resume', runId), 3), 'AGENTCTL_E_EFFECT_UNRECONCILED').message).to.contain(`${effect} (process.exec, task b, started)`);
    outcome(cli('effects', 'reconcile', effect, '--status', 'not-applied', '--reason', 'no b line'), 0);
    ws.write('go', '');
    expect(outcome(cli('resume', runId), 0).data.state).to.equal('succeeded');
    expect(lines(ws)).to.deep.equal(['a', 'b']);
    const resumed = rows(ws.db, `SELECT data_json FROM audit_events WHERE type = 'run.resumed'`).map((row) => JSON.parse(row.data_json).from);
    expect(resumed).to.deep.equal(['running']);
    // The dead owner's started effect is now uncertain, with its reconciliation.
    expect(rows(ws.db, `SELECT state FROM effects WHERE id = ?`, effect)).to.deep.equal([{ state: 'uncertain' }]);
  });

  it('an effect reconciled applied with a result is not dispatched again: resume continues with the supplied result', async () => {
    ws = workspace();
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], writableRoots: ['.'], approval: 'never' },
        outputs: { said: '${{ tasks.b.output.stdout }}' },
        actions: { b: append('b', 'test -f go || sleep 30; ') },
        tasks: [{ id: 'b', uses: 'action:b' }],
      }),
    );
    const child = startCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { cwd: ws.dir });
    const done = finished(child);
    await waitFor('task b to start its effect', () => rows(ws.db, `SELECT state FROM effects WHERE state = 'started'`).length === 1);
    child.kill('SIGTERM');
    const runId = outcome(await done, 130).data.runId as string;
    const effectId = rows(ws.db, 'SELECT id FROM effects')[0].id as string;
    ws.write('result.json', JSON.stringify({ exitCode: 0, stdout: 'done by hand\n', stderr: '' }));
    outcome(cli('effects', 'reconcile', effectId, '--status', 'applied', '--reason', 'appended by hand', '--result-file', ws.file('result.json')), 0);
    ws.write('go', '');
    const resumed = outcome(cli('resume', runId), 0);
    expect(resumed.data.output).to.deep.equal({ said: 'done by hand\n' });
    expect(lines(ws)).to.deep.equal([]);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 1 }]);
  });
});

describe('run driver: sliding window and ordered commit', () => {
  let ws: Workspace;
  afterEach(() => ws.cleanup());

  it('8 independent tasks at maxConcurrency 4 overlap in time, never more than 4 at once, and commit in plan order', () => {
    ws = workspace();
    const ids = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
    // Uneven durations: a sliding window keeps every slot busy; the commit order must still be the plan order.
    const seconds = [0.6, 0.2, 0.4, 0.2, 0.3, 0.2, 0.5, 0.2];
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sleep'], approval: 'never' },
        runtime: { maxConcurrency: 4 },
        actions: Object.fromEntries(ids.map((id, index) => [id, { kind: 'builtin.shell.exec', command: '/bin/sleep', args: [String(seconds[index])] }])),
        tasks: ids.map((id) => ({ id, uses: `action:${id}` })),
      }),
    );
    const result = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(Object.values(result.data.tasks)).to.deep.equal(ids.map(() => 'succeeded'));
    const effects = rows(ws.db, 'SELECT task_id, started_at, finished_at FROM effects');
    const spans = effects.map((row) => ({ id: row.task_id as string, start: Date.parse(row.started_at), end: Date.parse(row.finished_at) }));
    const concurrentAt = (instant: number) => spans.filter((span) => span.start <= instant && instant < span.end).length;
    const peak = Math.max(...spans.map((span) => concurrentAt(span.start)));
    expect(peak, JSON.stringify(spans)).to.be.within(2, 4);
    const committed = rows(ws.db, `SELECT task_id FROM audit_events WHERE type = 'task.succeeded' ORDER BY seq`).map((row) => row.task_id);
    expect(committed).to.deep.equal(ids);
  });
});
