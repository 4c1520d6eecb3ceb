import { ActionKindTester } from '@agentctl/cli/testing';

new ActionKindTester().run('builtin.memory.write', {
  valid: [
    { name: 'writes a new key: changed, before null', input: { key: 'note', value: { a: [1, null] } }, output: { status: 'changed', changed: true, before: null, after: { a: [1, null] }, key: 'note' } },
    { name: 'value defaults to null', input: { key: 'empty' }, output: { status: 'changed', changed: true, before: null, after: null, key: 'empty' } },
  ],
  invalid: [
    { name: 'the key is not empty', input: { key: '', value: 1 }, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'no other input field', input: { key: 'k', other: 1 }, error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
    { name: 'no action fields', action: { extra: 1 }, input: { key: 'k' }, error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
  ],
});

new ActionKindTester().run('builtin.memory.read', {
  valid: [],
  invalid: [
    { name: 'a literal key nothing provides is refused before the run', input: { key: 'nothing' }, error: { code: 'AGENTCTL_E_MEMORY_KEY_UNKNOWN' } },
    { name: 'the key is a string', input: { key: 3 } as never, error: { code: 'AGENTCTL_E_SCHEMA' } },
  ],
});
