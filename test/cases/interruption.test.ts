// A run is never left `running` behind a process that is gone: a second signal still records it cancelled, and a
// run whose owner was killed outright shows as interrupted in `runs list` and `inspect`.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { cgroup2Mount } from '../../builtins/isolation-process/containment.js';
import { runCli, startCli } from '../support/cli.js';
import { finished, liveProcessesWith, outcome, rows, uniqueSleep, useWorkspace, waitFor, workflow } from './helpers.js';

/** The root of the cgroup v2 hierarchy, where a process that leaves its task's cgroup can go. */
const cgroupRoot = cgroup2Mount(readFileSync('/proc/self/mountinfo', 'utf8'));

describe('interrupted runs', () => {
  const state = useWorkspace();

  const longTask = (script: string) =>
    state.ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        actions: {
          cmd: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', script], timeoutSeconds: 600 },
          set: { kind: 'builtin.assign' },
        },
        tasks: [
          { id: 'cmd', uses: 'action:cmd' },
          { id: 'after', uses: 'action:set', needs: ['cmd'], with: { v: 1 } },
        ],
      }),
    );

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`a second ${signal} while the cancellation waits for a child still records the run and its tasks cancelled, then exits 130`, async () => {
      const duration = uniqueSleep(311);
      // The subshell's sleep leaves the process tree and keeps the output pipe open: after the first signal kills
      // the tree, agentctl waits (2 s) for the pipe to close. The second signal lands in that wait. Where the task
      // runs in a cgroup of its own, the sleep leaves that too, as only a privileged process can (agentctl runs the
      // tests as root): otherwise the cgroup kill ends it with the rest.
      const leave = cgroupRoot ? `echo 0 > ${cgroupRoot}/cgroup.procs 2>/dev/null; ` : '';
      longTask(`(setsid sh -c '${leave}exec sleep ${duration}' &); sleep ${duration}`);
      const child = startCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json']);
      const done = finished(child);
      try {
        await waitFor('both sleeps', () => liveProcessesWith(duration).length >= 2);
        await waitFor('the started effect', () => rows(state.ws.db, `SELECT state FROM effects WHERE state = 'started'`).length === 1);
        child.kill(signal);
        // The first signal was handled: the task's own tree is gone, only the escaped sleep is left.
        await waitFor('the task tree to be killed', () => liveProcessesWith(duration).length === 1);
        const second = Date.now();
        child.kill(signal);
        const result = await done;
        state.leftovers.push(...liveProcessesWith(duration).map((entry) => entry.pid));
        expect(Date.now() - second, 'time to exit after the second signal').to.be.below(1500);
        const document = outcome(result, 130);
        expect(document.kind).to.equal('RunOutcome');
        expect(document.data).to.deep.include({ state: 'cancelled', output: {}, tasks: { cmd: 'cancelled', after: 'cancelled' } });
        expect(document.diagnostics.map((item: any) => item.code)).to.deep.equal(['AGENTCTL_E_CANCELLED']);
        const [run] = rows(state.ws.db, 'SELECT id, state, finished_at, lease_owner, error_json FROM runs');
        expect(run).to.deep.include({ id: document.data.runId, state: 'cancelled', lease_owner: null });
        expect(run.finished_at).to.be.a('string');
        expect(JSON.parse(run.error_json).message).to.contain(`second ${signal}`);
        expect(rows(state.ws.db, 'SELECT task_id, state FROM tasks ORDER BY position')).to.deep.equal([
          { task_id: 'cmd', state: 'cancelled' },
          { task_id: 'after', state: 'cancelled' },
        ]);
        const [effect] = rows(state.ws.db, 'SELECT state, error_json FROM effects');
        expect(effect.state).to.equal('uncertain');
        expect(JSON.parse(effect.error_json).code).to.equal('AGENTCTL_E_CANCELLED');
        const trail = rows(state.ws.db, 'SELECT type FROM audit_events ORDER BY seq').map((row) => row.type);
        expect(trail.at(-1)).to.equal('run.cancelled');
      } finally {
        child.kill('SIGKILL');
        state.leftovers.push(...liveProcessesWith(duration).map((entry) => entry.pid));
      }
    });
  }

  it('a run whose process was killed (SIGKILL) is shown as interrupted by runs list and inspect; a live one as active', async () => {
    const duration = uniqueSleep(312);
    longTask(`sleep ${duration}`);
    const finishedRun = outcome(runCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json', '--timeout-seconds', '0.5']), 130).data.runId;
    state.leftovers.push(...liveProcessesWith(duration).map((entry) => entry.pid));
    const child = startCli(['run', state.ws.file('wf.yaml'), '--db', state.ws.db, '--output', 'json']);
    const done = finished(child);
    let runId = '';
    try {
      await waitFor('the started effect', () => rows(state.ws.db, `SELECT state FROM effects WHERE state = 'started'`).length === 1);
      runId = rows(state.ws.db, `SELECT id FROM runs WHERE state = 'running'`)[0].id;
      const live = outcome(runCli(['runs', 'list', '--db', state.ws.db, '--output', 'json']), 0).data.runs;
      expect(live.map((run: any) => [run.runId, run.state, run.liveness])).to.deep.equal([
        [runId, 'running', 'active'],
        [finishedRun, 'cancelled', null],
      ]);
      const during = outcome(runCli(['inspect', runId, '--db', state.ws.db, '--output', 'json']), 0).data;
      expect(during.run.liveness).to.equal('active');
      expect(during.effects.map((effect: any) => [effect.state, effect.inDoubt])).to.deep.equal([['started', false]]);
      child.kill('SIGKILL');
      await done;
    } finally {
      child.kill('SIGKILL');
      // Nobody killed the task's process: agentctl died first. The test removes it.
      state.leftovers.push(...liveProcessesWith(duration).map((entry) => entry.pid));
    }

    const listed = outcome(runCli(['runs', 'list', '--db', state.ws.db, '--output', 'json']), 0).data.runs;
    expect(listed[0]).to.deep.include({ runId, state: 'running', liveness: 'interrupted' });
    const human = runCli(['runs', 'list', '--db', state.ws.db]);
    expect(human.status).to.equal(0);
    expect(human.stdout.split('\n')[0]).to.contain(`${runId}  test  running (interrupted)  `);
    expect(human.stdout.split('\n')[1]).to.contain(`${finishedRun}  test  cancelled  `);

    const view = outcome(runCli(['inspect', runId, '--db', state.ws.db, '--output', 'json']), 0).data;
    expect(view.run).to.deep.include({ state: 'running', liveness: 'interrupted' });
    expect(view.effects.map((effect: any) => [effect.taskId, effect.state, effect.inDoubt])).to.deep.equal([['cmd', 'started', true]]);
    const text = runCli(['inspect', runId, '--db', state.ws.db]);
    expect(text.stdout).to.contain(`run ${runId}  test  running (interrupted)`);
    expect(text.stdout).to.match(/effect eff_[0-9a-f]{40} process\.exec \(cmd\) started \(in doubt: it may have happened\)/);
    // The database says nothing new: liveness is derived, never written by a reader.
    expect(rows(state.ws.db, 'SELECT state FROM runs WHERE id = ?', runId)).to.deep.equal([{ state: 'running' }]);
  });
});
