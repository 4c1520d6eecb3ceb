// What live progress shows, from a sequence of commit events: which tasks are in flight, the lines they settle into
// (the plain progress lines), and each frame's lines. The terminal side is tested on a real pty (live-progress.test.ts).
import { expect } from 'chai';
import { cut, elapsed, LiveTasks } from '../../core/cli/live-tasks.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const start = Date.UTC(2026, 0, 1);
const event = (type: string, taskId: string | undefined, ms: number, data: Record<string, unknown> = {}) => ({ type, runId: 'run_1', ...(taskId ? { taskId } : {}), at: at(ms), data: data as never });

describe('live tasks', () => {
  it('a task is live from task.running to its end, then settles into its progress line', () => {
    const tasks = new LiveTasks();
    expect(tasks.apply(event('task.running', 'build', 0))).to.deep.equal([]);
    expect(tasks.apply(event('effect.started', 'build', 5, { operation: 'process.exec' }))).to.deep.equal([]);
    expect(tasks.lines(start + 1_250, 80, 2)).to.deep.equal([{ text: '⠹ build running 1.3s', tone: 'running' }]);
    expect(tasks.apply(event('task.succeeded', 'build', 1_300, { attempt: 1, durationMs: 1_300 }))).to.deep.equal(['task succeeded build in 1300 ms']);
    expect(tasks.size).to.equal(0);
    expect(tasks.lines(start + 1_400, 80, 0)).to.deep.equal([]);
  });

  it('a retried task shows the failed attempt, then the running one, out of its plan’s maxAttempts', () => {
    const tasks = new LiveTasks();
    tasks.setMaxAttempts([{ id: 'flaky', retry: { maxAttempts: 3 } }]);
    tasks.apply(event('task.running', 'flaky', 0, { attempt: 1 }));
    expect(tasks.apply(event('task.retry_scheduled', 'flaky', 100, { attempt: 1, code: 'AGENTCTL_E_PROCESS_FAILED' }))).to.deep.equal(['task retry_scheduled flaky AGENTCTL_E_PROCESS_FAILED']);
    expect(tasks.lines(start + 300, 80, 0)[0]!.text).to.equal('⠋ flaky retry scheduled 0.2s (attempt 1/3 failed)');
    tasks.apply(event('task.running', 'flaky', 600, { attempt: 2 }));
    expect(tasks.lines(start + 700, 80, 0)[0]!.text).to.equal('⠋ flaky running 0.1s (attempt 2/3)');
    // Without the plan (a limit not known), the attempt alone.
    const unplanned = new LiveTasks();
    unplanned.apply(event('task.running', 'other', 0, { attempt: 2 }));
    expect(unplanned.lines(start, 80, 0)[0]!.text).to.equal('⠋ other running 0.0s (attempt 2)');
  });

  it('waiting for approval is its own tone; a parked task settles into its line when the run ends', () => {
    const tasks = new LiveTasks();
    tasks.apply(event('task.running', 'ask', 0));
    tasks.waiting('ask', start + 100);
    expect(tasks.lines(start + 2_100, 80, 0)).to.deep.equal([{ text: '? ask waiting for approval 2.0s', tone: 'waiting' }]);
    tasks.answered('ask');
    expect(tasks.lines(start + 2_200, 80, 0)).to.deep.equal([{ text: '⠋ ask running 2.2s', tone: 'running' }]);

    tasks.apply(event('task.running', 'deploy', 0));
    expect(tasks.apply(event('task.waiting_for_approval', 'deploy', 10, { attempt: 1, durationMs: 10, code: 'AGENTCTL_E_APPROVAL_PENDING' }))).to.deep.equal([]);
    tasks.answered('deploy');
    expect(tasks.lines(start + 1_010, 80, 0)[1]).to.deep.equal({ text: '? deploy waiting for approval 1.0s', tone: 'waiting' });
    expect(tasks.apply(event('run.paused', undefined, 20))).to.deep.equal(['task waiting_for_approval deploy in 10 ms AGENTCTL_E_APPROVAL_PENDING']);
    expect(tasks.size).to.equal(0);
  });

  it('plugin logs and policy denials print above the region; other events print nothing', () => {
    const tasks = new LiveTasks();
    expect(tasks.apply(event('plugin.log', 'build', 0, { kind: 'pack.x', level: 'info', message: '::error::hi\nthere' }))).to.deep.equal(['log build pack.x info: \\x3a:error::hi\\nthere']);
    expect(tasks.apply(event('policy.denied', 'build', 0, { operation: 'process.exec', code: 'AGENTCTL_E_POLICY_DENIED' }))).to.deep.equal(['policy denied build AGENTCTL_E_POLICY_DENIED']);
    expect(tasks.apply(event('run.started', undefined, 0, { workflow: 'w' }))).to.deep.equal([]);
  });

  it('at most ten lines (nine tasks and a count), each cut to the width', () => {
    const tasks = new LiveTasks();
    for (let index = 0; index < 12; index += 1) tasks.apply(event('task.running', `t${index}`, 0));
    const lines = tasks.lines(start, 12, 0);
    expect(lines).to.have.length(10);
    expect(lines[0]).to.deep.equal({ text: '⠋ t0 runni…', tone: 'running' });
    expect(lines[9]).to.deep.equal({ text: '  +3 more', tone: 'more' });
    const ten = new LiveTasks();
    for (let index = 0; index < 10; index += 1) ten.apply(event('task.running', `t${index}`, 0));
    expect(ten.lines(start, 80, 0).map((line) => line.tone)).to.deep.equal(Array(10).fill('running'));
  });

  it('task ids are shown neutralized; elapsed time reads as seconds, then minutes', () => {
    const tasks = new LiveTasks();
    tasks.apply(event('task.running', 'a\u001b[2Jb', 0));
    expect(tasks.lines(start, 80, 0)[0]!.text).to.equal('⠋ a\\x1b[2Jb running 0.0s');
    expect([elapsed(-5), elapsed(400), elapsed(59_949), elapsed(60_000), elapsed(125_500)]).to.deep.equal(['0.0s', '0.4s', '59.9s', '1m00s', '2m05s']);
    expect([cut('abcdef', 7), cut('abcdef', 6), cut('abcdef', 1)]).to.deep.equal(['abcdef', 'abcd…', '…']);
  });
});
