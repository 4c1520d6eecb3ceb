// builtin.assert: fails the task when `that` is false; a pass outputs the reference implementation's result
// `{status: unchanged, changed: false, passed: true}`. No effect.
import { z } from 'zod';
import { AgentctlError, defineActionKind } from '@agentctl/sdk';

export default defineActionKind({
  plugin: 'builtin.assert',
  name: 'builtin.assert',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Fails the task with `message` when `that` is false.',
  actionSchema: z.strictObject({}),
  inputSchema: z.strictObject({
    that: z.boolean(),
    message: z.string().max(4096).default('assertion failed'),
  }),
  effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
  async dispatch({ input, task }) {
    if (!input.that) throw new AgentctlError('AGENTCTL_E_ASSERTION_FAILED', `task ${task.id}: ${input.message}`);
    return { status: 'unchanged', changed: false, passed: true };
  },
});
