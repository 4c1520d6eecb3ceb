// Process isolation: empty environment, fixed command lookup, stdin /dev/null, bounded output, whole-tree kill.
import { chmodSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { containment } from '../../builtins/isolation-process/containment.js';
import { diagnosticWithCode, errorDocument, liveProcessesWith, outcome, rows, runCount, shellWorkflow, unique, uniqueSleep, useWorkspace, waitFor } from './helpers.js';

type Workspace = ReturnType<typeof workspace>;

const runJson = (ws: Workspace, env = baseEnv()) => runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env });

describe('process isolation', () => {
  const state = useWorkspace();

  it('/usr/bin/env with no env entries prints nothing, even when agentctl has extra variables', () => {
    state.ws.write('wf.yaml', shellWorkflow({ command: '/usr/bin/env' }, { processAllowlist: ['env'], approval: 'never' }, {}, { outputs: { out: '${{ tasks.cmd.output.stdout }}' } }));
    const document = outcome(runJson(state.ws, baseEnv({ LEAKME: '1', AWS_SECRET_ACCESS_KEY: 'nope' })), 0);
    expect(document.data.output).to.deep.equal({ out: '' });
    const [effect] = rows(state.ws.db, 'SELECT state, result_json FROM effects');
    expect(effect.state).to.equal('succeeded');
    expect(JSON.parse(effect.result_json)).to.deep.equal({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('the child environment holds exactly the declared env entries', () => {
    state.ws.write('wf.yaml', shellWorkflow({ command: 'env', env: { GREETING: 'hi there' } }, { processAllowlist: ['env'], environmentAllowlist: ['GREETING'], approval: 'never' }));
    outcome(runJson(state.ws, baseEnv({ LEAKME: '1' })), 0);
    const [effect] = rows(state.ws.db, 'SELECT result_json FROM effects');
    expect(JSON.parse(effect.result_json).stdout).to.equal('GREETING=hi there\n');
  });

  it('stdin is /dev/null: cat without arguments ends at once with no output', () => {
    state.ws.write('wf.yaml', shellWorkflow({ command: 'cat', timeoutSeconds: 5 }, { processAllowlist: ['cat'], approval: 'never' }));
    const started = Date.now();
    outcome(runJson(state.ws), 0);
    expect(Date.now() - started).to.be.below(3000);
    const [effect] = rows(state.ws.db, 'SELECT result_json FROM effects');
    expect(JSON.parse(effect.result_json)).to.deep.equal({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('a bare command name is never looked up in the caller PATH (exit 2 before any run)', () => {
    const name = unique('agentctl-fake-');
    const bin = state.ws.write(`bin/${name}`, '#!/bin/sh\necho ran\n');
    chmodSync(bin, 0o755);
    state.ws.write('wf.yaml', shellWorkflow({ command: name }, { processAllowlist: [name], approval: 'never' }));
    const document = errorDocument(runJson(state.ws, baseEnv({ PATH: `${state.ws.file('bin')}:${process.env.PATH}` })), 2);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_COMMAND_NOT_FOUND').message).to.contain(name);
    expect(runCount(state.ws.db)).to.equal(0);
  });

  it('records the resolved executable in the effect input', () => {
    state.ws.write('wf.yaml', shellWorkflow({ command: 'true' }, { processAllowlist: ['true'], approval: 'never' }));
    outcome(runJson(state.ws), 0);
    const [effect] = rows(state.ws.db, 'SELECT input_json FROM effects');
    const input = JSON.parse(effect.input_json);
    expect(input.command).to.equal('true');
    expect(['/usr/local/bin/true', '/usr/bin/true', '/bin/true']).to.include(input.executable);
  });

  it('a non-zero exit is a definite failure: exit 4, effect failed, AGENTCTL_E_PROCESS_EXIT', () => {
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', 'echo oops >&2; exit 3'] }, { processAllowlist: ['sh'], approval: 'never' }));
    const document = errorDocument(runJson(state.ws), 4);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_PROCESS_EXIT');
    expect(found.taskId).to.equal('cmd');
    const [effect] = rows(state.ws.db, 'SELECT state, result_json FROM effects');
    expect(effect.state).to.equal('failed');
    expect(JSON.parse(effect.result_json)).to.deep.include({ exitCode: 3, stdout: '', stderr: 'oops\n' });
  });

  it('timeoutSeconds: 1 kills sh and its backgrounded sleep within 3 s: exit 4, effect uncertain, AGENTCTL_E_PROCESS_TIMEOUT', () => {
    const duration = uniqueSleep(300);
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', `sleep ${duration} & sleep ${duration}`], timeoutSeconds: 1 }, { processAllowlist: ['sh'], approval: 'never' }));
    const result = runJson(state.ws);
    state.leftovers.push(...liveProcessesWith(duration).map((entry) => entry.pid));
    const document = errorDocument(result, 4);
    // The process's life as the ledger saw it (started → outcome), not the CLI's, whose start-up varies with load.
    const [life] = rows(state.ws.db, 'SELECT started_at, finished_at FROM effects');
    expect(Date.parse(life.finished_at) - Date.parse(life.started_at), 'from start to kill').to.be.below(3000);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_PROCESS_TIMEOUT');
    expect(found.taskId).to.equal('cmd');
    const [effect] = rows(state.ws.db, 'SELECT state, error_json FROM effects');
    expect(effect.state).to.equal('uncertain');
    expect(JSON.parse(effect.error_json).code).to.equal('AGENTCTL_E_PROCESS_TIMEOUT');
    expect(rows(state.ws.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'failed' }]);
    expect(liveProcessesWith(duration), 'live sleeps of this tree').to.deep.equal([]);
  });

  it('a grandchild that left the process group (setsid) is killed on timeout too', () => {
    const duration = uniqueSleep(302);
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', `setsid sleep ${duration} & sleep ${duration}`], timeoutSeconds: 1 }, { processAllowlist: ['sh'], approval: 'never' }));
    const started = Date.now();
    const result = runJson(state.ws);
    const elapsed = Date.now() - started;
    const survivors = liveProcessesWith(duration);
    state.leftovers.push(...survivors.map((entry) => entry.pid));
    errorDocument(result, 4);
    // Not waiting for the sleeps (minutes long) is what counts, however loaded the machine is.
    expect(elapsed, 'wall time').to.be.below(30_000);
    expect(survivors.map((entry) => entry.argv.join(' ')), 'live sleeps of this tree').to.deep.equal([]);
  });

  // `setsid -f` forks and exits at once, leaving its child (a new session) to init; `(sleep &)` is a daemonizing
  // double fork. Neither is below the program's process tree or in its process group when the task ends.
  const escapes = (duration: string) => `setsid -f sleep ${duration} >/dev/null 2>&1; (sleep ${duration} >/dev/null 2>&1 &); echo started`;

  // Only a cgroup of the task's own reaches them: where agentctl cannot make one, doctor says so and these are skipped.
  const contained = function (this: Mocha.Context) {
    const here = containment();
    if (!here.available) this.skip();
  };

  it('a timeout kills every descendant, including a setsid -f child and a double-forked daemon that left the tree and the group', function () {
    contained.call(this);
    const duration = uniqueSleep(304);
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', `${escapes(duration)}; sleep ${duration}`], timeoutSeconds: 1 }, { processAllowlist: ['sh'], approval: 'never' }));
    const result = runJson(state.ws);
    // Read as soon as the CLI has returned: the task ends only once its cgroup is empty.
    const survivors = liveProcessesWith(duration);
    state.leftovers.push(...survivors.map((entry) => entry.pid));
    diagnosticWithCode(errorDocument(result, 4), 'AGENTCTL_E_PROCESS_TIMEOUT');
    expect(rows(state.ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'uncertain' }]);
    expect(survivors.map((entry) => entry.argv.join(' ')), 'live sleeps of this task').to.deep.equal([]);
  });

  it('a program that exits 0 leaves no setsid -f child or double-forked daemon behind', function () {
    contained.call(this);
    const duration = uniqueSleep(305);
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', escapes(duration)], timeoutSeconds: 10 }, { processAllowlist: ['sh'], approval: 'never' }, {}, { outputs: { out: '${{ tasks.cmd.output.stdout }}' } }));
    const result = runJson(state.ws);
    const survivors = liveProcessesWith(duration);
    state.leftovers.push(...survivors.map((entry) => entry.pid));
    expect(outcome(result, 0).data.output).to.deep.equal({ out: 'started\n' });
    expect(survivors.map((entry) => entry.argv.join(' ')), 'live sleeps of this task').to.deep.equal([]);
  });

  it('yes with stdoutLimitBytes 4096 ends promptly: exit 4, effect failed, AGENTCTL_E_PROCESS_OUTPUT_LIMIT naming stdout and 4096', () => {
    state.ws.write('wf.yaml', shellWorkflow({ command: 'yes', stdoutLimitBytes: 4096, timeoutSeconds: 30 }, { processAllowlist: ['yes'], approval: 'never' }));
    const started = Date.now();
    const result = runJson(state.ws);
    const elapsed = Date.now() - started;
    const document = errorDocument(result, 4);
    // Prompt means well before the 30 s task timeout, however loaded the machine is.
    expect(elapsed, 'wall time').to.be.below(15_000);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_PROCESS_OUTPUT_LIMIT');
    expect(found.taskId).to.equal('cmd');
    expect(found.message).to.contain('stdout');
    expect(found.message).to.contain('4096');
    const [effect] = rows(state.ws.db, 'SELECT state, result_json, error_json FROM effects');
    expect(effect.state).to.equal('failed');
    expect(JSON.parse(effect.error_json).code).to.equal('AGENTCTL_E_PROCESS_OUTPUT_LIMIT');
    const recorded = JSON.parse(effect.result_json);
    expect(recorded.stream).to.equal('stdout');
    expect(recorded.limitBytes).to.equal(4096);
    expect(Buffer.byteLength(recorded.stdout)).to.be.at.most(4096);
    expect(recorded.stdout.startsWith('y\ny\n')).to.equal(true);
  });

  it('output of exactly stdoutLimitBytes succeeds; one byte more fails', () => {
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', 'yes | head -c 4096'], stdoutLimitBytes: 4096 }, { processAllowlist: ['sh'], approval: 'never' }));
    outcome(runJson(state.ws), 0);
    const [effect] = rows(state.ws.db, 'SELECT state, result_json FROM effects');
    expect(effect.state).to.equal('succeeded');
    expect(Buffer.byteLength(JSON.parse(effect.result_json).stdout)).to.equal(4096);

    const over = workspace();
    try {
      over.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', 'yes | head -c 4097'], stdoutLimitBytes: 4096 }, { processAllowlist: ['sh'], approval: 'never' }));
      const document = errorDocument(runJson(over), 4);
      diagnosticWithCode(document, 'AGENTCTL_E_PROCESS_OUTPUT_LIMIT');
    } finally {
      over.cleanup();
    }
  });

  it('output cut inside a multi-byte UTF-8 character is still recorded within the byte limit', () => {
    // "a" then endless 2-byte "é": the 4096-byte cut falls in the middle of a character.
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', "printf a; yes \u00e9 | tr -d '\\n'"], stdoutLimitBytes: 4096 }, { processAllowlist: ['sh'], approval: 'never' }));
    const document = errorDocument(runJson(state.ws), 4);
    diagnosticWithCode(document, 'AGENTCTL_E_PROCESS_OUTPUT_LIMIT');
    const [effect] = rows(state.ws.db, 'SELECT state, result_json FROM effects');
    expect(effect.state).to.equal('failed');
    const stdout: string = JSON.parse(effect.result_json).stdout;
    expect(stdout.startsWith('a\u00e9\u00e9')).to.equal(true);
    expect(Buffer.byteLength(stdout), 'recorded stdout bytes').to.be.at.most(4096);
  });

  it('an uncertain effect (timeout) is never retried, even with retry.maxAttempts 3', () => {
    const duration = uniqueSleep(305);
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sleep', args: [duration], timeoutSeconds: 1 }, { processAllowlist: ['sleep'], approval: 'never' }, { retry: { maxAttempts: 3, backoffMs: 0 } }));
    const result = runJson(state.ws);
    state.leftovers.push(...liveProcessesWith(duration).map((entry) => entry.pid));
    const document = errorDocument(result, 4);
    diagnosticWithCode(document, 'AGENTCTL_E_PROCESS_TIMEOUT');
    expect(rows(state.ws.db, 'SELECT attempt, state FROM effects')).to.deep.equal([{ attempt: 1, state: 'uncertain' }]);
    expect(rows(state.ws.db, 'SELECT attempt, state FROM tasks')).to.deep.equal([{ attempt: 1, state: 'failed' }]);
  });

  it('an stderr flood hits stderrLimitBytes and names stderr', () => {
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', 'yes >&2'], stderrLimitBytes: 1000, timeoutSeconds: 30 }, { processAllowlist: ['sh'], approval: 'never' }));
    const document = errorDocument(runJson(state.ws), 4);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_PROCESS_OUTPUT_LIMIT');
    expect(found.message).to.contain('stderr');
    expect(found.message).to.contain('1000');
    const [effect] = rows(state.ws.db, 'SELECT state, result_json FROM effects');
    expect(effect.state).to.equal('failed');
    expect(Buffer.byteLength(JSON.parse(effect.result_json).stderr)).to.be.at.most(1000);
  });

  it('no process of a finished task survives: a background sleep is killed when sh exits 0', async () => {
    const duration = uniqueSleep(303);
    state.ws.write('wf.yaml', shellWorkflow({ command: 'sh', args: ['-c', `sleep ${duration} >/dev/null 2>&1 & exit 0`], timeoutSeconds: 10 }, { processAllowlist: ['sh'], approval: 'never' }));
    const result = runJson(state.ws);
    state.leftovers.push(...liveProcessesWith(duration).map((entry) => entry.pid));
    outcome(result, 0);
    await waitFor('the background sleep to be gone', () => liveProcessesWith(duration).length === 0, 2000);
  });
});
