// Compile errors: exit 2, exactly one JSON Error line on stderr, a stable code with file, line and column.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, runCount } from './helpers.js';

const HEADER = ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: t', 'spec:', '  actions:', '    set:', '      kind: builtin.assign'];
const doc = (...lines: string[]) => [...HEADER, ...lines].join('\n') + '\n';

interface Case {
  title: string;
  text: string | (() => string);
  code: string;
  line: number;
  column: number;
  path?: string;
  message?: RegExp;
}

const CASES: Case[] = [
  {
    title: 'an unknown field (position of the key)',
    // line 12, column 7: `bogus`
    text: doc('  tasks:', '    - id: a', '      uses: action:set', '      bogus: 1'),
    code: 'AGENTCTL_E_UNKNOWN_FIELD',
    line: 12,
    column: 7,
    path: 'spec.tasks[0].bogus',
    message: /bogus/,
  },
  {
    title: 'an unknown top-level spec field',
    // line 6, column 3: `extra`
    text: ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: t', 'spec:', '  extra: 1', '  actions:', '    set:', '      kind: builtin.assign', '  tasks:', '    - id: a', '      uses: action:set', ''].join('\n'),
    code: 'AGENTCTL_E_UNKNOWN_FIELD',
    line: 6,
    column: 3,
    path: 'spec.extra',
  },
  {
    title: 'a template with an operator that is not a comparison',
    // line 13, column 17: the quoted value
    text: ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: t', 'spec:', '  inputs: {x: 1}', '  actions:', '    set:', '      kind: builtin.assign', '  tasks:', '    - id: a', '      uses: action:set', '      with: {v: "${{ inputs.x + 1 }}"}', ''].join('\n'),
    code: 'AGENTCTL_E_TEMPLATE_SYNTAX',
    line: 13,
    column: 17,
    path: 'spec.tasks[0].with.v',
  },
  {
    title: 'an unclosed template',
    text: ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: t', 'spec:', '  inputs: {x: 1}', '  actions:', '    set:', '      kind: builtin.assign', '  tasks:', '    - id: a', '      uses: action:set', '      with: {v: "${{ inputs.x"}', ''].join('\n'),
    code: 'AGENTCTL_E_TEMPLATE_SYNTAX',
    line: 13,
    column: 17,
    path: 'spec.tasks[0].with.v',
  },
  {
    title: 'a template naming an undeclared input',
    text: ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: t', 'spec:', '  inputs: {x: 1}', '  actions:', '    set:', '      kind: builtin.assign', '  tasks:', '    - id: a', '      uses: action:set', '      with: {v: "${{ inputs.y }}"}', ''].join('\n'),
    code: 'AGENTCTL_E_TEMPLATE_REFERENCE',
    line: 13,
    column: 17,
    path: 'spec.tasks[0].with.v',
    message: /inputs\.y/,
  },
  {
    title: 'a template naming a task that is not in needs',
    text: doc('  tasks:', '    - id: a', '      uses: action:set', '      with: {v: "${{ tasks.b.output.v }}"}', '    - id: b', '      uses: action:set'),
    code: 'AGENTCTL_E_TEMPLATE_REFERENCE',
    line: 12,
    column: 17,
    path: 'spec.tasks[0].with.v',
    message: /tasks\.b/,
  },
  {
    title: 'a dependency cycle',
    text: doc('  tasks:', '    - id: a', '      uses: action:set', '      needs: [b]', '    - id: b', '      uses: action:set', '      needs: [a]'),
    code: 'AGENTCTL_E_DEPENDENCY_CYCLE',
    line: 12,
    column: 14,
    message: /a → b → a/,
  },
  {
    title: 'needs naming a missing task',
    text: doc('  tasks:', '    - id: a', '      uses: action:set', '      needs: [ghost]'),
    code: 'AGENTCTL_E_UNKNOWN_DEPENDENCY',
    line: 12,
    column: 15,
    path: 'spec.tasks[0].needs[0]',
    message: /ghost/,
  },
  {
    title: 'invalid YAML (a duplicate key)',
    text: ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: t', '  name: u', ''].join('\n'),
    code: 'AGENTCTL_E_YAML_SYNTAX',
    line: 5,
    column: 3,
  },
  {
    title: 'invalid YAML (a nested compact mapping)',
    text: ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: a: b', ''].join('\n'),
    code: 'AGENTCTL_E_YAML_SYNTAX',
    line: 4,
    column: 9,
  },
  {
    title: 'a duplicate task id',
    text: doc('  tasks:', '    - id: a', '      uses: action:set', '    - id: a', '      uses: action:set'),
    code: 'AGENTCTL_E_DUPLICATE_TASK',
    line: 12,
    column: 11,
  },
  {
    title: 'an unsupported apiVersion',
    text: ['apiVersion: agentctl.dev/v2', 'kind: Workflow', 'metadata:', '  name: t', 'spec:', '  actions:', '    set:', '      kind: builtin.assign', '  tasks:', '    - id: a', '      uses: action:set', ''].join('\n'),
    code: 'AGENTCTL_E_API_VERSION',
    line: 1,
    column: 13,
  },
  {
    title: 'a file over 1 MiB',
    text: () => doc('  tasks:', '    - id: a', '      uses: action:set') + `# ${'x'.repeat(1024 * 1024)}\n`,
    code: 'AGENTCTL_E_DOCUMENT_TOO_LARGE',
    line: 1,
    column: 1,
    message: /1048576/,
  },
  {
    title: 'an unknown action kind',
    text: [...HEADER.slice(0, -1), '      kind: builtin.nope', '  tasks:', '    - id: a', '      uses: action:set', ''].join('\n'),
    code: 'AGENTCTL_E_UNKNOWN_ACTION_KIND',
    line: 8,
    column: 13,
    path: 'spec.actions.set.kind',
    message: /builtin\.nope/,
  },
  {
    title: 'a merge key tagged where a list of strings expects a string (- !!merge <<)',
    // line 15, column 19: the tagged `<<` in needs; it used to end in "internal error: Symbol(<<) could not be cloned"
    text: doc('  tasks:', '    - id: a', '      uses: action:set', '    - id: b', '      uses: action:set', '      needs:', '        - !!merge <<'),
    code: 'AGENTCTL_E_YAML_VALUE',
    line: 15,
    column: 19,
    path: 'spec.tasks[1].needs[0]',
    message: /^spec\.tasks\[1\]\.needs\[0\] is a YAML merge key \(<<\) where a value is expected, which has no JSON form$/,
  },
];

