import { ActionKindTester } from 'agentctl/sdk/testing';

new ActionKindTester().run('builtin.assign', {
  valid: [
    { name: 'outputs {output: <its input>}, as the reference implementation', input: { a: 1, b: [true, null], c: { d: 'x' } }, output: { output: { a: 1, b: [true, null], c: { d: 'x' } } } },
    { name: 'empty input', input: {}, output: { output: {} } },
  ],
  invalid: [
    { name: 'input must be an object', input: [1, 2] as never, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'no action fields', action: { extra: 1 }, error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
  ],
});
