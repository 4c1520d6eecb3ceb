import { testActionKind } from 'agentctl/sdk/testing';

testActionKind('builtin.assign', {
  valid: [
    { name: 'outputs its input', input: { a: 1, b: [true, null], c: { d: 'x' } }, output: { a: 1, b: [true, null], c: { d: 'x' } } },
    { name: 'empty input', input: {}, output: {} },
  ],
  invalid: [
    { name: 'input must be an object', input: [1, 2] as never, code: 'AGENTCTL_E_SCHEMA' },
    { name: 'no action fields', action: { extra: 1 }, code: 'AGENTCTL_E_UNKNOWN_FIELD' },
  ],
});
