// @ts-check
import { ActionKindTester } from '@agentctl/testing';
import { hello } from '../index.mjs';

new ActionKindTester({ plugins: [hello] }).run('hello.greet', {
  valid: [
    { name: 'greets by name', input: { name: 'Ada' }, output: { greeting: 'Hello, Ada!' } },
    { name: 'uses the action\'s salutation', action: { salutation: 'Welcome' }, input: { name: 'Grace' }, output: { greeting: 'Welcome, Grace!' } },
    { name: 'a name from a workflow input', inputs: { who: 'Linus' }, input: { name: '${{ inputs.who }}' }, output: { greeting: 'Hello, Linus!' } },
  ],
  invalid: [
    { name: 'the name is required', input: {}, error: { code: 'AGENTCTL_E_SCHEMA' } },
    { name: 'no other input field', input: { name: 'Ada', age: 36 }, error: { code: 'AGENTCTL_E_UNKNOWN_FIELD' } },
    { name: 'a blank name fails the task with the pack\'s own code', input: { name: '   ' }, error: { code: 'AGENTCTL_PACK_HELLO_E_BLANK_NAME', message: 'not blank' } },
  ],
});
