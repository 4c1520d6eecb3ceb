// builtin.assign: the task output is its rendered input. No effect.
import { z } from 'zod';
import { defineActionKind, type JsonValue } from '../../sdk/index.js';

export default defineActionKind({
  name: 'builtin.assign',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Outputs its input object unchanged; use it to name and shape values.',
  actionSchema: z.strictObject({}),
  inputSchema: z.record(z.string(), z.json()),
  effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },
  async dispatch({ input }) {
    return input as JsonValue;
  },
});
