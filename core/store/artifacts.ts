// The artifact store (SPEC §7): immutable, content-addressed blobs beside the database, at
// artifacts/sha256/<2 hex>/<64 hex>. The database says which task wrote which path with which digest; this module
// only moves bytes, so a blob may exist before (or without) its row, never a row's blob with other bytes unnoticed.
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readFile, rename, unlink, utimes } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { AgentctlError } from '@agentctl/sdk';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_DIRECTORY } = constants;

/** A blob as the database refers to it: `sha256:<64 hex>` and its size in bytes. */
export interface BlobReference {
  readonly digest: string;
  readonly size: number;
}

/** A file a task wrote (relative to the workspace root, links resolved) and the blob holding its bytes. */
export interface TaskArtifact extends BlobReference {
  readonly path: string;
}

/** What `check` found: `ok`, no file (`missing`), or a file whose bytes do not hash to its name (`corrupt`). */
export interface BlobCheck {
  readonly digest: string;
  readonly path: string;
  readonly status: 'ok' | 'missing' | 'corrupt' | 'unreadable';
  /** The digest and size of the bytes found, when they differ from the expected ones. */
  readonly found?: { readonly digest: string; readonly size: number };
  readonly reason?: string;
}

const hexOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** `sha256:<hex>` or bare hex (any case) as the canonical `sha256:<lowercase hex>`; undefined when malformed. */
export function parseDigest(text: string): string | undefined {
  const match = /^(?:sha256:)?([0-9a-fA-F]{64})$/.exec(text.trim());
  return match ? `sha256:${match[1]!.toLowerCase()}` : undefined;
}

/** The store folder of a database: `artifacts/` beside it (state-paths.ts reserves the same folder). */
export const artifactRoot = (databasePath: string) => join(dirname(resolve(databasePath)), 'artifacts');

// Errors that say the file system has no hard links; the store then publishes by existence check and rename.
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

export class ArtifactStore {
  constructor(readonly root: string) {}

  static beside(databasePath: string): ArtifactStore {
    return new ArtifactStore(artifactRoot(databasePath));
  }

  blobPath(digest: string): string {
    const hex = digest.slice('sha256:'.length);
    return join(this.root, 'sha256', hex.slice(0, 2), hex);
  }

  /**
   * Stores `bytes` and returns their reference. A blob already present and intact is left alone; concurrent writers of
   * the same bytes both succeed and leave one intact blob. Throws AGENTCTL_E_ARTIFACT_WRITE when nothing durable was
   * stored.
   */
  async ingest(bytes: Uint8Array): Promise<BlobReference> {
    const reference = { digest: `sha256:${hexOf(bytes)}`, size: bytes.length };
    const target = this.blobPath(reference.digest);
    try {
      if (await holds(target, reference)) {
        // Bytes stored before are referred to again: their new time keeps `artifacts gc` off them (artifact-garbage.ts).
        await utimes(target, new Date(), new Date()).catch(() => undefined);
        return reference;
      }
      const folder = dirname(target);
      await makeFolders(folder);
      const temporary = await writeTemporary(folder, basename(target), bytes, 0o444);
      try {
        await publish(temporary, target, async () => ((await holds(target, reference)) ? 'keep' : 'replace'));
      } finally {
        await unlink(temporary).catch(() => undefined);
      }
      await syncFolder(folder);
      return reference;
    } catch (error) {
      throw new AgentctlError('AGENTCTL_E_ARTIFACT_WRITE', `cannot store blob ${reference.digest} in ${this.root}: ${errnoOf(error)}`, { cause: error });
    }
  }

  /** Re-hashes a blob against its name (and the recorded size, when given). */
  async check(digest: string, size?: number): Promise<BlobCheck> {
    const path = this.blobPath(digest);
    let bytes: Buffer;
    try {
      const stats = await lstat(path);
      if (!stats.isFile()) return { digest, path, status: 'corrupt', reason: 'not a regular file' };
      bytes = await readFile(path);
    } catch (error) {
      const code = errnoOf(error);
      return code === 'ENOENT' ? { digest, path, status: 'missing', reason: 'no blob file' } : { digest, path, status: 'unreadable', reason: code };
    }
    const found = { digest: `sha256:${hexOf(bytes)}`, size: bytes.length };
    if (found.digest !== digest) return { digest, path, status: 'corrupt', found, reason: 'its bytes hash to another digest' };
    if (size !== undefined && size !== found.size) return { digest, path, status: 'corrupt', found, reason: `it holds ${found.size} bytes, ${size} were recorded` };
    return { digest, path, status: 'ok' };
  }

