// Variable files end to end: spec/agent/task varsFiles, --vars-file and --var, their precedence, every refused input,
// and the capture: a run keeps the content it started with (resume, replay), a changed file changes the digest.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from './helpers.js';

/** The reference's own example: defaults.yaml under spec.vars under the task's vars. */
const REFERENCE_EXAMPLE = `apiVersion: agentctl.dev/v1
kind: Workflow
metadata:
  name: variable-precedence
spec:
  inputs:
    build: fixture-001
  varsFiles: [defaults.yaml]
  vars:
    replicas: 3
  actions:
    report:
      kind: builtin.assign
  tasks:
    - id: report
      uses: action:report
      vars:
        environment: qa
      with:
        environment: "\${{ vars.environment }}"
        replicas: "\${{ vars.replicas }}"
        build: "\${{ inputs.build }}"
  outputs:
    report: "\${{ tasks.report.output.output }}"
`;

/** One assign task reporting the named vars, with the given workflow-level and task-level fields. */
const reporter = (names: string[], spec: Record<string, unknown> = {}, task: Record<string, unknown> = {}) =>
  workflow({
    ...spec,
    actions: { report: { kind: 'builtin.assign' } },
    tasks: [{ id: 'report', uses: 'action:report', ...task, with: Object.fromEntries(names.map((name) => [name, `\${{ vars.${name} }}`])) }],
    outputs: { report: '${{ tasks.report.output.output }}' },
  }, 'vars');

