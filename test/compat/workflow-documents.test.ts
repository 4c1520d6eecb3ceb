// The documents of the commands that read a workflow without running it, as the reference implementation
// (opensourceops/agentctl v0.4.0) prints them: the same kinds, field names, shapes and exit codes, driven through the
// real CLI as its docs and its own CLI tests do. agentctl's extra fields are allowed beside them.
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { cliDocumentJsonSchema, cliDocumentKinds, workflowDocuments } from '@agentctl/sdk/documents';
import { baseEnv, runCli, runCliAsync, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, shellWorkflow, workflow } from '../cases/helpers.js';

const Ajv2020 = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js').default;

type Workspace = ReturnType<typeof workspace>;

describe('compat: CheckResult and Plan', function () {
  this.timeout(60_000);
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli([...args, '--output', 'json'], { cwd: ws.dir, env: baseEnv(env) });

  const assign = { set: { kind: 'builtin.assign' } };

  it('check prints valid, workflow, workflowDigest, planDigest and the task count; planDigest is plan\'s, whatever the inputs', () => {
    const file = ws.write('wf.yaml', workflow({ inputs: { name: 'world' }, actions: assign, tasks: [{ id: 'greet', uses: 'action:set', with: { text: 'hello ${{ inputs.name }}' } }] }, 'digests'));
    const check = outcome(cli(['check', file]), 0);
    expect(check.kind).to.equal('CheckResult');
    expect(check.data).to.deep.include({ valid: true, workflow: 'digests', tasks: 1 });
    expect(check.data.workflowDigest).to.equal(`sha256:${check.data.digest}`);
    expect(check.data.planDigest).to.match(/^sha256:[0-9a-f]{64}$/);
    const plan = outcome(cli(['plan', file]), 0).data;
    const withInput = outcome(cli(['plan', file, '--input', 'name=Ada']), 0).data;
    expect([plan.planDigest, withInput.planDigest, plan.workflowDigest]).to.deep.equal([check.data.planDigest, check.data.planDigest, check.data.workflowDigest]);
    expect(withInput.tasks.greet.input).to.deep.equal({ text: 'hello Ada' });
    // A different plan has a different digest.
    ws.write('wf.yaml', workflow({ inputs: { name: 'world' }, actions: assign, tasks: [{ id: 'greet', uses: 'action:set', with: { text: 'hi ${{ inputs.name }}' } }] }, 'digests'));
    expect(outcome(cli(['check', file]), 0).data.planDigest).to.not.equal(check.data.planDigest);
  });

  it('check refuses an agent whose instructionsFile does not exist (exit 2, naming it); once it exists check passes and plan does not show its content', () => {
    const text = workflow({ providers: { fake: { kind: 'fake' } }, agents: { a: { provider: 'fake', model: 'fake', instructionsFile: 'missing.md' } }, tasks: [{ id: 'a', uses: 'agent:a', with: { prompt: 'hello' } }] }, 'instructions-preflight');
    const file = ws.write('wf.yaml', text);
    const refused = errorDocument(cli(['check', file]), 2);
    const found = diagnosticWithCode(refused, 'AGENTCTL_E_FILE_NOT_FOUND');
    expect(found).to.deep.include({ path: 'spec.agents.a.instructionsFile', file, line: 13, column: 25 });
    expect(found.message).to.equal('agent a: instructionsFile missing.md does not exist');
    mkdirSync(ws.file('missing.md'));
    expect(diagnosticWithCode(errorDocument(cli(['check', file]), 2), 'AGENTCTL_E_FILE_NOT_FOUND').message).to.equal('agent a: instructionsFile missing.md is not a regular file');
    ws.cleanup();
    ws = workspace();
    ws.write('missing.md', 'Use the PRIVATE_INSTRUCTION_SENTINEL captured instructions.');
    const again = ws.write('wf.yaml', text);
    expect(outcome(cli(['check', again]), 0).data.valid).to.equal(true);
    const plan = outcome(cli(['plan', again]), 0);
    expect(JSON.stringify(plan)).to.not.contain('PRIVATE_INSTRUCTION_SENTINEL');
    expect(plan.data.tasks.a.uses).to.deep.equal({ kind: 'agent', name: 'a' });
    expect(plan.data.tasks.a.predictability).to.equal('requires_execution');
    expect(plan.data.requirements.providers).to.deep.equal([{ name: 'fake', kind: 'fake', agents: ['a'], capabilities: ['cancellation', 'function_tools', 'continuation', 'streaming', 'structured_output', 'text', 'usage'].sort() }]);
  });

  it('plan: tasks is an object keyed by task id with the reference\'s fields; order, maxConcurrency, predictability and requirements', () => {
    const file = ws.write(
      'wf.yaml',
      workflow(
        {
          runtime: { maxConcurrency: 2 },
          policy: { processAllowlist: ['echo'], approval: 'mutations' },
          actions: { ...assign, say: { kind: 'builtin.shell.exec', command: 'echo', args: ['hi'] } },
          tasks: [
            { id: 'greet', uses: 'action:set', with: { v: 1 }, retry: { maxAttempts: 2, backoffMs: 5 } },
            { id: 'say', uses: 'action:say', needs: ['greet'], when: '${{ tasks.greet.output.output.v == 1 }}' },
            { id: 'after', uses: 'action:set', needs: ['say'], with: { out: '${{ tasks.say.output.stdout }}' } },
          ],
        },
        'shape',
      ),
    );
    const plan = outcome(cli(['plan', file]), 0).data;
    expect(plan).to.deep.include({ formatVersion: 1, workflowName: 'shape', order: ['greet', 'say', 'after'], maxConcurrency: 2, predictability: 'partially_predictable' });
    expect(Object.keys(plan.tasks)).to.deep.equal(['greet', 'say', 'after']);
    const { kind: _kind, effectClass: _e, risk: _r, idempotency: _i, inputPredictability: _p, policy: _policy, control: _c, subworkflow: _s, routedBy: _rb, ...greet } = plan.tasks.greet;
    expect(greet).to.deep.equal({
      id: 'greet',
      uses: { kind: 'action', name: 'set' },
      needs: [],
      routeGuards: [],
      memoryWrites: [],
      when: null,
      vars: {},
      input: { v: 1 },
      retry: { maxAttempts: 2, backoffMs: 5 },
      timeoutSeconds: 120,
      failure: 'stop',
      outputSchema: null,
      predictability: 'fully_predictable',
    });
    expect(plan.tasks.say).to.deep.include({ when: '${{ tasks.greet.output.output.v == 1 }}', needs: ['greet'], predictability: 'fully_predictable' });
    expect(plan.tasks.after.predictability).to.equal('partially_predictable');
    expect(plan.requirements).to.deep.equal({
      providers: [],
      tools: [],
      effects: [
        { task: 'greet', operation: 'action:set', effectClass: 'pure', approvalPossible: false, predictability: 'fully_predictable' },
        { task: 'say', operation: 'action:say', effectClass: 'process_execution', approvalPossible: true, predictability: 'fully_predictable' },
        { task: 'after', operation: 'action:set', effectClass: 'pure', approvalPossible: false, predictability: 'partially_predictable' },
      ],
    });
    // agentctl's own fields stay beside the reference's.
    expect(plan.tasks.say).to.deep.include({ kind: 'builtin.shell.exec', effectClass: 'process_execution', inputPredictability: 'static' });
    expect(plan.processes.map((item: any) => item.action)).to.deep.equal(['say']);
  });

  it('plan: matrix and loop children name their parent and bindings; aggregates, loops, routers and sub-workflows have typed uses', () => {
    const file = ws.write(
      'wf.yaml',
      workflow(
        {
          actions: assign,
          subworkflows: {
            twice: {
              version: '1.0.0',
              inputSchema: { type: 'object' },
              outputSchema: { type: 'object' },
              outputs: { v: '${{ tasks.inner.output.output.v }}' },
              tasks: [{ id: 'inner', uses: 'action:set', with: { v: 2 } }],
            },
          },
          tasks: [
            { id: 'grid', uses: 'action:set', matrix: { axes: { os: ['linux'], arch: ['x64', 'arm64'] } }, with: { os: '${{ vars.matrix.os }}' } },
            { id: 'refine', uses: 'action:set', loop: { maxIterations: 2, while: '${{ vars.loopIndex < 1 }}', initial: { value: 'seed' } }, with: { i: '${{ vars.loopIndex }}' } },
            { id: 'pick', uses: 'router', needs: ['grid'], route: { select: '${{ inputs.mode }}', cases: [{ equals: 'fast', tasks: ['fast'] }], default: ['slow'] } },
            { id: 'fast', uses: 'action:set', needs: ['pick'] },
            { id: 'slow', uses: 'action:set', needs: ['pick'] },
            { id: 'call', uses: 'workflow:twice' },
          ],
          inputs: { mode: 'fast' },
        },
        'structure',
      ),
    );
    const plan = outcome(cli(['plan', file]), 0).data;
    const children = (parent: string) => plan.order.filter((id: string) => plan.tasks[id].expansion?.parent === parent);
    const grid = children('grid');
    expect(grid).to.have.length(2);
    expect(plan.tasks[grid[1]].expansion).to.deep.include({ parent: 'grid', index: 1, bindings: { matrix: { os: 'linux', arch: 'arm64' }, matrixIndex: 1 } });
    expect(plan.tasks.grid.uses).to.deep.equal({ kind: 'aggregate', name: grid });
    const loop = children('refine');
    expect(plan.tasks.refine.uses).to.deep.equal({ kind: 'loop_aggregate', name: { children: loop, condition: '${{ vars.loopIndex < 1 }}' } });
    expect(plan.tasks[loop[0]].expansion.bindings).to.deep.equal({ loopIndex: 0, loopPrevious: { value: 'seed' } });
    expect(plan.tasks[loop[1]].expansion.bindings).to.deep.equal({ loopIndex: 1, loopPrevious: `\${{ tasks.${loop[0]}.output }}` });
    expect(plan.tasks.pick.uses).to.deep.equal({ kind: 'router', name: { select: '${{ inputs.mode }}', cases: [{ equals: 'fast', tasks: ['fast'] }], default: ['slow'] } });
    expect(plan.tasks.fast.routeGuards).to.deep.equal([{ router: 'pick' }]);
    const input = plan.order.find((id: string) => id.startsWith('call--inputs-'));
    expect(plan.tasks[input].uses).to.deep.equal({ kind: 'subworkflow_input', name: { name: 'twice', version: '1.0.0' } });
    expect(plan.tasks.call.uses).to.deep.equal({ kind: 'subworkflow_aggregate', name: { name: 'twice', version: '1.0.0', children: ['call--inner'] } });
  });
});

