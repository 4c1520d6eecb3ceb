import { ActionKindTester } from '@agentctl/cli/testing';

new ActionKindTester().run('builtin.assign', {
  valid: [
    {
      name: "outputs the reference implementation's whole result, the input as after and output",
      input: { a: 1, b: [true, null], c: { d: 'x' } },
      output: { status: 'unchanged', changed: false, before: null, after: { a: 1, b: [true, null], c: { d: 'x' } }, diff: null, output: { a: 1, b: [true, null], c: { d: 'x' } }, predictability: 'fully_predictable' },
    },
    { name: 'empty input', input: {}, output: { status: 'unchanged', changed: false, before: null, after: {}, diff: null, output: {}, predictability: 'fully_predictable' } },
  ],
  invalid: [
    { name: 'input must be an object', input: [1, 2] as never, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'no action fields', action: { extra: 1 }, error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
  ],
});
