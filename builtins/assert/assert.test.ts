import { testActionKind } from '../../sdk/testing/index.js';

testActionKind('builtin.assert', {
  valid: [{ name: 'true passes', input: { that: true }, output: { passed: true } }],
  invalid: [
    { name: 'false fails with the message', input: { that: false, message: 'nope' }, code: 'AGENTCTL_E_ASSERTION_FAILED' },
    { name: 'that must be a boolean', input: { that: 'yes' }, code: 'AGENTCTL_E_TASK_INPUT_INVALID' },
    { name: 'unknown input field', input: { that: true, extra: 1 }, code: 'AGENTCTL_E_TASK_INPUT_INVALID' },
  ],
});
