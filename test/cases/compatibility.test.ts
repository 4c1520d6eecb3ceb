// Workflows in the reference implementation's format (agentctl.dev/v1, SPEC §2) run here unchanged.
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { outcome, useWorkspace } from './helpers.js';

describe('compatibility with the reference format', () => {
  const state = useWorkspace();

  it('builtin.assign outputs the reference result {status, ..., output: <its with>}, read as tasks.ID.output.output.KEY', () => {
    state.ws.write(
      'hello.yaml',
      [
        'apiVersion: agentctl.dev/v1alpha1',
        'kind: Workflow',
        'metadata:',
        '  name: hello',
        'spec:',
        '  inputs:',
        '    name: world',
        '  outputs:',
        '    greeting: "${{ tasks.greet.output.output.message }}"',
        '    whole: "${{ tasks.greet.output }}"',
        '  actions:',
        '    assign:',
        '      kind: builtin.assign',
        '    assert:',
        '      kind: builtin.assert',
        '  tasks:',
        '    - id: greet',
        '      uses: action:assign',
        '      with:',
        '        message: "hello, ${{ inputs.name }}"',
        '        flags: { enabled: true }',
        '    - id: verify',
        '      uses: action:assert',
        '      needs: [greet]',
        '      with:',
        '        that: "${{ tasks.greet.output.output.flags.enabled }}"',
        '        message: typed dataflow failed',
        '',
      ].join('\n'),
    );
    const document = outcome(runCli(['run', state.ws.file('hello.yaml'), '--db', state.ws.db, '--output', 'json']), 0);
    expect(document.data.output).to.deep.equal({
      greeting: 'hello, world',
      whole: {
        status: 'unchanged',
        changed: false,
        before: null,
        after: { message: 'hello, world', flags: { enabled: true } },
        diff: null,
        output: { message: 'hello, world', flags: { enabled: true } },
        predictability: 'fully_predictable',
      },
    });
  });
});
