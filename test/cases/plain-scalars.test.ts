// A string field written as a plain YAML scalar that YAML reads as a boolean, number or null takes the scalar's
// exact source text; JSON data fields keep the YAML value, and non-string fields still refuse strings.
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome } from './helpers.js';

const header = 'apiVersion: agentctl.dev/v1\nkind: Workflow\nmetadata:\n  name: plain\n';

describe('plain YAML scalars in string fields', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  const cli = (...args: string[]) => runCli([...args, '--output', 'json'], { cwd: ws.dir });

  it('reads processAllowlist: [true, agentctl] as the program names "true" and "agentctl"', () => {
    const file = ws.write(
      'wf.yaml',
      `${header}spec:\n  policy:\n    processAllowlist: [true, agentctl]\n    approval: never\n  actions:\n    ok:\n      kind: builtin.shell.exec\n      command: /usr/bin/true\n  tasks:\n    - id: ok\n      uses: action:ok\n`,
    );
    outcome(cli('check', file), 0);
    expect(outcome(cli('plan', file), 0).data.policy.processAllowlist).to.deep.equal(['true', 'agentctl']);
    expect(outcome(cli('run', file, '--db', ws.db), 0).data.state).to.equal('succeeded');
  });

  it('reads a workflow written as JSON the same way: processAllowlist [true] is the program "true"', () => {
    const document = {
      apiVersion: 'agentctl.dev/v1',
      kind: 'Workflow',
      metadata: { name: 'plain' },
      spec: { policy: { processAllowlist: [true], approval: 'never' }, actions: { ok: { kind: 'builtin.shell.exec', command: '/usr/bin/true' } }, tasks: [{ id: 'ok', uses: 'action:ok' }] },
    };
    const file = ws.write('wf.json', JSON.stringify(document));
    expect(outcome(cli('plan', file), 0).data.policy.processAllowlist).to.deep.equal(['true']);
    expect(outcome(cli('run', file, '--db', ws.db), 0).data.state).to.equal('succeeded');
  });

  it('uses the exact text (1.10, 0x1F, null, ~), keeps quoted strings, and leaves with values as YAML read them', () => {
    const file = ws.write(
      'wf.yaml',
      `${header}spec:\n  policy:\n    processAllowlist: [echo]\n    approval: never\n  actions:\n    say:\n      kind: builtin.shell.exec\n      command: /bin/echo\n      args: [1.10, 0x1F, null, ~, true, "false", '2.50']\n    keep:\n      kind: builtin.assign\n  tasks:\n    - id: say\n      uses: action:say\n    - id: keep\n      uses: action:keep\n      with: {flag: true, version: 1.10, none: ~}\n  outputs:\n    said: "\${{ tasks.say.output.stdout }}"\n    kept: "\${{ tasks.keep.output.output }}"\n`,
    );
    const output = outcome(cli('run', file, '--db', ws.db), 0).data.output;
    expect(output.said).to.equal('1.10 0x1F null ~ true false 2.50\n');
    expect(output.kept).to.deep.equal({ flag: true, version: 1.1, none: null });
  });

  it('still refuses a string where a boolean is wanted', () => {
    const file = ws.write('wf.yaml', `${header}spec:\n  policy:\n    network:\n      allowPrivate: "true"\n  actions:\n    keep:\n      kind: builtin.assign\n  tasks:\n    - id: keep\n      uses: action:keep\n`);
    const found = diagnosticWithCode(errorDocument(cli('check', file), 2), 'AGENTCTL_E_SCHEMA');
    expect(found.path).to.equal('spec.policy.network.allowPrivate');
    expect(found.message).to.match(/boolean/);
  });

  it('still refuses a plain scalar of another type where neither it nor a string fits', () => {
    const file = ws.write('wf.yaml', `${header}spec:\n  runtime:\n    maxConcurrency: true\n  actions:\n    keep:\n      kind: builtin.assign\n  tasks:\n    - id: keep\n      uses: action:keep\n`);
    expect(diagnosticWithCode(errorDocument(cli('check', file), 2), 'AGENTCTL_E_SCHEMA').path).to.equal('spec.runtime.maxConcurrency');
  });
});