describe('compat: DoctorResult', function () {
  this.timeout(60_000);
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  /** The reference's doctor fixture: one host action `host` running `command` with `args`. */
  const hostWorkflow = (command: string, args: string[] = [], action: Record<string, unknown> = {}, policy: Record<string, unknown> = {}) =>
    ws.write('workflow.yaml', shellWorkflow({ command, args, ...action }, { processAllowlist: [command.split('/').at(-1)], approval: 'never', ...policy }).replace(/\bcmd\b/g, 'host'));
  const doctor = (expected: number, env: NodeJS.ProcessEnv = {}) => {
    const document = outcome(runCli(['doctor', ws.file('workflow.yaml'), '--output', 'json'], { cwd: ws.dir, env: baseEnv(env) }), expected);
    expect(document.kind).to.equal('DoctorResult');
    expect(document.data.ready).to.equal(expected === 0);
    expect(existsSync(ws.file('.agentctl')), 'doctor created run state').to.equal(false);
    return document.data;
  };
  const check = (data: any, name: string) => data.checks.find((item: any) => item.check === name);
  /** An executable file doctor may find but must never run: it would leave `marker` behind. */
  const executable = (name: string, mode = 0o755) => {
    const path = ws.write(name, `#!/bin/sh\nprintf dispatched > ${ws.file('marker')}\n`);
    chmodSync(path, mode);
    return path;
  };

  it('a missing explicit executable is missing_or_not_executable (exit 6); human output names the check and that readiness is unverified', () => {
    hostWorkflow(ws.file('missing-python'));
    const data = doctor(6);
    expect(check(data, 'process:host:command')).to.deep.include({ status: 'missing_or_not_executable', available: false });
    const human = runCli(['doctor', 'workflow.yaml'], { cwd: ws.dir });
    expect(human.status).to.equal(6);
    expect(human.stdout).to.contain('process:host:command: missing_or_not_executable');
    expect(human.stdout).to.contain('execution readiness unverified');
  });

  it('a bare command that is not found is unchecked, not claimed; helper dependencies and the scope say what is not verified', () => {
    hostWorkflow('missing-host-command', ['helper.py']);
    const data = doctor(6);
    expect(check(data, 'process:host:command').status).to.equal('unchecked');
    expect(data.unverified[0]).to.deep.include({ check: 'process:host:dependencies', status: 'unchecked' });
    expect(data.unverified[0].detail).to.contain('helper-internal');
    expect(data.scope).to.contain('does not establish workflow execution readiness');
  });

  it("an interpreter's script is looked for in the action's working folder, never read", () => {
    mkdirSync(ws.file('helpers'));
    const interpreter = executable('python3');
    hostWorkflow(interpreter, ['analyze.py'], { cwd: 'helpers' });
    const missing = doctor(6);
    expect(check(missing, 'process:host:command').status).to.equal('present');
    expect(check(missing, 'process:host:script')).to.deep.include({ status: 'missing_or_not_file', available: false });
    ws.write('helpers/analyze.py', 'PRIVATE_HELPER_CONTENT_SENTINEL');
    const present = doctor(0);
    expect(check(present, 'process:host:script').status).to.equal('present');
    expect(present.unverified[0].status).to.equal('unchecked');
    expect(JSON.stringify(present)).to.not.contain('PRIVATE_HELPER_CONTENT_SENTINEL');
    expect(existsSync(ws.file('marker')), 'doctor ran the interpreter').to.equal(false);
  });

  it('python3 -m MODULE: one check, and the modules are reported unverified', () => {
    hostWorkflow(executable('python3'), ['-m', 'missing.module']);
    const data = doctor(0);
    expect(data.checks).to.have.length(1);
    expect(data.unverified[0].detail).to.contain('modules');
  });

  it('a missing working folder is missing_or_denied; a missing environment reference is missing', () => {
    hostWorkflow(executable('tool'), [], { cwd: 'missing' });
    expect(check(doctor(6), 'process:host:cwd')).to.deep.include({ status: 'missing_or_denied', available: false });
    hostWorkflow(executable('tool'), [], { env: { TOKEN: { env: 'AGENTCTL_DOCTOR_TEST_SECRET' } } }, { environmentAllowlist: ['TOKEN'] });
    expect(check(doctor(6), 'process:host:env:TOKEN')).to.deep.include({ status: 'missing', available: false, source: '{env: "AGENTCTL_DOCTOR_TEST_SECRET"}' });
    const ready = doctor(0, { AGENTCTL_DOCTOR_TEST_SECRET: 'doctor-value-4711' });
    expect(check(ready, 'process:host:env:TOKEN').status).to.equal('present');
    expect(JSON.stringify(ready)).to.not.contain('doctor-value-4711');
  });

  it('a workflow without external prerequisites is ready with no checks', () => {
    ws.write('workflow.yaml', workflow({ actions: { assign: { kind: 'builtin.assign' } }, tasks: [{ id: 'assign', uses: 'action:assign', with: { value: 1 } }] }, 'pure'));
    const data = doctor(0);
    expect(data.checks).to.deep.equal([]);
    expect(data.workflow).to.equal('pure');
    expect(data.planDigest).to.match(/^sha256:[0-9a-f]{64}$/);
  });

  it('checks the executable permission without running the helper', () => {
    const helper = executable('helper', 0o600);
    hostWorkflow(helper);
    expect(check(doctor(6), 'process:host:command').status).to.equal('missing_or_not_executable');
    chmodSync(helper, 0o700);
    doctor(0);
    expect(existsSync(ws.file('marker'))).to.equal(false);
  });

  it('a provider whose credential is missing makes doctor not ready (exit 6)', () => {
    ws.write('workflow.yaml', workflow({ providers: { openai: { kind: 'openai' } }, policy: { networkAllowlist: ['api.openai.com'] }, agents: { a: { provider: 'openai', model: 'gpt-5-mini', instructions: 'hello' } }, tasks: [{ id: 'a', uses: 'agent:a', with: { prompt: 'hello' } }] }, 'doctor-missing'));
    const data = doctor(6);
    expect(data.checks[0]).to.deep.include({ check: 'provider:openai', status: 'missing', available: false });
  });
});

