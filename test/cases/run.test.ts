// `agentctl run` end to end: the examples, inputs, human mode and the task-level controls.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseDocument, ROOT, runCli, workspace } from '../support/cli.js';
import { CLI_API_VERSION, diagnosticWithCode, errorDocument, outcome, rows, runCount, workflow } from './helpers.js';

const HELLO = join(ROOT, 'examples', 'hello.yaml');

describe('run: examples/hello.yaml', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('prints exactly one RunOutcome line with the declared outputs and exits 0', () => {
    const result = runCli(['run', HELLO, '--db', ws.db, '--output', 'json']);
    expect(result.status).to.equal(0);
    expect(result.stderr).to.equal('');
    expect(result.stdout.endsWith('\n')).to.equal(true);
    expect(result.stdout.trimEnd().split('\n')).to.have.length(1);
    const document = parseDocument(result.stdout);
    expect(document.apiVersion).to.equal(CLI_API_VERSION);
    expect(document.kind).to.equal('RunOutcome');
    expect(document.ok).to.equal(true);
    expect(document.diagnostics).to.deep.equal([]);
    expect(document.data.state).to.equal('succeeded');
    expect(document.data.output).to.deep.equal({ greeting: 'hello, world!' });
    expect(document.data.runId).to.match(/^run_[0-9a-z]+$/);
    expect(document.data.traceId).to.match(/^[0-9a-f]{32}$/);
    const [run] = rows(ws.db, 'SELECT * FROM runs');
    expect(run.id).to.equal(document.data.runId);
    expect(run.trace_id).to.equal(document.data.traceId);
    expect(run.state).to.equal('succeeded');
    expect(JSON.parse(run.output_json)).to.deep.equal({ greeting: 'hello, world!' });
    expect(rows(ws.db, 'SELECT task_id, state FROM tasks ORDER BY position')).to.deep.equal([
      { task_id: 'greet', state: 'succeeded' },
      { task_id: 'shout', state: 'succeeded' },
    ]);
  });

  it('prints a human summary line and the run\'s outputs on stdout without --output', () => {
    const result = runCli(['run', HELLO, '--db', ws.db]);
    expect(result.status).to.equal(0);
    const lines = result.stdout.trimEnd().split('\n');
    const [run] = rows(ws.db, 'SELECT id FROM runs');
    expect(lines[0]).to.match(new RegExp(`^run ${run.id} succeeded: 2 succeeded$`));
    expect(lines.slice(1)).to.deep.equal(['outputs:', '  greeting: hello, world!']);
  });

  it('--input name=Ada changes the output', () => {
    const document = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json', '--input', 'name=Ada']), 0);
    expect(document.data.output).to.deep.equal({ greeting: 'hello, Ada!' });
  });

  it('--inputs JSON changes the output', () => {
    const document = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json', '--inputs', '{"name":"x"}']), 0);
    expect(document.data.output).to.deep.equal({ greeting: 'hello, x!' });
  });

  it('--inputs-file changes the output', () => {
    const file = ws.write('inputs.json', JSON.stringify({ name: 'from-file' }));
    const document = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json', '--inputs-file', file]), 0);
    expect(document.data.output).to.deep.equal({ greeting: 'hello, from-file!' });
  });

  it('--inputs-file over 1 MiB is refused with AGENTCTL_E_DOCUMENT_TOO_LARGE', () => {
    const file = ws.write('inputs.json', JSON.stringify({ name: 'x'.repeat(1024 * 1024) }));
    const document = errorDocument(runCli(['run', HELLO, '--db', ws.db, '--output', 'json', '--inputs-file', file]), 2);
    diagnosticWithCode(document, 'AGENTCTL_E_DOCUMENT_TOO_LARGE');
    expect(runCount(ws.db)).to.equal(0);
  });

  it('--input wins over --inputs, and its VALUE is parsed as JSON when it is JSON', () => {
    const number = outcome(runCli(['run', HELLO, '--db', ws.db, '--output', 'json', '--inputs', '{"name":"first"}', '--input', 'name=42']), 0);
    expect(number.data.output).to.deep.equal({ greeting: 'hello, 42!' });
    expect(rows(ws.db, 'SELECT inputs_json FROM runs WHERE id = ?', number.data.runId).map((row) => JSON.parse(row.inputs_json))).to.deep.equal([{ name: 42 }]);
    // An array cannot render inside text: a run-time template error fails the task.
    const array = errorDocument(runCli(['run', HELLO, '--db', ws.db, '--output', 'json', '--input', 'name=[1,2]']), 4);
    expect(diagnosticWithCode(array, 'AGENTCTL_E_TEMPLATE_EVALUATION').taskId).to.equal('greet');
  });

  it('an undeclared input is a usage error (exit 2) and creates no run', () => {
    const document = errorDocument(runCli(['run', HELLO, '--db', ws.db, '--output', 'json', '--input', 'nope=1']), 2);
    const item = diagnosticWithCode(document, 'AGENTCTL_E_INPUT_INVALID');
    expect(item.message).to.contain('nope');
    expect(runCount(ws.db)).to.equal(0);
  });

  it('an undeclared input in --inputs is refused too', () => {
    const document = errorDocument(runCli(['run', HELLO, '--db', ws.db, '--output', 'json', '--inputs', '{"other":"x"}']), 2);
    diagnosticWithCode(document, 'AGENTCTL_E_INPUT_INVALID');
    expect(runCount(ws.db)).to.equal(0);
  });
});

