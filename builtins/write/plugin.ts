// builtin.write: atomic write below a writable root, through the host's confined file service; no effect when the
// content is already in place.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineActionKind } from '@agentctl/sdk';

const MAX_WRITE_BYTES = 16 * 1024 * 1024;

export default defineActionKind({
  plugin: 'builtin.write',
  name: 'builtin.write',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Writes a UTF-8 text file below a writable root: temp file, fsync, rename.',
  actionSchema: z.strictObject({}),
  inputSchema: z.strictObject({
    path: z
      .string()
      .min(1)
      .refine((path) => !path.endsWith('/') && path.split('/').at(-1) !== '.', 'a path ending in "/" names a folder; builtin.write writes a file'),
    content: z.string().refine((text) => Buffer.byteLength(text) <= MAX_WRITE_BYTES, 'content is larger than 16 MiB'),
  }),
  effect: { effectClass: 'workspace_mutate', risk: 'medium', idempotency: 'idempotent' },
  // Before the run, a known path is judged by policy exactly as dispatch will ask.
  describe: (_action, { input }) => {
    const path = (input as { path?: unknown } | undefined)?.path;
    return typeof path === 'string' && path !== '' ? { effects: [{ operation: 'filesystem.write', access: { tool: 'filesystem.write', writes: [path] } }] } : {};
  },
  async dispatch(context) {
    const { path, content } = context.input;
    const bytes = Buffer.from(content, 'utf8');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const result = (changed: boolean) => ({ status: changed ? 'changed' : 'unchanged', changed, path, bytes: bytes.length, sha256 });
    return context.effect(
      { operation: 'filesystem.write', input: { path, sha256, bytes: bytes.length }, access: { tool: 'filesystem.write', writes: [path] } },
      async () => {
        await context.files.writeAtomic(path, bytes);
        return result(true);
      },
      { unchanged: async () => ((await context.files.contentEquals(path, bytes)) ? result(false) : undefined) },
    );
  },
});