describe('compat: SourceExplanation (explain)', function () {
  this.timeout(60_000);
  let ws: Workspace;
  let caller: Workspace;
  beforeEach(() => {
    ws = workspace();
    caller = workspace();
  });
  afterEach(() => {
    ws.cleanup();
    caller.cleanup();
  });

  /** The reference's sources fixture: two workflow variable files, inline vars, a task's own file and vars. */
  const fixture = () => {
    ws.write('defaults.yaml', 'winner: file\nobject: {old: true}\nnullable: old\n');
    ws.write('later.json', '{"winner":"later","nullable":null}');
    ws.write('task.yaml', 'winner: task-file\n');
    return ws.write(
      'workflow.yaml',
      workflow(
        {
          varsFiles: ['defaults.yaml', 'later.json'],
          vars: { winner: 'workflow', object: { inline: true } },
          actions: { assign: { kind: 'builtin.assign' } },
          tasks: [{ id: 'result', uses: 'action:assign', varsFiles: ['task.yaml'], vars: { winner: 'task' }, with: { winner: '${{ vars.winner }}', object: '${{ vars.object }}', nullable: '${{ vars.nullable }}' } }],
          outputs: { result: '${{ tasks.result.output.output }}' },
        },
        'source-cli',
      ),
    );
  };
  const cli = (args: string[], expected: number) => runCli([...args, '--output', 'json'], { cwd: caller.dir });

  it('names the winning source of every variable per scope and per task, never a value; --var wins', () => {
    const path = fixture();
    const run = outcome(cli(['run', path, '--db', ws.db, '--var', 'winner="first"', '--var', 'winner="invocation"'], 0), 0);
    expect(run.data.output.result).to.deep.equal({ winner: 'invocation', object: { inline: true }, nullable: null });
    const explanation = outcome(cli(['explain', path, '--var', 'winner="PRIVATE_VALUE_SENTINEL"'], 0), 0);
    expect(explanation.kind).to.equal('SourceExplanation');
    expect(JSON.stringify(explanation)).to.not.contain('PRIVATE_VALUE_SENTINEL');
    expect(JSON.stringify(explanation)).to.contain('--var');
    expect(explanation.data.origins).to.deep.equal({
      spec: { nullable: 'spec.varsFiles[1]:later.json', object: 'spec.vars', winner: 'spec.vars' },
      'spec.tasks.result': { winner: 'spec.tasks.result.vars' },
      invocation: { winner: 'invocation:--var' },
    });
    expect(explanation.data.effectiveOrigins).to.deep.equal({ 'spec.tasks.result': { nullable: 'spec.varsFiles[1]:later.json', object: 'spec.vars', winner: 'invocation:--var' } });
    const plain = outcome(cli(['explain', path], 0), 0);
    expect(plain.data.effectiveOrigins['spec.tasks.result'].winner).to.equal('spec.tasks.result.vars');
  });

  it('a duplicate key in a variable file, a reserved name and a --var that is not JSON fail before any run state (exit 2)', () => {
    const path = fixture();
    ws.write('defaults.yaml', 'winner: first\nwinner: second\n');
    expect(diagnosticWithCode(errorDocument(cli(['check', path], 2), 2), 'AGENTCTL_E_VARS_FILE_INVALID').message).to.contain('variable file must be a valid mapping with unique keys');
    errorDocument(cli(['explain', path], 2), 2);
    fixture();
    ws.write('task.yaml', 'include: [other.yaml]\n');
    expect(diagnosticWithCode(errorDocument(cli(['explain', path], 2), 2), 'AGENTCTL_E_VARS_FILE_INVALID').message).to.contain('variable files cannot include other files; list every file in varsFiles');
    fixture();
    expect(errorDocument(cli(['run', path, '--var', 'loopIndex=7'], 2), 2).error.message).to.contain('bindings conflict with task vars');
    errorDocument(cli(['run', path, '--var', 'winner=not-json'], 2), 2);
    expect(existsSync(caller.file('.agentctl/runtime.db'))).to.equal(false);
  });
});

