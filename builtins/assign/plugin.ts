// builtin.assign: the task output is the reference implementation's whole action result — `{status, changed, before,
// after, diff, output, predictability}` with the rendered input as `after` and `output` — so a workflow written for
// it reads `tasks.ID.output.output.KEY` and validates `status` in an outputSchema unchanged. No effect.
import { z } from 'zod';
import { defineActionKind, type JsonObject } from '@agentctl/sdk';

export default defineActionKind({
  plugin: 'builtin.assign',
  name: 'builtin.assign',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Outputs {status: unchanged, changed: false, before: null, after: <input>, diff: null, output: <input>, predictability}.',
  actionSchema: z.strictObject({}),
  inputSchema: z.record(z.string(), z.json()),
  effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
  async dispatch({ input }) {
    const value = input as JsonObject;
    return { status: 'unchanged', changed: false, before: null, after: value, diff: null, output: value, predictability: 'fully_predictable' };
  },
});