describe('variable files', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const cli = (...args: string[]) => runCli([...args, '--output', 'json'], { cwd: ws.dir });
  const run = (file: string, ...args: string[]) => cli('run', file, '--db', ws.db, ...args);
  const report = (file: string, ...args: string[]) => outcome(run(file, ...args), 0).data.output.report;

  it('follows the reference example: qa and 3 replicas, then 5 with --var replicas=5', () => {
    ws.write('defaults.yaml', 'environment: staging\nreplicas: 2\n');
    const file = ws.write('workflow.yaml', REFERENCE_EXAMPLE);
    outcome(cli('check', file), 0);
    expect(report(file)).to.deep.equal({ environment: 'qa', replicas: 3, build: 'fixture-001' });
    expect(report(file, '--var', 'replicas=5', '--input', 'build="fixture-002"')).to.deep.equal({ environment: 'qa', replicas: 5, build: 'fixture-002' });
  });

  it('layers all eight sources, each replacing whole top-level keys of the lower ones', () => {
    const names = ['l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8', 'nested'];
    // Layer N sets every name lN..l8 to N, so lK ends up K: the highest layer that sets it wins.
    const layer = (n: number) => Object.fromEntries(names.slice(n - 1, 8).map((name) => [name, n]));
    ws.write('vars/one.yaml', stringify({ ...layer(1), nested: { a: 1, b: 1 } }));
    ws.write('vars/agent.json', JSON.stringify(layer(3)));
    ws.write('vars/task.yaml', stringify({ ...layer(5), nested: { a: 5 } }));
    ws.write('seven.yaml', stringify(layer(7)));
    const file = ws.write(
      'wf.yaml',
      workflow({
        varsFiles: ['vars/one.yaml'],
        vars: layer(2),
        providers: { fake: { kind: 'fake' } },
        agents: { helper: { provider: 'fake', model: 'fake-echo', instructions: 'echo', varsFiles: ['vars/agent.json'], vars: layer(4) } },
        actions: { report: { kind: 'builtin.assign' } },
        tasks: [
          { id: 'report', uses: 'action:report', varsFiles: ['vars/task.yaml'], vars: layer(6), with: Object.fromEntries(names.map((name) => [name, `\${{ vars.${name} }}`])) },
          { id: 'plain', uses: 'action:report', with: { l1: '${{ vars.l1 }}', l2: '${{ vars.l2 }}', l7: '${{ vars.l7 }}', l8: '${{ vars.l8 }}', nested: '${{ vars.nested }}' } },
        ],
        outputs: { report: '${{ tasks.report.output.output }}', plain: '${{ tasks.plain.output.output }}' },
      }, 'layers'),
    );
    const output = outcome(run(file, '--vars-file', 'seven.yaml', '--var', 'l8=8', '--var', 'l8=8'), 0).data.output;
    // Layers 3 and 4 belong to agent tasks: an action task has no agent layer, so l3 and l4 come from layer 2.
    expect(output.report).to.deep.equal({ l1: 1, l2: 2, l3: 2, l4: 2, l5: 5, l6: 6, l7: 7, l8: 8, nested: { a: 5 } });
    expect(output.plain).to.deep.equal({ l1: 1, l2: 2, l7: 7, l8: 8, nested: { a: 1, b: 1 } });
  });

  it('gives an agent task its agent layers: the template check sees their names', () => {
    ws.write('agent.yaml', 'tone: file\nlevel: file\n');
    const agentWorkflow = (varsFiles: string[]) =>
      workflow({
        providers: { fake: { kind: 'fake' } },
        agents: { helper: { provider: 'fake', model: 'fake-echo', instructions: 'echo', varsFiles, vars: { level: 'agent' } } },
        tasks: [{ id: 'ask', uses: 'agent:helper', vars: { extra: 1 }, with: { prompt: '${{ vars.tone }} ${{ vars.level }} ${{ vars.extra }}' } }],
      }, 'agent-vars');
    const file = ws.write('wf.yaml', agentWorkflow(['agent.yaml']));
    expect(outcome(cli('check', file), 0).data.tasks).to.equal(1);
    // Without the agent's file, vars.tone is declared nowhere.
    ws.write('wf.yaml', agentWorkflow([]));
    expect(diagnosticWithCode(errorDocument(cli('check', file), 2), 'AGENTCTL_E_TEMPLATE_REFERENCE').message).to.contain('vars.tone');
  });

  it('takes --var values as JSON: the last of one name wins, and every --var wins over every --vars-file', () => {
    ws.write('a.yaml', 'x: from-a\ny: from-a\n');
    ws.write('b.json', '{"y": "from-b"}');
    const file = ws.write('wf.yaml', reporter(['x', 'y', 'z'], { vars: { x: 0, y: 0, z: 0 } }));
    expect(report(file, '--var', 'z=[1,{"k":true}]', '--vars-file', 'a.yaml', '--var', 'x=2', '--var', 'x=3', '--vars-file', 'b.json')).to.deep.equal({ x: 3, y: 'from-b', z: [1, { k: true }] });
  });

  it('keeps values as data: a template inside a variable file is never evaluated', () => {
    ws.write('v.yaml', 'text: "${{ inputs.secret }}"\n');
    const file = ws.write('wf.yaml', reporter(['text'], { varsFiles: ['v.yaml'], inputs: { secret: 'no' } }));
    expect(report(file)).to.deep.equal({ text: '${{ inputs.secret }}' });
  });

  it('stores a file listed by 64 tasks once: the plan names it by digest, and each task still sees its vars', () => {
    // About 512 KiB of vars: stored in every task, the plan held 65 copies (33 MiB).
    const keys = Object.fromEntries(Array.from({ length: 4096 }, (_, index) => [`k${index}`, 'v'.repeat(120)]));
    const content = stringify({ ...keys, shared: 'from-file', mine: 'from-file' });
    ws.write('big.yaml', content);
    const tasks = Array.from({ length: 64 }, (_, index) => ({
      id: `t${index}`,
      uses: 'action:report',
      varsFiles: ['big.yaml'],
      // Task 0 replaces one key of the file with its own var; the others see the file's.
      ...(index === 0 ? { vars: { mine: 'own' } } : {}),
      with: { shared: '${{ vars.shared }}', mine: '${{ vars.mine }}', last: '${{ vars.k4095 }}' },
    }));
    const file = ws.write('wf.yaml', workflow({ actions: { report: { kind: 'builtin.assign' } }, tasks, outputs: { first: '${{ tasks.t0.output.output }}', other: '${{ tasks.t63.output.output }}' } }, 'stored-once'));
    const ran = outcome(run(file), 0);
    expect(ran.data.output).to.deep.equal({ first: { shared: 'from-file', mine: 'own', last: 'v'.repeat(120) }, other: { shared: 'from-file', mine: 'from-file', last: 'v'.repeat(120) } });
    const [{ plan_json: text }] = rows(ws.db, 'SELECT plan_json FROM runs WHERE id = ?', ran.data.runId);
    // One copy of the content (its JSON is about 540 KB), not 65.
    const contentJson = JSON.stringify({ ...keys, shared: 'from-file', mine: 'from-file' }).length;
    expect(text.length).to.be.below(contentJson + 64 * 1024);
    const plan = JSON.parse(text);
    const digests = Object.keys(plan.capturedVars.contents);
    expect(digests).to.have.length(1);
    expect(plan.capturedVars.files).to.deep.equal({ 'big.yaml': digests[0] });
    expect(plan.tasks.map((task: any) => task.varsFiles)).to.deep.equal(Array.from({ length: 64 }, () => digests));
    expect(plan.tasks[0].vars).to.deep.equal({ mine: 'own' });
    expect(plan.tasks.slice(1).every((task: any) => task.vars === undefined)).to.equal(true);
    // The tasks' rendered inputs in the ledger are what they always were.
    expect(rows(ws.db, "SELECT input_json FROM tasks WHERE task_id = 't1'").map((row) => JSON.parse(row.input_json).value)).to.deep.equal([{ shared: 'from-file', mine: 'from-file', last: 'v'.repeat(120) }]);
  });

  it('counts each distinct file once against the 16 MiB total: 17 paths to 1 MB of the same bytes compile, 17 different files do not', () => {
    const body = (fill: string) => `x: "${fill.repeat(1_000_000 - 8)}"\n`;
    const same = body('a');
    const names = Array.from({ length: 17 }, (_, index) => `copy${index}.yaml`);
    for (const name of names) ws.write(name, same);
    const file = ws.write('wf.yaml', reporter(['x'], { varsFiles: names }));
    outcome(cli('check', file), 0);
    names.forEach((name, index) => ws.write(name, body(String.fromCharCode(98 + index))));
    const found = diagnosticWithCode(errorDocument(cli('check', file), 2), 'AGENTCTL_E_VARS_FILE_TOO_LARGE');
    expect(found.message).to.equal('the variable files are more than 16777216 bytes (16 MiB) in total');
    expect(found.path).to.equal('spec.varsFiles[16]');
  });

  describe('refuses, exit 2, naming the file and the field', () => {
    const refused = (code: string, files: Record<string, string | Buffer>, varsFiles: string[], pattern: RegExp, fieldPath = 'spec.varsFiles[0]') => {
      for (const [name, content] of Object.entries(files)) {
        mkdirSync(ws.file(name.split('/').slice(0, -1).join('/') || '.'), { recursive: true });
        writeFileSync(ws.file(name), content);
      }
      const file = ws.write('wf.yaml', reporter(['x'], { varsFiles, vars: { x: 1 } }));
      const document = errorDocument(cli('check', file), 2);
      const found = diagnosticWithCode(document, code);
      expect(found.message).to.match(pattern);
      expect(found.path).to.equal(fieldPath);
      expect(found.file).to.equal(file);
      return found;
    };

    it('a missing file', () => refused('AGENTCTL_E_VARS_FILE_UNREADABLE', {}, ['absent.yaml'], /"absent\.yaml".*ENOENT/));
    it('a folder', () => {
      mkdirSync(ws.file('folder.yaml'));
      refused('AGENTCTL_E_VARS_FILE_UNREADABLE', {}, ['folder.yaml'], /"folder\.yaml".*folder/);
    });
    it('a list at the top level', () => refused('AGENTCTL_E_VARS_FILE_INVALID', { 'list.yaml': '- a\n- b\n' }, ['list.yaml'], /"list\.yaml" must hold an object.*a list/));
    it('a scalar or an empty file', () => refused('AGENTCTL_E_VARS_FILE_INVALID', { 'empty.yaml': '' }, ['empty.yaml'], /"empty\.yaml" must hold an object/));
    it('a duplicate key, with its line', () => refused('AGENTCTL_E_VARS_FILE_INVALID', { 'dup.yaml': 'a: 1\na: 2\n' }, ['dup.yaml'], /"dup\.yaml":2:1: .*unique/i));
    it('invalid UTF-8', () => refused('AGENTCTL_E_VARS_FILE_UNREADABLE', { 'bad.yaml': Buffer.from([0x61, 0x3a, 0x20, 0xff, 0xfe, 0x0a]) }, ['bad.yaml'], /"bad\.yaml" is not valid UTF-8/));
    it('a file over 1 MiB', () => refused('AGENTCTL_E_VARS_FILE_TOO_LARGE', { 'big.yaml': `a: "${'x'.repeat(1024 * 1024)}"\n` }, ['big.yaml'], /"big\.yaml".*1048576/));
    it('a ".." segment', () => refused('AGENTCTL_E_VARS_FILE_PATH', { 'sub/v.yaml': 'a: 1\n' }, ['sub/../sub/v.yaml'], /contains a "\.\." segment/));
    it('an absolute path outside the folder', () => refused('AGENTCTL_E_VARS_FILE_PATH', {}, ['/etc/hostname'], /outside/));
    it('a symbolic link that leads outside the folder', () => {
      const outside = workspace({ 'v.yaml': 'a: 1\n' });
      try {
        symlinkSync(outside.file('v.yaml'), ws.file('link.yaml'));
        refused('AGENTCTL_E_VARS_FILE_PATH', {}, ['link.yaml'], /"link\.yaml" leads outside .* symbolic link/);
      } finally {
        outside.cleanup();
      }
    });
    it('a template as a path', () => refused('AGENTCTL_E_VARS_FILE_PATH', {}, ['${{ inputs.name }}.yaml'], /is a template; paths are literal/));
    it('an empty path', () => refused('AGENTCTL_E_VARS_FILE_PATH', {}, [''], /empty/));
    it('an include key', () => refused('AGENTCTL_E_VARS_FILE_INVALID', { 'inc.yaml': 'includes: [other.yaml]\n' }, ['inc.yaml'], /"includes".*cannot include/));
    it('a reserved name in a file', () => refused('AGENTCTL_E_VARS_RESERVED', { 'r.yaml': 'matrixIndex: 1\n' }, ['r.yaml'], /"matrixIndex" is reserved/));
    it('a reserved name in a task file, at its field', () => {
      ws.write('r.yaml', 'loopIndex: 1\n');
      const file = ws.write('wf.yaml', reporter(['x'], { vars: { x: 1 } }, { varsFiles: ['r.yaml'] }));
      expect(diagnosticWithCode(errorDocument(cli('check', file), 2), 'AGENTCTL_E_VARS_RESERVED').path).to.equal('spec.tasks[0].varsFiles[0]');
    });

    it('a reserved name inline, in spec.vars and in a task\'s vars', () => {
      for (const [spec, task, path] of [
        [{ vars: { x: 1, foreachIndex: 0 } }, {}, 'spec.vars.foreachIndex'],
        [{ vars: { x: 1 } }, { vars: { loopPrevious: 0 } }, 'spec.tasks[0].vars.loopPrevious'],
      ] as const) {
        const file = ws.write('wf.yaml', reporter(['x'], spec, task));
        expect(diagnosticWithCode(errorDocument(cli('check', file), 2), 'AGENTCTL_E_VARS_RESERVED').path).to.equal(path);
      }
    });

    it('a bad --var or --vars-file', () => {
      ws.write('list.yaml', '[1]\n');
      const file = ws.write('wf.yaml', reporter(['x'], { vars: { x: 1 } }));
      for (const [code, args, pattern] of [
        ['AGENTCTL_E_VAR_INVALID', ['--var', 'x=staging'], /--var x: the value is not valid JSON/],
        ['AGENTCTL_E_VAR_INVALID', ['--var', 'novalue'], /not KEY=JSON/],
        ['AGENTCTL_E_VAR_INVALID', ['--var', '__proto__={}'], /not KEY=JSON/],
        ['AGENTCTL_E_VARS_RESERVED', ['--var', 'matrix=1'], /"matrix" is reserved/],
        ['AGENTCTL_E_VARS_FILE_UNREADABLE', ['--vars-file', 'nothing.yaml'], /--vars-file nothing\.yaml: .*ENOENT/],
        ['AGENTCTL_E_VARS_FILE_INVALID', ['--vars-file', 'list.yaml'], /--vars-file list\.yaml: .*a list/],
        ['AGENTCTL_E_VARS_FILE_PATH', ['--vars-file', '../x.yaml'], /"\.\." segment/],
      ] as const) {
        for (const command of ['run', 'plan', 'check']) {
          const document = errorDocument(cli(command, file, ...(command === 'run' ? ['--db', ws.db] : []), ...args), 2);
          expect(document.error.code ?? document.diagnostics[0].code, command).to.equal(code);
          expect(document.error.message).to.match(pattern);
        }
      }
      // Refused before the database is opened: no run and no database.
      expect(existsSync(ws.db)).to.equal(false);
    });
  });

  it('shows check, plan and run the same vars, and a file\'s content changes the digest', () => {
    ws.write('v.yaml', 'x: 1\n');
    const file = ws.write('wf.yaml', reporter(['x'], { varsFiles: ['v.yaml'] }));
    const digest = () => outcome(cli('check', file), 0).data.digest as string;
    const first = digest();
    expect(outcome(cli('plan', file), 0).data.digest).to.equal(first);
    const ran = outcome(run(file), 0);
    expect(rows(ws.db, 'SELECT workflow_digest FROM runs WHERE id = ?', ran.data.runId)[0].workflow_digest).to.equal(first);
    ws.write('v.yaml', 'x: 2\n');
    expect(digest()).to.not.equal(first);
    ws.write('v.yaml', '# the same content\nx: 1\n');
    expect(digest()).to.equal(first);
    // A workflow that names no file keeps the plain digest of its text.
    const plain = ws.write('plain.yaml', reporter(['x'], { vars: { x: 1 } }));
    expect(outcome(cli('check', plain), 0).data.digest).to.have.length(64);
  });

  it('replay and resume use the captured content, never the file as it is now', () => {
    ws.write('v.yaml', 'x: captured\n');
    const file = ws.write(
      'wf.yaml',
      workflow({
        varsFiles: ['v.yaml'],
        policy: { processAllowlist: ['sh'] },
        actions: { gate: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'true'] }, report: { kind: 'builtin.assign' } },
        tasks: [
          { id: 'gate', uses: 'action:gate' },
          { id: 'report', uses: 'action:report', needs: ['gate'], with: { x: '${{ vars.x }}' } },
        ],
        outputs: { x: '${{ tasks.report.output.output.x }}' },
      }, 'captured'),
    );
    // The process task waits for approval (exit 3); the file changes meanwhile.
    const runId = outcome(run(file), 3).data.runId as string;
    ws.write('v.yaml', 'x: edited\n');
    const [approval] = outcome(cli('approvals', 'list', runId, '--db', ws.db), 0).data;
    outcome(cli('approvals', 'approve', approval.approvalId, '--reason', 'ok', '--db', ws.db), 0);
    const resumed = outcome(cli('resume', runId, '--db', ws.db), 0);
    expect(resumed.data.output).to.deep.equal({ x: 'captured' });
    ws.write('v.yaml', 'x: edited again\n');
    const replayed = outcome(cli('replay', runId, '--db', ws.db), 0);
    expect(replayed.data.output).to.deep.equal({ x: 'captured' });
  });

  it('retry of a run whose variable file changed needs repair', () => {
    ws.write('v.yaml', 'x: 1\n');
    const file = ws.write(
      'wf.yaml',
      workflow({
        varsFiles: ['v.yaml'],
        policy: { processAllowlist: ['sh'], approval: 'never' },
        actions: { fail: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'exit 1'] } },
        tasks: [{ id: 'fail', uses: 'action:fail' }],
      }),
    );
    const runId = errorDocument(run(file), 4).error.runId as string;
    ws.write('v.yaml', 'x: 2\n');
    const document = errorDocument(cli('retry', file, runId, '--failed', '--db', ws.db), 2);
    diagnosticWithCode(document, 'AGENTCTL_E_RETRY_WORKFLOW_CHANGED');
  });
});
