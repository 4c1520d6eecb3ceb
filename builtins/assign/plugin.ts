// builtin.assign: the task output is `{output: <its rendered input>}`, the reference implementation's shape, so a
// workflow written for it reads `tasks.ID.output.output.KEY` unchanged. No effect.
import { z } from 'zod';
import { defineActionKind, type JsonObject } from '../../sdk/index.js';

export default defineActionKind({
  plugin: 'builtin.assign',
  name: 'builtin.assign',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Outputs {output: <its input object>}; use it to name and shape values.',
  actionSchema: z.strictObject({}),
  inputSchema: z.record(z.string(), z.json()),
  effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
  async dispatch({ input }) {
    return { output: input as JsonObject };
  },
});
