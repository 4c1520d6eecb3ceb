// builtin.write: atomic write below a writable root; no effect when the content is already in place.
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { defineActionKind, EffectFailure } from '../../sdk/index.js';

const MAX_WRITE_BYTES = 16 * 1024 * 1024;

export default defineActionKind({
  name: 'builtin.write',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Writes a UTF-8 text file below a writable root: temp file, fsync, rename.',
  actionSchema: z.strictObject({}),
  inputSchema: z.strictObject({
    path: z.string().min(1),
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
    const absolute = context.resolvePath(path);
    const bytes = Buffer.from(content, 'utf8');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const result = (changed: boolean) => ({ path, changed, bytes: bytes.length, sha256 });
    return context.effect(
      { operation: 'filesystem.write', input: { path, sha256, bytes: bytes.length }, access: { tool: 'filesystem.write', writes: [path] } },
      async () => {
        await writeAtomically(absolute, bytes, path);
        return result(true);
      },
      { unchanged: async () => ((await currentDigest(absolute, bytes.length, path)) === sha256 ? result(false) : undefined) },
    );
  },
});

/** Digest of the file in place when it could equal the new content; a target that is not a regular file is refused. */
async function currentDigest(absolute: string, size: number, path: string): Promise<string | undefined> {
  let stats;
  try {
    stats = await lstat(absolute);
  } catch {
    return undefined;
  }
  if (!stats.isFile()) throw new EffectFailure('failed', 'AGENTCTL_E_FILE_WRITE', `cannot write ${path}: it exists and is not a regular file`);
  if (stats.size !== size) return undefined;
  return createHash('sha256').update(await readFile(absolute)).digest('hex');
}

async function writeAtomically(absolute: string, bytes: Buffer, path: string): Promise<void> {
  const folder = dirname(absolute);
  const temporary = join(folder, `.${basename(absolute)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(folder, { recursive: true });
    const handle = await open(temporary, 'wx', 0o644);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, absolute);
    const directory = await open(folder, 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  } catch (error) {
    // A failed cleanup must not hide the definite failure that caused it.
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new EffectFailure('failed', 'AGENTCTL_E_FILE_WRITE', `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}