describe('compat: ProviderCapabilities and AuthStatus', function () {
  this.timeout(60_000);
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const providers = () =>
    ws.write(
      'wf.yaml',
      workflow({ providers: { openai: { kind: 'openai' }, scripted: { kind: 'fake' } }, policy: { networkAllowlist: ['api.openai.com'] }, agents: { a: { provider: 'openai', model: 'gpt-5-mini', instructions: 'hi' } }, tasks: [{ id: 'a', uses: 'agent:a', with: { prompt: 'x' } }] }),
    );

  it('providers inspect lists each provider, its capabilities and its credential without its value (exit 0)', () => {
    const file = providers();
    const missing = outcome(runCli(['providers', 'inspect', file, '--output', 'json']), 0);
    expect(missing.kind).to.equal('ProviderCapabilities');
    expect(missing.data.map((item: any) => [item.name, item.kind, item.credential])).to.deep.equal([
      ['openai', 'openai', { kind: 'environment', reference: 'OPENAI_API_KEY', availability: 'missing' }],
      ['scripted', 'fake', { kind: 'none', reference: null, availability: 'not_required' }],
    ]);
    expect(missing.data[0].capabilities).to.include.members(['text', 'function_tools', 'structured_output', 'reasoning_effort']);
    const present = runCli(['providers', 'inspect', file, '--output', 'json'], { env: baseEnv({ OPENAI_API_KEY: 'sk-provider-value-4711' }) });
    expect(outcome(present, 0).data[0].credential.availability).to.equal('present');
    expect(present.stdout + present.stderr).to.not.contain('sk-provider-value-4711');
  });

  it('providers smoke-openai needs --live (exit 2) and, with it, is refused: agentctl sends no live request (exit 6)', () => {
    errorDocument(runCli(['providers', 'smoke-openai', '--output', 'json']), 2);
    const refused = errorDocument(runCli(['providers', 'smoke-openai', '--live', '--output', 'json'], { env: baseEnv({ OPENAI_API_KEY: 'sk-x' }) }), 6);
    diagnosticWithCode(refused, 'AGENTCTL_E_PROVIDER_SMOKE_ABSENT');
  });

  it('auth check prints an array: one {provider, credential: {kind, reference, availability}} per provider', () => {
    const report = outcome(runCli(['auth', 'check', providers(), '--output', 'json'], { env: baseEnv({ OPENAI_API_KEY: 'sk-auth-value' }) }), 0);
    expect(report.kind).to.equal('AuthStatus');
    expect(report.data.map((item: any) => ({ provider: item.provider, credential: item.credential }))).to.deep.equal([
      { provider: 'openai', credential: { kind: 'environment', reference: 'OPENAI_API_KEY', availability: 'present' } },
      { provider: 'scripted', credential: { kind: 'none', reference: null, availability: 'not_required' } },
    ]);
  });
});

