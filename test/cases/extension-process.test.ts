// extension.process end to end through the CLI: the example, the handshake and invocation outcomes, the input and
// action checks, plan, replay and resume (which launch nothing again), and the process-output budget.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, ROOT, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, FIXTURE_SCHEMA, fixtureExtension, outcome, rows, workflow } from './helpers.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'extension-fixture.mjs');
const SCHEMA = FIXTURE_SCHEMA;
const POLICY = { processAllowlist: ['node'], approval: 'never' };

const extension = fixtureExtension;

describe('extension.process', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());
  const cli = (...args: string[]) => runCli([...args, ...(args[0] === 'check' || args[0] === 'plan' ? [] : ['--db', ws.db]), '--output', 'json'], { cwd: ws.dir, env: baseEnv({ USER: 'dana' }) });
  /** The fixture's launch log: one "BEHAVIOUR MODE" line per process it started. */
  const launches = () => (existsSync(ws.file('launches.log')) ? readFileSync(ws.file('launches.log'), 'utf8').trim().split('\n') : []);
  const one = (behaviour: string, fields: Record<string, unknown> = {}, task: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) =>
    ws.write('wf.yaml', workflow({ inputs: { n: 7 }, policy: POLICY, actions: { ext: extension(behaviour, fields) }, tasks: [{ id: 'ext', uses: 'action:ext', with: { value: 'hi' }, ...task }], ...spec }));

  it('examples/extension-process.yaml counts words with the example extension, through @agentctl/sdk/process', () => {
    const document = outcome(runCli(['run', join(ROOT, 'examples', 'extension-process.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(document.data.state).to.equal('succeeded');
    expect(document.data.output).to.deep.equal({ words: 12, lines: 2, top: [{ word: 'the', count: 3 }, { word: 'dog', count: 2 }] });
    // The ledger holds the action's idempotency, not the kind's default.
    expect(rows(ws.db, 'SELECT task_id, operation, effect_class, risk, idempotency, state FROM effects')).to.deep.equal([
      { task_id: 'count', operation: 'extension.invoke', effect_class: 'process_execution', risk: 'high', idempotency: 'pure', state: 'succeeded' },
    ]);
  });

  it('a handshake whose outputSchema differs: exit 4, the effect failed with the difference, one launch only', () => {
    one('handshake-differs');
    const failed = diagnosticWithCode(errorDocument(cli('run', ws.file('wf.yaml')), 4), 'AGENTCTL_E_EXTENSION_HANDSHAKE');
    expect(failed.message).to.equal(
      'the handshake of extension ext (node) does not match the action: outputSchema differs at /properties/value/type: the action declares "string", the extension "number"; the extension was not invoked',
    );
    expect(rows(ws.db, 'SELECT operation, state FROM effects')).to.deep.equal([{ operation: 'extension.invoke', state: 'failed' }]);
    expect(launches()).to.deep.equal(['handshake-differs --agentctl-handshake']);
  });

  for (const [behaviour, code] of [
    ['malformed', 'AGENTCTL_E_EXTENSION_RESPONSE'],
    ['other-effect', 'AGENTCTL_E_EXTENSION_RESPONSE'],
    ['bad-output', 'AGENTCTL_E_EXTENSION_OUTPUT_INVALID'],
  ] as const) {
    it(`an invocation that answers badly (${behaviour}): exit 4, ${code}, the effect uncertain, no task output`, () => {
      one(behaviour);
      diagnosticWithCode(errorDocument(cli('run', ws.file('wf.yaml')), 4), code);
      expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'uncertain' }]);
      expect(rows(ws.db, 'SELECT output_json FROM tasks')).to.deep.equal([{ output_json: null }]);
      expect(launches()).to.deep.equal([`${behaviour} --agentctl-handshake`, `${behaviour} --agentctl-invoke`]);
    });
  }

  for (const [behaviour, phase, state, launched] of [
    ['slow-handshake', 'handshake', 'failed', ['slow-handshake --agentctl-handshake']],
    ['slow', 'invocation', 'uncertain', ['slow --agentctl-handshake', 'slow --agentctl-invoke']],
  ] as const) {
    it(`--timeout-seconds during the ${phase}: exit 130, the effect ${state} with AGENTCTL_E_CANCELLED`, () => {
      one(behaviour);
      const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json', '--timeout-seconds', '2'], { cwd: ws.dir }), 130);
      expect(document.data.state).to.equal('cancelled');
      const [effect] = rows(ws.db, 'SELECT state, error_json FROM effects');
      expect([effect.state, JSON.parse(effect.error_json).code]).to.deep.equal([state, 'AGENTCTL_E_CANCELLED']);
      expect(launches()).to.deep.equal(launched);
    });
  }

  it("a static with that violates the action's inputSchema: check exits 2 with AGENTCTL_E_SCHEMA at its path", () => {
    one('ok', {}, { with: { value: 7, extra: true } });
    const document = errorDocument(cli('check', ws.file('wf.yaml')), 2);
    expect(document.diagnostics.map((item: any) => [item.code, item.path, item.message])).to.deep.equal([
      ['AGENTCTL_E_SCHEMA', 'spec.tasks[0].with.extra', "spec.tasks[0].with.extra: not allowed by the action's inputSchema (input of extension.process)"],
      ['AGENTCTL_E_SCHEMA', 'spec.tasks[0].with.value', 'spec.tasks[0].with.value: must be string (inputSchema #/properties/value/type) (input of extension.process)'],
    ]);
  });

  it('a templated with that renders to a violation: exit 4, AGENTCTL_E_TASK_INPUT_INVALID, no effect recorded, nothing launched', () => {
    one('ok', {}, { with: { value: '${{ inputs.n }}' } });
    outcome(cli('check', ws.file('wf.yaml')), 0);
    const failed = diagnosticWithCode(errorDocument(cli('run', ws.file('wf.yaml')), 4), 'AGENTCTL_E_TASK_INPUT_INVALID');
    expect(failed.message).to.equal('task ext input does not match extension.process: value: must be string (inputSchema #/properties/value/type)');
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
    expect(launches()).to.deep.equal([]);
  });

  it('bad action fields: check exits 2 naming each (protocolVersion, duplicate capability, invalid schema, missing idempotency)', () => {
    one('ok', { protocolVersion: 'agentctl.dev/process-extension/v2', capabilities: ['a', 'a'], outputSchema: { type: 'text' }, idempotency: undefined });
    const document = errorDocument(cli('check', ws.file('wf.yaml')), 2);
    expect(document.diagnostics.map((item: any) => [item.code, item.path])).to.have.deep.members([
      ['AGENTCTL_E_SCHEMA', 'spec.actions.ext.protocolVersion'],
      ['AGENTCTL_E_SCHEMA', 'spec.actions.ext.idempotency'],
      ['AGENTCTL_E_SCHEMA', 'spec.actions.ext.capabilities[1]'],
      ['AGENTCTL_E_SCHEMA', 'spec.actions.ext.outputSchema'],
    ]);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_SCHEMA').message).to.contain('protocolVersion');
    expect(document.diagnostics.find((item: any) => item.path === 'spec.actions.ext.outputSchema').message).to.contain('outputSchema is not a valid JSON Schema');
  });

  it('an action written for the reference implementation passes check unchanged (no capabilities: they default to [])', () => {
    ws.write(
      'reference.yaml',
      workflow({
        policy: { workspaceRoot: '.', writableRoots: ['artifacts'], processAllowlist: ['python3'], approval: 'never' },
        runtime: { maxConcurrency: 1, budgets: { maxProcessOutputBytes: 1048576, maxTasks: 32, maxWallTimeSeconds: 120 } },
        actions: {
          triage: {
            kind: 'extension.process',
            command: 'python3',
            args: ['helper.py', 'triage'],
            idempotency: 'idempotent',
            protocolVersion: 'agentctl.dev/process-extension/v1',
            inputSchema: { type: 'object', additionalProperties: false, required: ['reportPath'], properties: { reportPath: { type: 'string' } } },
            outputSchema: { type: 'object', additionalProperties: false, required: ['status'], properties: { status: { type: 'string' } } },
            timeoutSeconds: 30,
            stdoutLimitBytes: 65536,
            stderrLimitBytes: 65536,
            combinedOutputLimitBytes: 131072,
          },
        },
        tasks: [{ id: 'triage', uses: 'action:triage', with: { reportPath: 'fixtures/report.xml' } }],
      }),
    );
    expect(outcome(cli('check', ws.file('reference.yaml')), 0).ok).to.equal(true);
  });

  it("plan shows the action's idempotency, the extension.invoke operation and two processes per effect", () => {
    one('ok', { idempotency: 'at_most_once' });
    const plan = outcome(cli('plan', ws.file('wf.yaml')), 0).data;
    expect(plan.tasks[plan.order[0]]).to.deep.include({ kind: 'extension.process', effectClass: 'process_execution', risk: 'high', idempotency: 'at_most_once' });
    expect(plan.tasks[plan.order[0]].policy).to.deep.include({ decision: 'allow', operations: ['extension.invoke'] });
    expect(plan.processes[0]).to.deep.include({ kind: 'extension.process', command: 'node', args: [FIXTURE, 'ok'], isolation: 'process', processesPerEffect: 2 });
  });

  it('replay launches nothing; resume after approvals launches each extension once', () => {
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['node'], approval: 'mutations' },
        actions: { a: extension('ok'), b: extension('reordered') },
        outputs: { a: '${{ tasks.a.output.value }}', b: '${{ tasks.b.output.value }}' },
        tasks: [
          { id: 'a', uses: 'action:a', with: { value: 'one' } },
          { id: 'b', uses: 'action:b', needs: ['a'], with: { value: 'two' } },
        ],
      }),
    );
    const runId = outcome(cli('run', ws.file('wf.yaml')), 3).data.runId as string;
    expect(launches()).to.deep.equal([]);
    const approve = () => {
      const pending = outcome(cli('approvals', 'list', runId), 0).data.filter((item: any) => item.status === 'pending');
      expect(pending).to.have.length(1);
      outcome(cli('approvals', 'approve', pending[0].approvalId, '--reason', 'reviewed'), 0);
    };
    approve();
    expect(outcome(cli('resume', runId), 3).data.tasks).to.deep.include({ a: 'succeeded' });
    expect(launches()).to.deep.equal(['ok --agentctl-handshake', 'ok --agentctl-invoke']);
    approve();
    const done = outcome(cli('resume', runId), 0).data;
    expect(done.output).to.deep.equal({ a: 'ONE', b: 'TWO' });
    const all = ['ok --agentctl-handshake', 'ok --agentctl-invoke', 'reordered --agentctl-handshake', 'reordered --agentctl-invoke'];
    expect(launches()).to.deep.equal(all);
    const replayed = outcome(cli('replay', runId), 0).data;
    expect(replayed.output).to.deep.equal({ a: 'ONE', b: 'TWO' });
    expect(launches()).to.deep.equal(all);
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects WHERE run_id = ?', replayed.runId)).to.deep.equal([{ n: 0 }]);
  });

  it('maxProcessOutputBytes reserves two combined output limits per extension effect', () => {
    // 2 x 1000 does not fit in 1500: refused before anything is recorded or launched.
    one('ok', { combinedOutputLimitBytes: 1000 }, {}, { runtime: { budgets: { maxProcessOutputBytes: 1500 } } });
    const refusal = diagnosticWithCode(errorDocument(cli('run', ws.file('wf.yaml')), 4), 'AGENTCTL_E_BUDGET_EXCEEDED');
    expect(refusal.taskId).to.equal('ext');
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
    expect(launches()).to.deep.equal([]);
    const [exceeded] = rows(ws.db, "SELECT data_json FROM audit_events WHERE type = 'budget.exceeded'").map((row) => JSON.parse(row.data_json));
    expect(exceeded).to.deep.include({ field: 'maxProcessOutputBytes', limit: 1500, requested: 2000 });

    // 2 x 1000 fits in 2000: reserved, then settled to what both launches printed.
    one('ok', { combinedOutputLimitBytes: 1000 }, {}, { runtime: { budgets: { maxProcessOutputBytes: 2000 } } });
    const done = outcome(cli('run', ws.file('wf.yaml')), 0);
    const [reservation] = rows(ws.db, 'SELECT reserved, used, state FROM budget_reservations WHERE run_id = ?', done.data.runId);
    expect(reservation).to.deep.include({ reserved: 2000, state: 'consumed' });
    expect(reservation.used).to.be.above(200).and.below(1000);
  });
});
