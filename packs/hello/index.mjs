// @ts-check
// agentctl-pack-hello: one action kind, hello.greet, that turns {name} into {greeting}. It is pure: it touches nothing
// outside the task, so it records no effect and needs no policy or approval.
import { AgentctlError, defineActionKind, z } from '@agentctl/sdk';

export const hello = defineActionKind({
  plugin: 'agentctl-pack-hello',
  version: '0.1.0',
  hostRange: '^0.1.0',
  name: 'hello.greet',
  description: 'Greets someone: {name} in, {greeting} out.',
  errorCodes: {
    AGENTCTL_PACK_HELLO_E_BLANK_NAME: { exitCode: 4, description: 'The name to greet is only white space.' },
  },
  actionSchema: z.strictObject({
    salutation: z.string().min(1).max(40).default('Hello'),
  }),
  inputSchema: z.strictObject({
    name: z.string().max(200),
  }),
  effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
  async dispatch({ action, input }) {
    const name = input.name.trim();
    if (name === '') {
      throw new AgentctlError('AGENTCTL_PACK_HELLO_E_BLANK_NAME', 'hello.greet needs a name that is not blank', { help: 'give the task a with.name' });
    }
    return { greeting: `${action.salutation}, ${name}!` };
  },
});

export default hello;
