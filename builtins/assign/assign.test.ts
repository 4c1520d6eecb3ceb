import { testActionKind } from 'agentctl/sdk/testing';

testActionKind('builtin.assign', {
  valid: [
    { name: 'outputs {output: <its input>}, as the reference implementation', input: { a: 1, b: [true, null], c: { d: 'x' } }, output: { output: { a: 1, b: [true, null], c: { d: 'x' } } } },
    { name: 'empty input', input: {}, output: { output: {} } },
  ],
  invalid: [
    { name: 'input must be an object', input: [1, 2] as never, code: 'AGENTCTL_E_SCHEMA' },
    { name: 'no action fields', action: { extra: 1 }, code: 'AGENTCTL_E_UNKNOWN_FIELD' },
  ],
});