  /** The bytes of an intact blob; a missing or damaged one is AGENTCTL_E_ARTIFACT_CORRUPT (exit 5). */
  async read(digest: string, size?: number): Promise<Buffer> {
    const result = await this.check(digest, size);
    if (result.status !== 'ok') throw blobProblem(result);
    return readFile(result.path);
  }
}

/** The error a failed check is reported as: it names the digest and the blob's path. */
export function blobProblem(check: BlobCheck): AgentctlError {
  const found = check.found ? ` (found ${check.found.digest}, ${check.found.size} bytes)` : '';
  return new AgentctlError('AGENTCTL_E_ARTIFACT_CORRUPT', `blob ${check.digest} is ${check.status} at ${check.path}${check.reason ? `: ${check.reason}` : ''}${found}`, {
    help: 'the store no longer holds these bytes; restore the blob from a backup or re-run the task that wrote them',
  });
}

/**
 * Writes `bytes` to `destination` through a temporary file in its folder, fsync and a rename (with `force`) or a
 * no-clobber link. Refuses an existing destination without `force` (AGENTCTL_E_ARTIFACT_DESTINATION_EXISTS).
 */
export async function exportBytes(destination: string, bytes: Uint8Array, force: boolean): Promise<void> {
  const target = resolve(destination);
  const folder = dirname(target);
  let temporary: string;
  try {
    temporary = await writeTemporary(folder, basename(target), bytes, 0o666);
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_ARTIFACT_EXPORT', `cannot write ${target}: ${errnoOf(error)}`, { help: 'the destination folder must exist and be writable' });
  }
  let outcome: 'written' | 'exists';
  try {
    outcome = force ? (await rename(temporary, target), 'written') : await publish(temporary, target, async () => 'refuse');
    if (outcome === 'written') await syncFolder(folder);
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_ARTIFACT_EXPORT', `cannot write ${target}: ${errnoOf(error)}`);
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
  if (outcome === 'exists') {
    throw new AgentctlError('AGENTCTL_E_ARTIFACT_DESTINATION_EXISTS', `${target} already exists; it was not changed`, { help: 'choose another destination, or pass --overwrite to replace it' });
  }
}

/**
 * Gives `temporary` the name `target` without ever replacing an existing file by accident: link() fails with EEXIST
 * atomically, so two writers cannot both believe they created it. When `target` exists, `existing` decides: keep it,
 * replace it (rename), or refuse. Where the file system has no hard links, an existence check and a rename do the
 * same with a window between the two; for blobs that is harmless, since both writers hold the same bytes.
 */
async function publish(temporary: string, target: string, existing: () => Promise<'keep' | 'replace' | 'refuse'>): Promise<'written' | 'exists'> {
  try {
    await link(temporary, target);
    return 'written';
  } catch (error) {
    const code = errnoOf(error);
    if (code !== 'EEXIST' && !NO_LINKS.has(code)) throw error;
    if (code !== 'EEXIST' && !(await present(target))) {
      await rename(temporary, target);
      return 'written';
    }
  }
  const decision = await existing();
  if (decision === 'refuse') return 'exists';
  // Only a blob whose bytes do not match its name is ever replaced: it was not that blob.
  if (decision === 'replace') await rename(temporary, target);
  return 'written';
}

async function writeTemporary(folder: string, name: string, bytes: Uint8Array, mode: number): Promise<string> {
  const temporary = join(folder, `.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`);
  // O_EXCL never follows a link: the temporary file is always new. Its mode may forbid writes: the descriptor is open.
  const handle = await open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return temporary;
}

/** Whether `path` is a regular file holding exactly the referenced bytes. */
async function holds(path: string, reference: BlobReference): Promise<boolean> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats?.isFile() || stats.size !== reference.size) return false;
  const bytes = await readFile(path).catch(() => undefined);
  return bytes !== undefined && `sha256:${hexOf(bytes)}` === reference.digest;
}

const present = async (path: string) => (await lstat(path).catch(() => undefined)) !== undefined;

/** Creates the blob's folders; each folder that was created is made durable in its parent. */
async function makeFolders(folder: string): Promise<void> {
  const first = await mkdir(folder, { recursive: true, mode: 0o755 });
  if (first === undefined) return;
  for (let created = folder; created.length >= first.length; created = dirname(created)) await syncFolder(dirname(created));
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, O_RDONLY | O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const errnoOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);
