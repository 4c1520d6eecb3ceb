// builtin.read: reads a UTF-8 file inside the workspace, at most 1 MiB.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { z } from 'zod';
import { defineActionKind, EffectFailure } from '../../sdk/index.js';

const MAX_READ_BYTES = 1024 * 1024;

export default defineActionKind({
  name: 'builtin.read',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Reads a UTF-8 text file inside the workspace root (at most 1 MiB).',
  actionSchema: z.strictObject({}),
  inputSchema: z.strictObject({ path: z.string().min(1) }),
  effect: { effectClass: 'observe', risk: 'low', idempotency: 'idempotent' },
  // Before the run, a known path is judged by policy exactly as dispatch will ask.
  describe: (_action, { input }) => {
    const path = (input as { path?: unknown } | undefined)?.path;
    return typeof path === 'string' && path !== '' ? { effects: [{ operation: 'filesystem.read', access: { tool: 'filesystem.read', reads: [path] } }] } : {};
  },
  async dispatch(context) {
    const { path } = context.input;
    const absolute = context.resolvePath(path);
    return context.effect({ operation: 'filesystem.read', input: { path }, access: { tool: 'filesystem.read', reads: [path] } }, async () => {
      const content = await readBounded(absolute, path);
      return { path, content: content.toString('utf8'), bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') };
    });
  },
});

async function readBounded(absolute: string, path: string): Promise<Buffer> {
  let handle;
  try {
    // Non-blocking open: a FIFO in the workspace must not hang the run; it is refused just below.
    handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new EffectFailure('failed', 'AGENTCTL_E_FILE_READ', `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new EffectFailure('failed', 'AGENTCTL_E_FILE_READ', `${path} is not a regular file`);
    // Read one byte past the limit so a file that grew after stat is still caught.
    const buffer = Buffer.alloc(MAX_READ_BYTES + 1);
    let total = 0;
    while (total < buffer.length) {
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    if (total > MAX_READ_BYTES) {
      throw new EffectFailure('failed', 'AGENTCTL_E_FILE_TOO_LARGE', `${path} is larger than ${MAX_READ_BYTES} bytes (1 MiB)`);
    }
    return buffer.subarray(0, total);
  } finally {
    await handle.close();
  }
}