describe('compile errors', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  for (const item of CASES) {
    it(`check: ${item.title} → ${item.code} at ${item.line}:${item.column}`, () => {
      const file = ws.write('wf.yaml', typeof item.text === 'function' ? item.text() : item.text);
      const document = errorDocument(runCli(['check', file, '--output', 'json']), 2);
      expect(document.error.runId).to.equal(null);
      const found = diagnosticWithCode(document, item.code);
      expect(document.diagnostics[0].code).to.equal(item.code);
      expect(found.severity).to.equal('error');
      expect(found.file).to.equal(file);
      expect(found.line).to.equal(item.line);
      expect(found.column).to.equal(item.column);
      if (item.path) expect(found.path).to.equal(item.path);
      if (item.message) expect(found.message).to.match(item.message);
    });
  }

  it('check: a missing file → AGENTCTL_E_FILE_NOT_FOUND naming the file', () => {
    const file = ws.file('absent.yaml');
    const document = errorDocument(runCli(['check', file, '--output', 'json']), 2);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_FILE_NOT_FOUND');
    expect(found.file).to.equal(file);
    expect(found.line).to.equal(1);
    expect(found.column).to.equal(1);
  });

  it('check: a document of exactly 1 MiB is accepted', () => {
    const body = doc('  tasks:', '    - id: a', '      uses: action:set');
    const padding = 1024 * 1024 - Buffer.byteLength(body) - 3;
    const file = ws.write('wf.yaml', `${body}# ${'x'.repeat(padding)}\n`);
    const document = outcome(runCli(['check', file, '--output', 'json']), 0);
    expect(document.kind).to.equal('CheckResult');
    expect(document.data.workflow).to.equal('t');
    expect(document.data.tasks).to.equal(1);
  });

  it('check: apiVersion agentctl.dev/v1alpha1 is accepted as an alias', () => {
    const file = ws.write('wf.yaml', doc('  tasks:', '    - id: a', '      uses: action:set').replace('agentctl.dev/v1', 'agentctl.dev/v1alpha1'));
    expect(outcome(runCli(['check', file, '--output', 'json']), 0).kind).to.equal('CheckResult');
  });

  it('check: a valid workflow → CheckResult on stdout, nothing on stderr', () => {
    const file = ws.write('wf.yaml', doc('  tasks:', '    - id: a', '      uses: action:set'));
    const result = runCli(['check', file, '--output', 'json']);
    const document = outcome(result, 0);
    expect(result.stderr).to.equal('');
    expect(document).to.deep.include({ kind: 'CheckResult', ok: true, diagnostics: [] });
    expect(document.data).to.deep.include({ file, workflow: 't', tasks: 1, actions: 1 });
    expect(document.data.digest).to.match(/^[0-9a-f]{64}$/);
  });

  for (const code of ['AGENTCTL_E_UNKNOWN_FIELD', 'AGENTCTL_E_DEPENDENCY_CYCLE', 'AGENTCTL_E_TEMPLATE_REFERENCE', 'AGENTCTL_E_YAML_SYNTAX']) {
    it(`run: ${code} exits 2 with the same diagnostic and creates no run`, () => {
      const item = CASES.find((entry) => entry.code === code)!;
      const file = ws.write('wf.yaml', item.text as string);
      const document = errorDocument(runCli(['run', file, '--db', ws.db, '--output', 'json']), 2);
      expect(document.error.runId).to.equal(null);
      const found = diagnosticWithCode(document, code);
      expect([found.file, found.line, found.column]).to.deep.equal([file, item.line, item.column]);
      expect(runCount(ws.db)).to.equal(0);
    });
  }

  it('run: a missing file exits 2 and does not create the database', () => {
    const document = errorDocument(runCli(['run', ws.file('absent.yaml'), '--db', ws.db, '--output', 'json']), 2);
    diagnosticWithCode(document, 'AGENTCTL_E_FILE_NOT_FOUND');
    expect(existsSync(ws.db)).to.equal(false);
  });

  it('run: a compile error against an existing database adds no run row', () => {
    const good = ws.write('good.yaml', doc('  tasks:', '    - id: a', '      uses: action:set'));
    outcome(runCli(['run', good, '--db', ws.db, '--output', 'json']), 0);
    const bad = ws.write('bad.yaml', CASES[0]!.text as string);
    errorDocument(runCli(['run', bad, '--db', ws.db, '--output', 'json']), 2);
    expect(runCount(ws.db)).to.equal(1);
  });

  it('check reports schema errors in tasks and actions, unknown kinds and template references in one pass', () => {
    const file = ws.write(
      'wf.yaml',
      [...HEADER, '    run:', '      kind: builtin.shell.exec', '      comand: echo', '    odd:', '      kind: builtin.nope', '  tasks:', '    - id: a', '      uses: action:set', '      neds: [b]', '    - id: b', '      uses: action:set', '      with: {v: "${{ inputs.missing }}"}', ''].join('\n'),
    );
    const document = errorDocument(runCli(['check', file, '--output', 'json']), 2);
    expect(document.diagnostics.map((item: any) => [item.code, item.path, item.line])).to.deep.equal([
      ['AGENTCTL_E_UNKNOWN_FIELD', 'spec.tasks[0].neds', 17],
      ['AGENTCTL_E_SCHEMA', 'spec.actions.run.command', 10],
      ['AGENTCTL_E_UNKNOWN_FIELD', 'spec.actions.run.comand', 11],
      ['AGENTCTL_E_UNKNOWN_ACTION_KIND', 'spec.actions.odd.kind', 13],
      ['AGENTCTL_E_TEMPLATE_REFERENCE', 'spec.tasks[1].with.v', 20],
    ]);
    expect(document.diagnostics[0].help).to.match(/^did you mean "needs"\?/);
    expect(document.diagnostics[1].message).to.equal('spec.actions.run: missing required field "command"');
    expect(document.diagnostics[2].help).to.match(/^did you mean "command"\?/);
  });

  it('check: a needs cycle of 5,000 tasks is AGENTCTL_E_DEPENDENCY_CYCLE, not a stack overflow', () => {
    const tasks = Array.from({ length: 5000 }, (_, index) => `    - {id: t${index}, uses: "action:set", needs: [t${(index + 1) % 5000}]}`);
    const file = ws.write('wf.yaml', doc('  tasks:', ...tasks));
    const document = errorDocument(runCli(['check', file, '--output', 'json']), 2);
    const found = diagnosticWithCode(document, 'AGENTCTL_E_DEPENDENCY_CYCLE');
    expect(found.message).to.match(/^tasks form a cycle: t0 → t4999 → .* → … → t0 \(5000 tasks\)$/);
    expect([found.line, found.path]).to.deep.equal([10, 'spec.tasks[0].needs']);
  });

  it('check and run: an alias expansion beyond 4 MiB of JSON is refused, and run records nothing', () => {
    const anchors = Array.from({ length: 12 }, (_, index) => `    a${index}: &a${index} "${'x'.repeat(80000)}"`);
    const aliases = Array.from({ length: 12 }, (_, index) => `        k${index}: [${Array.from({ length: 99 }, () => `*a${index}`).join(', ')}]`);
    const text = ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: t', 'spec:', '  vars:', ...anchors, '  actions:', '    set:', '      kind: builtin.assign', '  tasks:', '    - id: a', '      uses: action:set', '      with:', ...aliases, ''].join('\n');
    const file = ws.write('wf.yaml', text);
    const found = diagnosticWithCode(errorDocument(runCli(['check', file, '--output', 'json']), 2), 'AGENTCTL_E_DOCUMENT_TOO_LARGE');
    expect(found.message).to.match(/expands to more than 4194304 bytes \(4 MiB\) of JSON/);
    expect(found.line).to.equal(26);
    diagnosticWithCode(errorDocument(runCli(['run', file, '--db', ws.db, '--output', 'json']), 2), 'AGENTCTL_E_DOCUMENT_TOO_LARGE');
    expect(existsSync(ws.db)).to.equal(false);
  });

  it('check: the 1 MiB cap is a bounded read: a /proc file of stat size 0 is refused, a FIFO does not block', () => {
    const proc = runCli(['check', '/proc/self/pagemap', '--output', 'json'], { timeoutMs: 20_000 });
    diagnosticWithCode(errorDocument(proc, 2), 'AGENTCTL_E_DOCUMENT_TOO_LARGE');
    const fifo = ws.file('pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    const result = runCli(['check', fifo, '--output', 'json'], { timeoutMs: 20_000 });
    const found = diagnosticWithCode(errorDocument(result, 2), 'AGENTCTL_E_FILE_NOT_FOUND');
    expect(found.message).to.equal('workflow file cannot be read: it is not a regular file');
  });

  it('human mode: the error goes to stderr with code and file:line:column; stdout is empty', () => {
    const file = ws.write('wf.yaml', CASES[0]!.text as string);
    const result = runCli(['check', file]);
    expect(result.status).to.equal(2);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.contain('AGENTCTL_E_UNKNOWN_FIELD');
    expect(result.stderr).to.contain(`${file}:12:7`);
    expect(result.stderr).to.not.match(/\n\s+at .+\(.*:\d+:\d+\)/);
  });
});
