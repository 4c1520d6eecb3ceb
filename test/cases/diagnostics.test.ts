// The diagnostic contract (SPEC §11): every diagnostic the CLI prints has all eight fields — code, severity,
// message, file, line, column, path, help — with null where one does not apply, and a help that says what to do.
import { join } from 'node:path';
import { expect } from 'chai';
import { ERROR_CODES } from '@agentctl/sdk';
import { completeDiagnostic } from '../../core/cli/output.js';
import { parseDocument, ROOT, runCli, type CliResult } from '../support/cli.js';
import { shellWorkflow, useWorkspace, workflow } from './helpers.js';

const FIELDS = ['code', 'severity', 'message', 'file', 'line', 'column', 'path', 'help'];

/** The diagnostics of the one JSON document the invocation printed (stdout first, then stderr). */
function diagnosticsOf(result: CliResult): any[] {
  const document = parseDocument(result.stdout.trim() ? result.stdout : result.stderr);
  return document.diagnostics;
}

function expectComplete(items: any[], title: string): void {
  expect(items, title).to.be.an('array').that.is.not.empty;
  for (const item of items) {
    expect(Object.keys(item).slice(0, 8), `${title}: ${JSON.stringify(item)}`).to.deep.equal(FIELDS);
    expect(item.help, `${title}: help of ${item.code}`).to.be.a('string').that.is.not.empty;
    for (const field of ['file', 'path']) expect(item[field] === null || typeof item[field] === 'string', `${title}: ${field}`).to.equal(true);
    for (const field of ['line', 'column']) expect(item[field] === null || Number.isInteger(item[field]), `${title}: ${field}`).to.equal(true);
  }
}

describe('diagnostic contract', () => {
  const state = useWorkspace();
  const header = ['apiVersion: agentctl.dev/v1', 'kind: Workflow', 'metadata:', '  name: t', 'spec:', '  actions:', '    set:', '      kind: builtin.assign'];

  it('every core code declares a non-empty, one-line help', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(info.help, code).to.be.a('string').and.match(/\S/);
      expect(info.help, code).not.to.contain('\n');
    }
  });

  it('completeDiagnostic fills the missing fields with null and the code\'s help, keeping the extra fields', () => {
    expect(completeDiagnostic({ code: 'AGENTCTL_E_UNKNOWN_DEPENDENCY', severity: 'error', message: 'm', taskId: 't' })).to.deep.equal({
      code: 'AGENTCTL_E_UNKNOWN_DEPENDENCY',
      severity: 'error',
      message: 'm',
      file: null,
      line: null,
      column: null,
      path: null,
      help: ERROR_CODES.AGENTCTL_E_UNKNOWN_DEPENDENCY.help,
      taskId: 't',
    });
    expect(completeDiagnostic({ code: 'ACME_E_BROKEN', severity: 'error', message: 'm', plugin: 'acme' }).help).to.equal('see the documentation of plugin acme for ACME_E_BROKEN');
  });

  it('a YAML syntax error, an unknown needs target, a schema error and a cycle all carry the eight fields', () => {
    const cases: [string, string][] = [
      ['yaml', [...header.slice(0, 4), '  name: u', ''].join('\n')],
      ['needs', [...header, '  tasks:', '    - id: a', '      uses: action:set', '      needs: [ghost]', ''].join('\n')],
      ['schema', [...header, '  tasks:', '    - id: a', '      uses: action:set', '      retry: {maxAttempts: 99}', '      bogus: 1', ''].join('\n')],
      ['cycle', [...header, '  tasks:', '    - {id: a, uses: "action:set", needs: [b]}', '    - {id: b, uses: "action:set", needs: [a]}', ''].join('\n')],
    ];
    for (const [title, text] of cases) {
      state.ws.write(`${title}.yaml`, text);
      const result = runCli(['check', state.ws.file(`${title}.yaml`), '--output', 'json']);
      expect(result.status, title).to.equal(2);
      expectComplete(diagnosticsOf(result), title);
    }
    const needs = diagnosticsOf(runCli(['check', state.ws.file('needs.yaml'), '--output', 'json']))[0];
    expect(needs).to.include({ code: 'AGENTCTL_E_UNKNOWN_DEPENDENCY', path: 'spec.tasks[0].needs[0]', line: 12 });
    expect(needs.help).to.match(/declared task ids: a/);
    expect(diagnosticsOf(runCli(['check', state.ws.file('yaml.yaml'), '--output', 'json']))[0]).to.include({ code: 'AGENTCTL_E_YAML_SYNTAX', path: null });
  });

  it('usage, input, file, database, run-failure and policy diagnostics carry the eight fields', () => {
    state.ws.write('assert.yaml', workflow({ actions: { check: { kind: 'builtin.assert' } }, tasks: [{ id: 'a', uses: 'action:check', with: { that: false, message: 'no' } }] }));
    state.ws.write('denied.yaml', shellWorkflow({ command: 'true' }, { approval: 'never' }));
    const hello = join(ROOT, 'examples', 'hello.yaml');
    const invocations: [string, string[], number][] = [
      ['unknown command', ['bogus', '--output', 'json'], 2],
      ['unknown flag', ['check', hello, '--bogus', '--output', 'json'], 2],
      ['missing file', ['check', state.ws.file('absent.yaml'), '--output', 'json'], 2],
      ['undeclared input', ['plan', hello, '--input', 'colour=blue', '--output', 'json'], 2],
      ['missing database', ['runs', 'list', '--db', state.ws.file('none/runtime.db'), '--output', 'json'], 5],
      ['failed run', ['run', state.ws.file('assert.yaml'), '--db', state.ws.db, '--output', 'json'], 4],
      ['policy denial', ['run', state.ws.file('denied.yaml'), '--db', state.ws.db, '--output', 'json'], 4],
    ];
    for (const [title, args, exitCode] of invocations) {
      const result = runCli(args);
      expect(result.status, `${title}: ${result.stderr}`).to.equal(exitCode);
      expectComplete(diagnosticsOf(result), title);
    }
  });
});
