// Exit codes and messages where the reference maps a failure differently from agentctl's first choice: a script
// written against the reference reads the same exit code, and finds in the message the words the reference's docs
// promise. agentctl's error codes stay as they were.
import { existsSync, unlinkSync } from 'node:fs';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { READ_TOOL } from '../support/agents.js';
import { baseEnv, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, useWorkspace } from '../cases/helpers.js';

const agentWorkflow = (spec: Record<string, unknown>, agent: Record<string, unknown>) =>
  stringify({
    apiVersion: 'agentctl.dev/v1',
    kind: 'Workflow',
    metadata: { name: 'exit-codes' },
    spec: {
      providers: { fake: { kind: 'fake' } },
      policy: { approval: 'never' },
      tools: { read_note: READ_TOOL },
      agents: { a: { provider: 'fake', model: 'scripted', instructions: 'Answer.', ...agent } },
      tasks: [{ id: 'ask', uses: 'agent:a' }],
      ...spec,
    },
  });

describe('compat: exit codes the reference maps', () => {
  const state = useWorkspace();
  const ws = () => state.ws;
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli([...args, '--output', 'json'], { cwd: ws().dir, env: baseEnv(env) });
  const withDb = (args: string[]) => cli([...args, '--db', ws().db]);

  it('a provider call that times out: its effect is uncertain, the run failed, exit 4 with runId and traceId; resume is refused (exit 3)', () => {
    const file = ws().write('wf.yaml', agentWorkflow({}, { timeoutSeconds: 1, providerOptions: { delayMs: 5000 } }));
    const failed = errorDocument(withDb(['run', file]), 4);
    diagnosticWithCode(failed, 'AGENTCTL_E_PROVIDER_UNCERTAIN');
    expect(failed.error.runId).to.be.a('string');
    expect(failed.error.traceId).to.be.a('string');
    const inspected = outcome(withDb(['inspect', failed.error.runId]), 0).data;
    expect(inspected.run.state).to.equal('failed');
    expect(inspected.effects.map((effect: any) => effect.state)).to.deep.equal(['uncertain']);
    const refused = errorDocument(withDb(['resume', failed.error.runId]), 3);
    expect(refused.error).to.deep.include({ runId: failed.error.runId, traceId: failed.error.traceId });
    diagnosticWithCode(refused, 'AGENTCTL_E_EFFECT_UNRECONCILED');
  });

  it('a secret file removed after check: check passes, run exits 4 and the message names the secret file; nothing is recorded', () => {
    ws().write('secrets/token', 'token-value-1234\n');
    const file = ws().write(
      'wf.yaml',
      stringify({
        apiVersion: 'agentctl.dev/v1',
        kind: 'Workflow',
        metadata: { name: 'secret-file' },
        spec: {
          policy: { processAllowlist: ['true'], environmentAllowlist: ['FILE_SECRET'], secretFileRoots: ['secrets'], approval: 'never' },
          actions: { consume: { kind: 'builtin.shell.exec', command: 'true', env: { FILE_SECRET: { file: 'secrets/token' } } } },
          tasks: [{ id: 'consume', uses: 'action:consume' }],
        },
      }),
    );
    outcome(cli(['check', file]), 0);
    unlinkSync(ws().file('secrets/token'));
    const failed = errorDocument(withDb(['run', file]), 4);
    expect(failed.error.message).to.contain('secret file "secrets/token" does not exist');
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_SECRET_MISSING').path).to.equal('spec.actions.consume');
    expect(failed.error.runId).to.equal(null);
    expect(existsSync(ws().db) ? rows(ws().db, 'SELECT id FROM runs') : []).to.deep.equal([]);
  });

  it('a provider endpoint at a private address: exit 3, "network address is not authorized", no run recorded', () => {
    const spec = {
      providers: { model: { kind: 'openai', endpoint: 'http://127.0.0.1:9/v1' } },
      policy: { approval: 'never', networkAllowlist: ['127.0.0.1'], network: { allowedSchemes: ['http'], allowedPorts: [9], allowPrivate: false } },
    };
    const file = ws().write('wf.yaml', agentWorkflow(spec, { provider: 'model', model: 'gpt-test', tools: [] }));
    const refused = errorDocument(cli(['run', file, '--db', ws().db], { OPENAI_API_KEY: 'sk-test-not-a-real-key' }), 3);
    expect(refused.error.message).to.contain('network address is not authorized');
    expect(diagnosticWithCode(refused, 'AGENTCTL_E_NETWORK_DENIED').message).to.equal('network address is not authorized: 127.0.0.1 (loopback), refused without allowPrivate');
    expect(refused.error.runId).to.equal(null);
    expect(existsSync(ws().db) ? rows(ws().db, 'SELECT id FROM runs') : []).to.deep.equal([]);
  });

  it('a run budget of provider requests: exit 4, the message names providerRequests, and inspect shows the exceeded dimension', () => {
    ws().write('note.txt', 'NOTE\n');
    const file = ws().write('wf.yaml', agentWorkflow({ runtime: { budgets: { maxProviderRequests: 1 } } }, { tools: ['read_note'], maxTurns: 2, providerOptions: { toolInput: { path: 'note.txt' }, finalText: 'done' } }));
    const failed = errorDocument(withDb(['run', file]), 4);
    expect(failed.error.message).to.contain('providerRequests');
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_BUDGET_EXCEEDED').message).to.equal('model request (turn 2, attempt 1) of task ask was not started: run budget providerRequests exceeded: it needs 1 of maxProviderRequests 1, of which 1 are used and 0 reserved');
    const inspected = outcome(withDb(['inspect', failed.error.runId]), 0).data;
    expect(inspected.budget.usage.providerRequests).to.deep.equal({ used: 1, reserved: 0, limit: 1 });
    expect(inspected.budget.exceeded).to.deep.include({ dimension: 'providerRequests', limit: 1, used: 1 });
  });

  it('container isolation with no engine there: the run is recorded and failed with zero effects, exit 4, "requested process isolation is unavailable"', () => {
    const container = { image: `sha256:${'a'.repeat(64)}`, runtime: 'auto' };
    const file = ws().write(
      'wf.yaml',
      stringify({
        apiVersion: 'agentctl.dev/v1',
        kind: 'Workflow',
        metadata: { name: 'isolation-unavailable' },
        spec: {
          policy: { processAllowlist: ['sh'], approval: 'never' },
          actions: { boxed: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'touch ran.txt'], isolation: 'container', container }, note: { kind: 'builtin.assign' } },
          tasks: [{ id: 'boxed', uses: 'action:boxed' }, { id: 'after', uses: 'action:note', needs: ['boxed'] }],
        },
      }),
    );
    const env = { DOCKER_HOST: `unix://${ws().file('no-docker.sock')}`, CONTAINER_HOST: `unix://${ws().file('no-podman.sock')}` };
    const failed = errorDocument(cli(['run', file, '--db', ws().db], env), 4);
    expect(failed.error.message).to.match(/^task boxed: requested process isolation is unavailable: /);
    diagnosticWithCode(failed, 'AGENTCTL_E_CONTAINER_ENGINE_MISSING');
    const inspected = outcome(withDb(['inspect', failed.error.runId]), 0).data;
    expect(inspected.run.state).to.equal('failed');
    expect(inspected.effects).to.deep.equal([]);
    expect(inspected.tasks.map((task: any) => [task.taskId, task.state])).to.deep.equal([
      ['boxed', 'failed'],
      ['after', 'skipped'],
    ]);
    expect(existsSync(ws().file('ran.txt'))).to.equal(false);
  });

  it('store errors of store-backed commands are exit 5: every command that reads a damaged database', function () {
    this.timeout(180_000);
    const db = ws().write('damaged.db', 'this is not a database, not even close to one\n');
    const commands = [
      ['inspect', 'run_x'],
      ['runs', 'list'],
      ['effects', 'list', 'run_x'],
      ['effects', 'inspect', 'eff_x'],
      ['effects', 'reconcile', 'eff_x', '--status', 'applied', '--reason', 'r'],
      ['approvals', 'list', 'run_x'],
      ['approvals', 'approve', 'apr_x', '--reason', 'r'],
      ['approvals', 'reject', 'apr_x', '--reason', 'r'],
      ['resume', 'run_x'],
      ['replay', 'run_x'],
      ['fork', 'run_x'],
      ['artifacts', 'list'],
    ];
    for (const command of commands) {
      const failed = errorDocument(cli([...command, '--db', db]), 5);
      expect(failed.diagnostics[0].code, command.join(' ')).to.equal('AGENTCTL_E_DB_OPEN');
    }
  });
});