describe('run: examples/shell-report.yaml', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('lists the folder with ls and writes the listing to out/report.txt', () => {
    const examples = join(ws.dir, 'examples');
    cpSync(join(ROOT, 'examples'), examples, { recursive: true });
    // ls -1 in the C locale (the child environment is empty): byte order, one name a line.
    const listing = readdirSync(examples).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).map((name) => `${name}\n`).join('');
    const document = outcome(runCli(['run', join(examples, 'shell-report.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(document.data.state).to.equal('succeeded');
    const report = readFileSync(join(examples, 'out', 'report.txt'), 'utf8');
    expect(report).to.equal(listing);
    expect(document.data.output.report).to.equal('out/report.txt');
    expect(document.data.output.sha256).to.match(/^[0-9a-f]{64}$/);
    const effects = rows(ws.db, 'SELECT task_id, operation, state FROM effects ORDER BY task_id');
    expect(effects).to.deep.equal([
      { task_id: 'list', operation: 'process.exec', state: 'succeeded' },
      { task_id: 'write', operation: 'filesystem.write', state: 'succeeded' },
    ]);
  });
});

describe('run: task controls', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('failure: continue lets the run succeed and skips the dependent task', () => {
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['false'], approval: 'never' },
        actions: { fail: { kind: 'builtin.shell.exec', command: 'false' }, set: { kind: 'builtin.assign' } },
        tasks: [
          { id: 'broken', uses: 'action:fail', failure: 'continue' },
          { id: 'after', uses: 'action:set', needs: ['broken'], with: { v: 1 } },
          { id: 'independent', uses: 'action:set', with: { v: 2 } },
        ],
      }),
    );
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(document.data.state).to.equal('succeeded');
    expect(document.data.tasks).to.deep.equal({ broken: 'failed', after: 'skipped', independent: 'succeeded' });
    expect(rows(ws.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'succeeded' }]);
    const tasks = rows(ws.db, 'SELECT task_id, state FROM tasks ORDER BY position');
    expect(tasks).to.deep.equal([
      { task_id: 'broken', state: 'failed' },
      { task_id: 'after', state: 'skipped' },
      { task_id: 'independent', state: 'succeeded' },
    ]);
    expect(rows(ws.db, 'SELECT state FROM effects')).to.deep.equal([{ state: 'failed' }]);
  });

  it('retry: a command failing on the first attempt succeeds on the second', () => {
    ws.write(
      'wf.yaml',
      workflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        actions: {
          flaky: {
            kind: 'builtin.shell.exec',
            command: 'sh',
            // First attempt: creates the counter and fails; second: finds it and succeeds.
            args: ['-c', 'if [ -e counter ]; then echo second; exit 0; else echo once > counter; exit 1; fi'],
          },
        },
        tasks: [{ id: 'flaky', uses: 'action:flaky', retry: { maxAttempts: 2, backoffMs: 0 } }],
        outputs: { said: '${{ tasks.flaky.output.stdout }}' },
      }),
    );
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(document.data.output).to.deep.equal({ said: 'second\n' });
    expect(rows(ws.db, 'SELECT state, attempt FROM tasks')).to.deep.equal([{ state: 'succeeded', attempt: 2 }]);
    expect(rows(ws.db, 'SELECT attempt, state FROM effects ORDER BY attempt')).to.deep.equal([
      { attempt: 1, state: 'failed' },
      { attempt: 2, state: 'succeeded' },
    ]);
  });

  it('when: false skips a task', () => {
    ws.write(
      'wf.yaml',
      workflow({
        inputs: { enabled: false },
        policy: { processAllowlist: ['touch'], approval: 'never' },
        actions: { mark: { kind: 'builtin.shell.exec', command: 'touch', args: ['marker'] }, set: { kind: 'builtin.assign' } },
        tasks: [
          { id: 'mark', uses: 'action:mark', when: '${{ inputs.enabled }}' },
          { id: 'other', uses: 'action:set', with: { v: 1 } },
        ],
      }),
    );
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(document.data.tasks).to.deep.equal({ mark: 'skipped', other: 'succeeded' });
    expect(readdirSync(ws.dir)).to.not.include('marker');
    expect(rows(ws.db, 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
  });

  it('when with a comparison runs or skips by the input value', () => {
    ws.write(
      'wf.yaml',
      workflow({
        inputs: { count: 3 },
        actions: { set: { kind: 'builtin.assign' } },
        tasks: [
          { id: 'big', uses: 'action:set', when: '${{ inputs.count > 2 }}', with: { v: 1 } },
          { id: 'small', uses: 'action:set', when: '${{ inputs.count <= 2 }}', with: { v: 2 } },
        ],
      }),
    );
    expect(outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0).data.tasks).to.deep.equal({ big: 'succeeded', small: 'skipped' });
    expect(outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json', '--input', 'count=1']), 0).data.tasks).to.deep.equal({ big: 'skipped', small: 'succeeded' });
  });

  it('--workspace sets the root for relative paths instead of the workflow folder', () => {
    const file = ws.write(
      'config/wf.yaml',
      workflow({
        policy: { writableRoots: ['out'], approval: 'never' },
        actions: { save: { kind: 'builtin.write' } },
        tasks: [{ id: 'save', uses: 'action:save', with: { path: 'out/x.txt', content: 'x' } }],
      }),
    );
    mkdirSync(ws.file('work'));
    const document = outcome(runCli(['run', file, '--db', ws.db, '--output', 'json', '--workspace', ws.file('work')]), 0);
    expect(document.data.state).to.equal('succeeded');
    expect(readFileSync(ws.file('work/out/x.txt'), 'utf8')).to.equal('x');
    expect(existsSync(ws.file('config/out'))).to.equal(false);
    expect(rows(ws.db, 'SELECT workspace FROM runs')).to.deep.equal([{ workspace: ws.file('work') }]);
  });

  it('maxConcurrency 2 runs two independent sleeps at once and commits both', () => {
    ws.write(
      'wf.yaml',
      workflow({
        runtime: { maxConcurrency: 2 },
        policy: { processAllowlist: ['sleep'], approval: 'never' },
        actions: { nap: { kind: 'builtin.shell.exec', command: 'sleep', args: ['1'] } },
        tasks: [
          { id: 'one', uses: 'action:nap' },
          { id: 'two', uses: 'action:nap' },
        ],
      }),
    );
    const document = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(document.data.tasks).to.deep.equal({ one: 'succeeded', two: 'succeeded' });
    const effects = rows(ws.db, 'SELECT task_id, state, started_at, finished_at FROM effects ORDER BY task_id');
    expect(effects.map((effect) => [effect.task_id, effect.state])).to.deep.equal([
      ['one', 'succeeded'],
      ['two', 'succeeded'],
    ]);
    // The two processes overlapped in time: each started before the other finished. (The recorded times prove it;
    // a wall-clock bound would also measure the machine's load.)
    const [one, two] = effects;
    expect(one.started_at < two.finished_at && two.started_at < one.finished_at).to.equal(true);
  });

  it('an output that does not match outputSchema fails the task with AGENTCTL_E_TASK_OUTPUT_INVALID', () => {
    ws.write(
      'wf.yaml',
      workflow({
        actions: { set: { kind: 'builtin.assign' } },
        tasks: [{ id: 'typed', uses: 'action:set', with: { count: 'three' }, outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] } }],
      }),
    );
    const result = runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']);
    const document = errorDocument(result, 4);
    expect(document.error.runId).to.match(/^run_/);
    const item = diagnosticWithCode(document, 'AGENTCTL_E_TASK_OUTPUT_INVALID');
    expect(item.taskId).to.equal('typed');
    expect(rows(ws.db, 'SELECT state FROM runs')).to.deep.equal([{ state: 'failed' }]);
    const [task] = rows(ws.db, 'SELECT state, error_json FROM tasks');
    expect(task.state).to.equal('failed');
    expect(JSON.parse(task.error_json).code).to.equal('AGENTCTL_E_TASK_OUTPUT_INVALID');
  });
});
