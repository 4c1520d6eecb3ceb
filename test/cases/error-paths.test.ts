// Error codes whose paths are rare in a working setup, each reached through the real CLI: a dependency that failed,
// an effect id that does not exist, a program that cannot be started, and an engine address that is no socket.
import { chmodSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, runCount, shellWorkflow, useWorkspace, workflow } from './helpers.js';

describe('rare error paths through the CLI', function () {
  this.timeout(60_000);
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[], env = baseEnv()) => runCli([...args, '--db', ws().db, '--output', 'json'], { env });

  it('a task whose dependency failed is skipped with AGENTCTL_E_DEPENDENCY_FAILED, naming the dependency', () => {
    const text = workflow({
      policy: { processAllowlist: ['false', 'true'], approval: 'never' },
      actions: { no: { kind: 'builtin.shell.exec', command: 'false' }, yes: { kind: 'builtin.shell.exec', command: 'true' } },
      tasks: [{ id: 'broken', uses: 'action:no' }, { id: 'after', uses: 'action:yes', needs: ['broken'] }],
    });
    const failed = errorDocument(cli(['run', ws().write('wf.yaml', text)]), 4);
    const [after] = rows(ws().db, `SELECT state, error_json FROM tasks WHERE run_id = ? AND task_id = 'after'`, failed.error.runId);
    expect(after.state).to.equal('skipped');
    expect(JSON.parse(after.error_json)).to.deep.include({ code: 'AGENTCTL_E_DEPENDENCY_FAILED' });
    expect(JSON.parse(after.error_json).message).to.contain('broken');
  });

  it('effects inspect and effects reconcile of an effect id that does not exist: AGENTCTL_E_EFFECT_NOT_FOUND (exit 2)', () => {
    outcome(cli(['run', ws().write('wf.yaml', shellWorkflow({ command: 'true' }, { processAllowlist: ['true'], approval: 'never' }))]), 0);
    const missing = `eff_${'0'.repeat(40)}`;
    for (const args of [['effects', 'inspect', missing], ['effects', 'reconcile', missing, '--status', 'applied', '--reason', 'by hand']]) {
      const found = diagnosticWithCode(errorDocument(cli(args), 2), 'AGENTCTL_E_EFFECT_NOT_FOUND');
      expect(found.message, args.join(' ')).to.contain(missing);
      expect(found.help).to.contain('agentctl effects list');
    }
    expect(rows(ws().db, 'SELECT COUNT(*) AS n FROM reconciliations')).to.deep.equal([{ n: 0 }]);
  });

  it('an allowlisted program the kernel cannot execute is AGENTCTL_E_PROCESS_SPAWN, uncertain', () => {
    // Its interpreter line names a program that does not exist: execve answers ENOENT, and no shell is tried.
    const program = ws().file('not-a-program');
    writeFileSync(program, '#!/nonexistent/interpreter\n');
    chmodSync(program, 0o755);
    const failed = errorDocument(cli(['run', ws().write('wf.yaml', shellWorkflow({ command: program }, { processAllowlist: ['not-a-program'], approval: 'never' }))]), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_PROCESS_SPAWN');
    expect(rows(ws().db, 'SELECT state FROM effects WHERE run_id = ?', failed.error.runId)).to.deep.equal([{ state: 'uncertain' }]);
  });

  it('an engine address that is not a socket is AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE: the run is recorded and fails with zero effects (exit 4)', () => {
    const notSocket = ws().write('engine.sock', 'a regular file');
    const container = { image: `sha256:${'a'.repeat(64)}`, runtime: 'docker' };
    const text = shellWorkflow({ command: 'sh', args: ['-c', 'true'], isolation: 'container', container }, { processAllowlist: ['sh'], approval: 'never' });
    const failed = errorDocument(cli(['run', ws().write('wf.yaml', text)], baseEnv({ DOCKER_HOST: `unix://${notSocket}`, CONTAINER_HOST: `unix://${ws().file('absent.sock')}` })), 4);
    const found = diagnosticWithCode(failed, 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE');
    expect(found.message).to.contain(`${notSocket} is not a socket`);
    expect(failed.error.message).to.contain('requested process isolation is unavailable');
    expect(found.help).to.be.a('string').and.not.equal('');
    expect(rows(ws().db, 'SELECT id, state FROM runs')).to.deep.equal([{ id: failed.error.runId, state: 'failed' }]);
    expect(rows(ws().db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
  });
});
