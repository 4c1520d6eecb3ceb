// The read-only commands (plan, schema, plugins list, version) and usage errors in JSON mode.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { SCHEMA_VERSION } from '../../core/store/migrations.js';
import { BIN, baseEnv, parseDocument, ROOT, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, runCount, workflow } from './helpers.js';

describe('plan', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('lists every process action with its tasks, isolation, resolved executable and limits', () => {
    ws.write(
      'wf.yaml',
      workflow({
        runtime: { defaultTimeoutSeconds: 45 },
        policy: { processAllowlist: ['echo', 'sh'], approval: 'never' },
        actions: {
          say: { kind: 'builtin.shell.exec', command: 'echo', args: ['a', 'b'], stdoutLimitBytes: 1000 },
          shell: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'true'], timeoutSeconds: 7, cwd: 'sub' },
          set: { kind: 'builtin.assign' },
        },
        tasks: [
          { id: 'one', uses: 'action:say' },
          { id: 'two', uses: 'action:say', needs: ['one'] },
          { id: 'three', uses: 'action:shell' },
          { id: 'pure', uses: 'action:set', with: { v: 1 } },
        ],
      }),
    );
    const result = runCli(['plan', ws.file('wf.yaml'), '--output', 'json']);
    expect(result.stderr).to.equal('');
    const document = outcome(result, 0);
    expect(document.kind).to.equal('Plan');
    expect(document.data.order).to.deep.equal(['one', 'two', 'three', 'pure']);
    const processes = [...document.data.processes].sort((a: any, b: any) => a.action.localeCompare(b.action));
    expect(processes).to.have.length(2);
    expect(processes[0]).to.deep.include({ action: 'say', kind: 'builtin.shell.exec', tasks: ['one', 'two'], command: 'echo', args: ['a', 'b'], cwd: '.', isolation: 'process' });
    expect(['/usr/local/bin/echo', '/usr/bin/echo', '/bin/echo']).to.include(processes[0].executable);
    expect(processes[0].limits).to.deep.equal({ timeoutSeconds: 45, stdoutLimitBytes: 1000, stderrLimitBytes: 1048576, combinedOutputLimitBytes: 2097152 });
    expect(processes[1]).to.deep.include({ action: 'shell', tasks: ['three'], command: '/bin/sh', executable: '/bin/sh', cwd: 'sub', isolation: 'process' });
    expect(processes[1].limits).to.deep.equal({ timeoutSeconds: 7, stdoutLimitBytes: 1048576, stderrLimitBytes: 1048576, combinedOutputLimitBytes: 2097152 });
    // Effect classes come from the action kinds: every shell task executes a process; assign is pure.
    expect(document.data.order.map((id: string) => [id, document.data.tasks[id].effectClass])).to.deep.equal([
      ['one', 'process_execution'],
      ['two', 'process_execution'],
      ['three', 'process_execution'],
      ['pure', 'pure'],
    ]);
  });

  it('a template in an action field is refused with a hint that works: shell tasks take with.args and with.stdin', () => {
    const spec = (action: Record<string, unknown>, task: Record<string, unknown>) =>
      workflow({
        inputs: { who: 'Ada' },
        policy: { processAllowlist: ['sh', 'echo'], approval: 'never' },
        actions: { greet: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'printf "%s/" "$1"; cat', 'sh'], ...action }, first: { kind: 'builtin.shell.exec', command: 'echo', args: ['dyn'] } },
        tasks: [{ id: 'first', uses: 'action:first' }, { id: 'greet', uses: 'action:greet', needs: ['first'], ...task }],
        outputs: { said: '${{ tasks.greet.output.stdout }}' },
      });
    ws.write('wf.yaml', spec({ args: ['-c', 'echo $1', 'sh', '${{ inputs.who }}'] }, {}));
    const refused = diagnosticWithCode(errorDocument(runCli(['check', ws.file('wf.yaml'), '--output', 'json']), 2), 'AGENTCTL_E_TEMPLATE_NOT_ALLOWED');
    expect(refused.help).to.equal("pass run-time values through the task's with (builtin.shell.exec takes args, stdin there)");
    ws.write('wf.yaml', spec({}, { with: { args: ['${{ inputs.who }}'], stdin: '${{ tasks.first.output.stdout }}' } }));
    expect(outcome(runCli(['check', ws.file('wf.yaml'), '--output', 'json']), 0).kind).to.equal('CheckResult');
    const plan = outcome(runCli(['plan', ws.file('wf.yaml'), '--output', 'json']), 0).data;
    expect(plan.tasks.greet).to.deep.include({ id: 'greet', inputPredictability: 'dynamic', predictability: 'partially_predictable', input: { args: ['Ada'], stdin: '${{ tasks.first.output.stdout }}' } });
    const ran = outcome(runCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json']), 0);
    expect(ran.data.output).to.deep.equal({ said: 'Ada/dyn\n' });
    // check catches what run would refuse: an unknown field or a static value of the wrong type beside templates
    ws.write('wf.yaml', spec({}, { with: { args: ['${{ inputs.who }}', 7], stdn: 'x' } }));
    const document = errorDocument(runCli(['check', ws.file('wf.yaml'), '--output', 'json']), 2);
    expect(document.diagnostics.map((item: any) => [item.code, item.path])).to.deep.equal([
      ['AGENTCTL_E_SCHEMA', 'spec.tasks[1].with.args[1]'],
      ['AGENTCTL_E_UNKNOWN_FIELD', 'spec.tasks[1].with.stdn'],
    ]);
    expect(document.diagnostics[1].help).to.equal('did you mean "stdin"? builtin.shell.exec takes args, stdin');
  });

  it('plan renders --input values into task inputs', () => {
    const document = outcome(runCli(['plan', join(ROOT, 'examples', 'hello.yaml'), '--output', 'json', '--input', 'name=Ada']), 0);
    expect(document.data.inputs).to.deep.equal({ name: 'Ada' });
    expect(document.data.tasks[document.data.order[0]].input).to.deep.equal({ greeting: 'hello, Ada' });
    expect(document.data.processes).to.deep.equal([]);
  });
});

