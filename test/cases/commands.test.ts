// The read-only commands (plan, schema, plugins list, version) and usage errors in JSON mode.
import { join } from 'node:path';
import { expect } from 'chai';
import { ROOT, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, workflow } from './helpers.js';

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
    expect(document.data.tasks.map((task: any) => [task.id, task.effectClass])).to.deep.equal([
      ['one', 'process_execution'],
      ['two', 'process_execution'],
      ['three', 'process_execution'],
      ['pure', 'pure'],
    ]);
  });

  it('plan renders --input values into task inputs', () => {
    const document = outcome(runCli(['plan', join(ROOT, 'examples', 'hello.yaml'), '--output', 'json', '--input', 'name=Ada']), 0);
    expect(document.data.inputs).to.deep.equal({ name: 'Ada' });
    expect(document.data.tasks[0].input).to.deep.equal({ greeting: 'hello, Ada' });
    expect(document.data.processes).to.deep.equal([]);
  });
});

describe('schema, plugins, version', () => {
  it('schema --output json: data is a JSON Schema of the workflow', () => {
    const document = outcome(runCli(['schema', '--output', 'json']), 0);
    expect(document.kind).to.equal('Schema');
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
    expect(document.data.databaseSchemaVersion).to.equal(3);
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

  it('human mode: a usage error goes to stderr and stdout stays empty', () => {
    const result = runCli(['bogus']);
    expect(result.status).to.equal(2);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.contain('AGENTCTL_E_USAGE');
  });
});

describe('completion and --version', () => {
  it('completion prints a shell completion script naming the commands', () => {
    const result = runCli(['completion']);
    expect(result.status).to.equal(0);
    expect(result.stdout).to.contain('agentctl').and.to.contain('complete');
  });

  it('--version prints the bare version and exits 0', () => {
    const result = runCli(['--version']);
    expect(result.status).to.equal(0);
    expect(result.stdout).to.match(/^\d+\.\d+\.\d+\n$/);
    expect(result.stderr).to.equal('');
  });
});
