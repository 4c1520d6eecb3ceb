// builtin.read: reads a UTF-8 file (anything else is refused, never decoded lossily) inside the workspace, at most 1 MiB, through the host's confined file service.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineActionKind, utf8Text } from '@agentctl/sdk';

const MAX_READ_BYTES = 1024 * 1024;

/** A path ending in "/" (or "/.") names a folder, never the file before it. */
const filePath = () =>
  z
    .string()
    .min(1)
    .refine((path) => !path.endsWith('/') && path.split('/').at(-1) !== '.', 'a path ending in "/" names a folder; builtin.read reads a file');

export default defineActionKind({
  plugin: 'builtin.read',
  name: 'builtin.read',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Reads a UTF-8 text file inside the workspace root (at most 1 MiB).',
  actionSchema: z.strictObject({}),
  inputSchema: z.strictObject({ path: filePath() }),
  effect: { effectClass: 'observe', risk: 'low', idempotency: 'idempotent' },
  // Before the run, a known path is judged by policy exactly as dispatch will ask.
  describe: (_action, { input }) => {
    const path = (input as { path?: unknown } | undefined)?.path;
    return typeof path === 'string' && path !== '' ? { effects: [{ operation: 'filesystem.read', access: { tool: 'filesystem.read', reads: [path] } }] } : {};
  },
  async dispatch(context) {
    const { path } = context.input;
    return context.effect({ operation: 'filesystem.read', input: { path }, access: { tool: 'filesystem.read', reads: [path] } }, async () => {
      const content = await context.files.read(path, { maxBytes: MAX_READ_BYTES });
      return { status: 'unchanged', changed: false, path, content: utf8Text(content, path), bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') };
    });
  },
});
