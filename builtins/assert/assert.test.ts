import { ActionKindTester } from '@agentctl/cli/testing';

new ActionKindTester().run('builtin.assert', {
  valid: [
    { name: 'true passes', input: { that: true }, output: { status: 'unchanged', changed: false, passed: true } },
    { name: 'a comparison template keeps its boolean type', inputs: { count: 3 }, input: { that: '${{ inputs.count > 2 }}' }, output: { status: 'unchanged', changed: false, passed: true } },
  ],
  invalid: [
    { name: 'false fails with the message', input: { that: false, message: 'nope' }, error: { code: 'AGENTCTL_E_ASSERTION_FAILED' } },
    { name: 'that must be a boolean', input: { that: 'yes' }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'a templated input is checked when it is rendered', inputs: { flag: 'yes' }, input: { that: '${{ inputs.flag }}' }, error: { code: 'AGENTCTL_E_TASK_INPUT_INVALID' } },
    { name: 'unknown input field', input: { that: true, extra: 1 }, error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
  ],
});