describe('schema, plugins, version', () => {
  it('schema --output json: data is a JSON Schema of the workflow', () => {
    const document = outcome(runCli(['schema', '--output', 'json']), 0);
    expect(document.kind).to.equal('WorkflowSchema');
    const schema = document.data;
    expect(schema.$schema).to.match(/^https:\/\/json-schema\.org\//);
    expect(schema.type).to.equal('object');
    expect(schema.properties).to.include.keys('apiVersion', 'kind', 'metadata', 'spec');
    expect(schema.additionalProperties).to.equal(false);
    expect(JSON.stringify(schema)).to.contain('builtin.shell.exec');
  });

  it('plugins list --output json lists the builtins with their action kinds and secret forms', () => {
    const document = outcome(runCli(['plugins', 'list', '--output', 'json']), 0);
    expect(document.kind).to.equal('PluginList');
    const byName = Object.fromEntries(document.data.plugins.map((plugin: any) => [plugin.name, plugin]));
    for (const kind of ['builtin.assign', 'builtin.assert', 'builtin.read', 'builtin.write', 'builtin.shell.exec']) {
      expect(byName[kind], kind).to.deep.include({ actionKinds: [kind], source: 'builtin' });
      expect(byName[kind].version).to.match(/^\d+\.\d+\.\d+/);
    }
    expect(byName['builtin.secrets.env']).to.deep.include({ secretForms: ['env'], source: 'builtin' });
  });

  it('version --output json', () => {
    const document = outcome(runCli(['version', '--output', 'json']), 0);
    expect(document.kind).to.equal('Version');
    expect(document.data.cliApiVersion).to.equal('agentctl.dev/cli/v1');
    expect(document.data.version).to.match(/^\d+\.\d+\.\d+/);
    expect(document.data.databaseSchemaVersion).to.equal(SCHEMA_VERSION);
  });
});

describe('usage errors', () => {
  const cases: [string, string[]][] = [
    ['an unknown command', ['bogus', '--output', 'json']],
    ['an unknown flag', ['run', join(ROOT, 'examples', 'hello.yaml'), '--bogus', '--output', 'json']],
    ['a missing positional', ['run', '--output=json']],
    ['--inputs with --inputs-file', ['run', join(ROOT, 'examples', 'hello.yaml'), '--inputs', '{}', '--inputs-file', 'x.json', '--output', 'json']],
    ['an invalid --color value', ['version', '--output', 'json', '--color', 'sometimes']],
  ];
  for (const [title, args] of cases) {
    it(`${title}: exit 2 and one JSON Error on stderr`, () => {
      const document = errorDocument(runCli(args), 2);
      diagnosticWithCode(document, 'AGENTCTL_E_USAGE');
      expect(document.error.runId).to.equal(null);
    });
  }

  it('--input without = is AGENTCTL_E_INPUT_INVALID', () => {
    const document = errorDocument(runCli(['run', join(ROOT, 'examples', 'hello.yaml'), '--input', 'name', '--output', 'json']), 2);
    diagnosticWithCode(document, 'AGENTCTL_E_INPUT_INVALID');
  });

  it('--inputs that is not a JSON object is AGENTCTL_E_INPUT_INVALID', () => {
    const document = errorDocument(runCli(['run', join(ROOT, 'examples', 'hello.yaml'), '--inputs', '[1]', '--output', 'json']), 2);
    diagnosticWithCode(document, 'AGENTCTL_E_INPUT_INVALID');
  });

  it('bare agentctl prints the help on stdout and exits 0', () => {
    const result = runCli([]);
    expect(result.status).to.equal(0);
    expect(result.stderr).to.equal('');
    expect(result.stdout).to.contain('agentctl <command> [options]').and.to.contain('agentctl check <file>');
  });

  it('an unknown command is named, with the list of commands and the closest one', () => {
    const document = errorDocument(runCli(['chek', 'x.yaml', '--output', 'json']), 2);
    expect(document.error.message).to.equal('unknown command chek');
    const help = String(document.diagnostics[0].help);
    expect(help.startsWith('did you mean check? commands: run, check, plan, doctor, inspect, runs, ')).to.equal(true);
    expect(help.split(': ')[1]!.split(', ')).to.include.members(['replay', 'artifacts', 'plugins', 'schema', 'version', 'completion']);
    expect(errorDocument(runCli(['packs', '--output', 'json']), 2).error.message).to.equal('name a packs command');
  });

  it('a mistyped option gets a suggestion from the command\'s own options', () => {
    const document = errorDocument(runCli(['run', join(ROOT, 'examples', 'hello.yaml'), '--workspce', '.', '--output', 'json']), 2);
    expect(document.error.message).to.equal('unknown option --workspce');
    expect(document.diagnostics[0].help).to.match(/^did you mean --workspace instead of --workspce\?/);
    const human = runCli(['check', join(ROOT, 'examples', 'hello.yaml'), '--outptu', 'json']);
    expect(human.status).to.equal(2);
    expect(human.stderr).to.contain('did you mean --output instead of --outptu?');
  });

  it('a single-valued option given twice is a usage error, reported in JSON when any --output asks for it', () => {
    const space = workspace();
    try {
      const hello = join(ROOT, 'examples', 'hello.yaml');
      const cases: [string[], string][] = [
        [['version', '--output', 'json', '--output', 'json'], '--output is given 2 times; it takes one value'],
        [['version', '--output', 'human', '--output=json'], '--output is given 2 times; it takes one value'],
        [['run', hello, '--db', space.file('a.db'), '--db', space.file('b.db'), '--output', 'json'], '--db is given 2 times; it takes one value'],
        [['run', hello, '--workspace', space.dir, '--workspace', space.dir, '--db', space.file('a.db'), '--output', 'json'], '--workspace is given 2 times; it takes one value'],
      ];
      for (const [args, message] of cases) {
        const document = errorDocument(runCli(args), 2);
        expect(document.error.message, args.join(' ')).to.equal(message);
        diagnosticWithCode(document, 'AGENTCTL_E_USAGE');
      }
      expect(runCount(space.file('a.db'))).to.equal(0);
    } finally {
      space.cleanup();
    }
  });

  it('output to a full device is AGENTCTL_E_OUTPUT_WRITE on stderr, exit 5, without a stack trace', () => {
    const full = openSync('/dev/full', 'w');
    try {
      for (const mode of ['json', 'human']) {
        const result = spawnSync(process.execPath, [BIN, 'version', '--output', mode], { env: baseEnv(), stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
        expect(result.status, mode).to.equal(5);
        expect(result.stderr).to.contain('AGENTCTL_E_OUTPUT_WRITE').and.to.contain('ENOSPC');
        expect(result.stderr).not.to.match(/\n\s+at /);
        if (mode === 'json') expect(parseDocument(result.stderr).error.exitCode).to.equal(5);
      }
      // `--version` alone is answered by the entry shim before the app loads: its failed write is reported the same way.
      const version = spawnSync(process.execPath, [BIN, '--version'], { env: baseEnv(), stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
      expect(version.status).to.equal(5);
      expect(version.stderr).to.contain('AGENTCTL_E_OUTPUT_WRITE').and.to.contain('ENOSPC');
      expect(version.stderr).not.to.match(/\n\s+at /);
    } finally {
      closeSync(full);
    }
  });

  it('a deleted current folder is a usage error, without a stack trace', () => {
    const space = workspace();
    try {
      const gone = join(space.dir, 'gone');
      mkdirSync(gone);
      const script = `cd "$1" && rmdir "$1" && exec "$2" "$3" check "$4" --output json`;
      const result = spawnSync('/bin/sh', ['-c', script, 'sh', gone, process.execPath, BIN, join(ROOT, 'examples', 'hello.yaml')], { env: baseEnv(), encoding: 'utf8' });
      const document = errorDocument({ status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr }, 2);
      expect(document.error.message).to.match(/current folder cannot be read/);
      expect(result.stderr).not.to.match(/\n\s+at /);
    } finally {
      space.cleanup();
    }
  });

  it('human mode: a usage error goes to stderr and stdout stays empty', () => {
    const result = runCli(['bogus']);
    expect(result.status).to.equal(2);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.contain('AGENTCTL_E_USAGE');
  });
});

describe('completion and --version', () => {
  it('completion bash prints a shell completion script naming the commands', () => {
    const result = runCli(['completion', 'bash']);
    expect(result.status).to.equal(0);
    expect(result.stdout).to.contain('agentctl').and.to.contain('complete');
  });

  it('--version prints the bare version and exits 0', () => {
    const result = runCli(['--version']);
    expect(result.status).to.equal(0);
    expect(result.stdout).to.match(/^\d+\.\d+\.\d+\n$/);
    expect(result.stderr).to.equal('');
    expect(result.stdout.trim()).to.equal((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
    // A reader that goes away first is not an error: no message, no stack trace.
    const gone = spawnSync('bash', ['-c', 'set -o pipefail; "$0" "$1" --version | true', process.execPath, BIN], { env: baseEnv(), encoding: 'utf8' });
    expect(gone.status, gone.stderr).to.equal(0);
    expect(gone.stderr).to.equal('');
  });
});

describe('inputs and standard input', () => {
  const hello = join(ROOT, 'examples', 'hello.yaml');
  let space: ReturnType<typeof workspace>;
  beforeEach(() => (space = workspace()));
  afterEach(() => space.cleanup());

  it('--input n=1e999 is refused: not a finite number', () => {
    for (const args of [['--input', 'name=1e999'], ['--inputs', '{"name": [1, -1e999]}']]) {
      const document = errorDocument(runCli(['plan', hello, ...args, '--output', 'json']), 2);
      expect(diagnosticWithCode(document, 'AGENTCTL_E_INPUT_INVALID').message).to.match(/a number is not finite/);
    }
  });

  it('--inputs-file refuses a key given twice in one object and accepts a UTF-8 byte order mark', () => {
    space.write('twice.json', '{"name": "a", "n\\u0061me": "b"}');
    const document = errorDocument(runCli(['plan', hello, '--inputs-file', space.file('twice.json'), '--output', 'json']), 2);
    expect(diagnosticWithCode(document, 'AGENTCTL_E_INPUT_INVALID').message).to.equal(`--inputs-file ${space.file('twice.json')}: the key "name" appears twice in one object`);
    space.write('nested.json', '{"name": {"a": 1, "b": {"a": 2}, "c": [{"a": 3}]}}');
    expect(outcome(runCli(['plan', hello, '--inputs-file', space.file('nested.json'), '--output', 'json']), 0).data.inputs.name).to.deep.equal({ a: 1, b: { a: 2 }, c: [{ a: 3 }] });
    space.write('bom.json', '\ufeff{"name": "Ada"}');
    expect(outcome(runCli(['plan', hello, '--inputs-file', space.file('bom.json'), '--output', 'json']), 0).data.inputs).to.deep.equal({ name: 'Ada' });
  });

  it('check - and plan - read the workflow from standard input, bounded to 1 MiB', () => {
    const text = readFileSync(hello, 'utf8');
    const run = (args: string[], input: string | Buffer) => {
      const result = spawnSync(process.execPath, [BIN, ...args], { env: baseEnv(), input, encoding: 'utf8' });
      return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
    };
    expect(outcome(run(['check', '-', '--output', 'json'], text), 0).data).to.deep.include({ file: '<stdin>', workflow: 'hello', tasks: 2 });
    expect(outcome(run(['plan', '-', '--input', 'name=Ada', '--output', 'json'], text), 0).data.tasks.greet.input).to.deep.equal({ greeting: 'hello, Ada' });
    const broken = diagnosticWithCode(errorDocument(run(['check', '-', '--output', 'json'], text.replace('kind: Workflow', 'kind: [Workflow')), 2), 'AGENTCTL_E_YAML_SYNTAX');
    expect(broken.file).to.equal('<stdin>');
    const large = diagnosticWithCode(errorDocument(run(['check', '-', '--output', 'json'], Buffer.alloc(3 * 1024 * 1024, 0x20)), 2), 'AGENTCTL_E_DOCUMENT_TOO_LARGE');
    expect(large.message).to.equal('workflow from standard input is more than 1048576 bytes; the limit is 1048576 bytes (1 MiB)');
    expect(errorDocument(run(['run', '-', '--output', 'json'], text), 2).error.message).to.equal('the workflow file cannot be - (standard input) here');
  });
});

describe('human run summary', () => {
  it('prints the run\'s outputs after the summary, neutralizing text that came from tasks', () => {
    const space = workspace();
    try {
      const file = space.write(
        'wf.yaml',
        workflow({
          inputs: { note: 'line one\n::error::forged\u001b[31m' },
          actions: { set: { kind: 'builtin.assign' } },
          tasks: [{ id: 'a', uses: 'action:set', with: { note: '${{ inputs.note }}', count: 3 } }],
          outputs: { note: '${{ tasks.a.output.output.note }}', count: '${{ tasks.a.output.output.count }}' },
        }),
      );
      const result = runCli(['run', file, '--db', space.db]);
      expect(result.status, result.stderr).to.equal(0);
      const lines = result.stdout.split('\n');
      expect(lines[0]).to.match(/^run run_\S+ succeeded: 1 succeeded$/);
      expect(lines.slice(1)).to.deep.equal(['outputs:', '  note: line one', '    \\x3a:error::forged\\x1b[31m', '  count: 3', '']);
    } finally {
      space.cleanup();
    }
  });
});