describe('compat: schema, version, completion, --verbose', function () {
  this.timeout(60_000);
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('schema --write PATH writes the workflow JSON Schema and prints SchemaWrite {path, written}', () => {
    const path = ws.file('workflow.schema.json');
    const written = outcome(runCli(['schema', '--write', path, '--output', 'json']), 0);
    expect(written.kind).to.equal('SchemaWrite');
    expect(written.data).to.deep.include({ path, written: true });
    const printed = outcome(runCli(['schema', '--output', 'json']), 0);
    expect(JSON.parse(readFileSync(path, 'utf8'))).to.deep.equal(printed.data);
    expect(readFileSync(path, 'utf8').endsWith('}\n')).to.equal(true);
    expect(runCli(['schema', '--write', path]).stdout).to.equal(`wrote ${path}\n`);
    diagnosticWithCode(errorDocument(runCli(['schema', '--write', ws.file('no/such/folder/s.json'), '--output', 'json']), 2), 'AGENTCTL_E_USAGE');
  });

  it('schema --kind prints a JSON Schema that Ajv 2020 compiles, for every document kind', async function () {
    this.timeout(300_000);
    const kinds = cliDocumentKinds();
    expect(kinds).to.include.members([...Object.keys(workflowDocuments), 'Error', 'StreamEvent']);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    // Four CLIs at a time: one per kind, in a bounded time.
    for (let start = 0; start < kinds.length; start += 4) {
      const batch = kinds.slice(start, start + 4);
      const results = await Promise.all(batch.map((kind) => runCliAsync(['schema', '--kind', kind, '--output', 'json'])));
      results.forEach((result, index) => {
        const kind = batch[index]!;
        const document = outcome(result, 0);
        expect(document.kind, kind).to.equal('DocumentSchema');
        expect(document.data, kind).to.deep.equal(cliDocumentJsonSchema(kind));
        expect(() => ajv.compile(document.data), kind).to.not.throw();
      });
    }
  });

  it('version prints the reference\'s version, rust and machineOutput, and agentctl\'s own fields', () => {
    const version = outcome(runCli(['version', '--output', 'json']), 0);
    expect(version.kind).to.equal('Version');
    expect(version.data).to.deep.include({ rust: false, machineOutput: 'agentctl.dev/cli/v1', cliApiVersion: 'agentctl.dev/cli/v1' });
    expect(version.data.version).to.match(/^\d+\.\d+\.\d+$/);
  });

  it('completion SHELL prints a script for bash, zsh and fish; another shell or none is a usage error (exit 2)', () => {
    const expected = { bash: 'complete -o bashdefault -o default -F _agentctl_yargs_completions agentctl', zsh: 'compdef _agentctl_yargs_completions agentctl', fish: "complete -f -c agentctl -a '(agentctl --get-yargs-completions" };
    for (const [shell, line] of Object.entries(expected)) {
      const result = runCli(['completion', shell]);
      expect(result.status, shell).to.equal(0);
      expect(result.stdout, shell).to.contain(line);
    }
    expect(errorDocument(runCli(['completion', 'tcsh', '--output', 'json']), 2).error.message).to.equal('--shell "tcsh" is not one of "bash", "zsh", "fish"');
    errorDocument(runCli(['completion', '--output', 'json']), 2);
    // The scripts' requests are answered: candidates for `agentctl pl`.
    expect(runCli(['--get-yargs-completions', 'pl']).stdout.split('\n')).to.include.members(['plan', 'plugins']);
  });

  it('--verbose is accepted everywhere; in human mode a successful check also prints its data after the summary and its diagnostics in full on stderr', () => {
    const file = ws.write('wf.yaml', workflow({ policy: { approval: 'mutations', writableRoots: ['.'] }, actions: { save: { kind: 'builtin.write' } }, tasks: [{ id: 'save', uses: 'action:save', with: { path: 'out.txt', content: 'x' } }] }));
    const quiet = runCli(['check', file]);
    expect(quiet.status).to.equal(0);
    expect(quiet.stderr).to.equal('');
    const verbose = runCli(['check', file, '--verbose']);
    expect(verbose.status).to.equal(0);
    const json = outcome(runCli(['check', file, '--verbose', '--output', 'json']), 0);
    expect(verbose.stdout).to.equal(`${quiet.stdout}${JSON.stringify(json.data, null, 2)}\n`);
    expect(verbose.stderr).to.match(/^ {2}warning {2}AGENTCTL_E_\w+ {2}/);
    expect(verbose.stderr).to.contain('    help: ');
    expect(json.diagnostics).to.have.length(1);
    expect(runCli(['version', '--verbose']).status).to.equal(0);
  });
});
