// The host's file service (sdk/files.ts): the one place where a task's file access touches the disk. Reads are
// confined to the workspace root, writes to the writable roots, at the system call itself (see directory.ts).
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { posix } from 'node:path';
import { EffectFailure, isEffectFailure, type CollectedFile, type FileService } from '@agentctl/sdk';
import { below, Directory, linkTarget, MAX_LINKS, openDirectory, openRoot, Refusal, split, type Root } from './directory.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;

const WRITABLE_HELP = 'a writable root must be a real folder inside the workspace, not a symbolic link; links below it are followed only while they stay below it';

/** A new file's mode before the umask. */
const NEW_FILE_MODE = 0o644;

export interface FileServiceOptions {
  /** Absolute workspace root. */
  readonly workspaceRoot: string;
  /** As in the workflow's policy: relative to the workspace root, or absolute. */
  readonly writableRoots: readonly string[];
  /** Told of every file written, or found already holding the bytes to write (see `ArtifactSink`). */
  readonly artifacts?: ArtifactSink;
}

/**
 * Keeps what a task writes: `ingest` stores the bytes before the file is replaced (a failure fails the write, with
 * nothing changed), `record` is called once the file at `path` (relative to the workspace root) holds them.
 */
export interface ArtifactSink {
  ingest(bytes: Uint8Array): Promise<{ readonly digest: string; readonly size: number }>;
  record(path: string, blob: { readonly digest: string; readonly size: number }): void;
}

type Access = 'read' | 'write';

export function createFileService(options: FileServiceOptions): FileService {
  const withRoot = async <T>(access: Access, path: string, body: (root: Root, components: string[]) => Promise<T>): Promise<T> => {
    if (namesFolder(path)) throw failure(access, 'FILE', `cannot ${access} ${path}: a path ending in "/" names a folder, and only a file can be ${access === 'read' ? 'read' : 'written'}`);
    if (path.split('/').includes('..')) throw failure(access, 'ESCAPE', `${access} path "${path}" contains a ".." component`);
    let root: Root;
    try {
      root = await openRoot(options.workspaceRoot);
    } catch (error) {
      throw failure(access, 'FILE', `cannot open the workspace root ${options.workspaceRoot}: ${errnoOf(error)}`);
    }
    try {
      const components = path.startsWith('/') ? below(root, path) : split(path);
      if (!components) throw failure(access, 'ESCAPE', `${access} path "${path}" is outside the workspace root`);
      if (components.length === 0) throw failure(access, 'FILE', `cannot ${access} ${path}: it names the workspace root folder, not a file`);
      return await body(root, components);
    } catch (error) {
      throw error instanceof Refusal ? refused(access, path, error) : isEffectFailure(error) ? error : failure(access, 'FILE', `cannot ${access} ${path}: ${errnoOf(error)}`);
    } finally {
      await root.directory.close();
    }
  };

  /** The folder a write lands in, checked against the writable roots by where it physically is. */
  const writeFolder = async (root: Root, components: string[], path: string, create: boolean): Promise<Directory> => {
    const roots = options.writableRoots.map((entry) => writableComponents(root, entry)).filter((entry): entry is string[] => entry !== undefined);
    // A folder may be created on the way to a writable root or inside one, never elsewhere.
    const mayCreate = create ? (parts: readonly string[]) => roots.some((prefix) => startsWith(parts, prefix) || startsWith(prefix, parts)) : undefined;
    const folder = await openDirectory(root, components.slice(0, -1), mayCreate ? { mayCreate } : {});
    if (!roots.some((prefix) => startsWith(folder.components, prefix))) {
      await folder.close();
      const where = folder.components.join('/') || '.';
      throw new EffectFailure('failed', 'AGENTCTL_E_POLICY_NOT_WRITABLE', `write path "${path}" leads to the folder ${where}, which is not below a writable root`, { help: WRITABLE_HELP });
    }
    return folder;
  };

  return Object.freeze({
    read: (path: string, { maxBytes }: { maxBytes: number }) =>
      withRoot('read', path, async (root, components) => {
        const handle = await openFile(root, components, O_RDONLY | O_NONBLOCK, path);
        try {
          if (!(await handle.stat()).isFile()) throw failure('read', 'FILE', `${path} is not a regular file`);
          return await readBounded(handle, maxBytes, path);
        } finally {
          await handle.close();
        }
      }),

    contentEquals: (path: string, bytes: Uint8Array) =>
      withRoot('write', path, async (root, components) => {
        let folder: Directory;
        try {
          folder = await writeFolder(root, components, path, false);
        } catch (error) {
          // A folder that is missing or is a file: the content is not there, and the write itself will fail definitely.
          if (error instanceof Refusal && (error.reason === 'missing' || error.reason === 'not_directory')) return false;
          throw error;
        }
        try {
          const name = components.at(-1)!;
          const stats = await existing(folder, name, path);
          if (!stats || stats.size !== bytes.length) return false;
          const handle = await open(folder.child(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
          try {
            const current = await readBounded(handle, bytes.length, path).catch(() => undefined);
            const equal = current !== undefined && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).equals(current);
            // The file already holds the task's bytes: it is the task's artifact as much as if it had written it.
            if (equal) await keep(options.artifacts, folder, name, bytes);
            return equal;
          } finally {
            await handle.close();
          }
        } finally {
          await folder.close();
        }
      }),

    writeAtomic: (path: string, bytes: Uint8Array) =>
      withRoot('write', path, async (root, components) => {
        const folder = await writeFolder(root, components, path, true);
        try {
          const blob = await options.artifacts?.ingest(bytes);
          await replace(folder, components.at(-1)!, bytes, path);
          if (blob) options.artifacts!.record(physical(folder, components.at(-1)!), blob);
        } finally {
          await folder.close();
        }
      }),

    collect: (path: string, { maxBytes }: { maxBytes: number }) =>
      withRoot('write', path, async (root, components): Promise<CollectedFile> => {
        // Found like a write target: the folder must physically be below a writable root, the file itself no link.
        const folder = await writeFolder(root, components, path, false).catch((error: unknown) => {
          if (error instanceof Refusal && (error.reason === 'missing' || error.reason === 'not_directory')) throw missing(path, 'its folder does not exist');
          throw error;
        });
        try {
          const name = components.at(-1)!;
          const handle = await open(folder.child(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
            if (error.code === 'ENOENT') throw missing(path, 'it does not exist');
            if (error.code === 'ELOOP') throw missing(path, 'it is a symbolic link, which is never followed to collect an output');
            throw error;
          });
          try {
            const stats = await handle.stat();
            if (!stats.isFile()) throw missing(path, 'it is not a regular file');
            // Sized by the file, not by the limit: collecting a small output never allocates maxBytes.
            const bytes = await readBounded(handle, Math.min(stats.size, maxBytes), path, maxBytes);
            const blob = options.artifacts ? await options.artifacts.ingest(bytes) : { digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, size: bytes.length };
            const where = physical(folder, name);
            options.artifacts?.record(where, blob);
            return { path: where, digest: blob.digest, size: blob.size };
          } finally {
            await handle.close();
          }
        } finally {
          await folder.close();
        }
      }),

    keep: async (name: string, bytes: Uint8Array): Promise<CollectedFile> => {
      // A logical name, never a file: it only has to read as a relative path of plain components.
      const components = name.split('/');
      if (name.length === 0 || name.length > 512 || components.some((part) => part === '' || part === '.' || part === '..' || /[\\\u0000-\u001f]/.test(part))) {
        throw new EffectFailure('failed', 'AGENTCTL_E_FILE_WRITE', `artifact name "${name.slice(0, 80)}" is not a relative path of plain components`);
      }
      const blob = options.artifacts ? await options.artifacts.ingest(bytes) : { digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, size: bytes.length };
      options.artifacts?.record(name, blob);
      return { path: name, digest: blob.digest, size: blob.size };
    },
  });
}

const missing = (path: string, why: string) =>
  new EffectFailure('failed', 'AGENTCTL_E_ARTIFACT_MISSING', `declared output ${path} cannot be collected: ${why}`, { help: 'the command must write every path listed in the action\'s artifacts, as a regular file' });

async function keep(sink: ArtifactSink | undefined, folder: Directory, name: string, bytes: Uint8Array): Promise<void> {
  if (sink) sink.record(physical(folder, name), await sink.ingest(bytes));
}

/** Where a file is below the workspace root, links resolved: the path an artifact is recorded under. */
const physical = (folder: Directory, name: string) => [...folder.components, name].join('/');

/** Opens a file by walking to it; a link as the last component is resolved by the walk, never by the kernel. */
async function openFile(root: Root, components: string[], flags: number, path: string): Promise<FileHandle> {
  let target = components;
  for (let links = 0; links <= MAX_LINKS; links += 1) {
    const name = target.at(-1);
    if (name === undefined || name === '..') throw failure('read', 'FILE', `${path} is not a regular file`);
    const folder = await openDirectory(root, target.slice(0, -1));
    try {
      return await open(folder.child(name), flags | O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
      target = await linkTarget(root, folder, name);
    } finally {
      await folder.close();
    }
  }
  throw new Refusal('too_many_links', posix.join(...components), `more than ${MAX_LINKS} symbolic links`);
}

/** The write target's stats when it exists; anything but a regular file (a link included) is refused. */
async function existing(folder: Directory, name: string, path: string) {
  const stats = await lstat(folder.child(name)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (stats && !stats.isFile()) throw failure('write', 'FILE', `cannot write ${path}: it exists and is not a regular file${stats.isSymbolicLink() ? ' (a symbolic link, which builtin.write never writes through)' : ''}`);
  return stats;
}

/** Temp file in the same folder, fsync, rename over the target, fsync of the folder: all through the folder handle. */
async function replace(folder: Directory, name: string, bytes: Uint8Array, path: string): Promise<void> {
  const before = await existing(folder, name, path);
  const temporary = `.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`;
  let created = false;
  try {
    // O_EXCL never follows a link: the temporary file is always a new file in this folder.
    const handle = await open(folder.child(temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, before ? 0o600 : NEW_FILE_MODE);
    created = true;
    try {
      await handle.writeFile(bytes);
      // chmod is not subject to the umask: the replaced file's permission bits are kept exactly.
      if (before) await handle.chmod(before.mode & 0o777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // rename replaces the name itself: a link swapped in at the target is replaced, never followed.
    await rename(folder.child(temporary), folder.child(name));
    created = false;
    await folder.handle.sync();
  } catch (error) {
    // A failed cleanup must not hide the definite failure that caused it.
    if (created) await unlink(folder.child(temporary)).catch(() => undefined);
    throw failure('write', 'FILE', `cannot write ${path}: ${errnoOf(error)}`);
  }
}

/** Reads at most `expected` + 1 bytes; more than `maxBytes` (by default `expected`) is AGENTCTL_E_FILE_TOO_LARGE. */
async function readBounded(handle: FileHandle, expected: number, path: string, maxBytes = expected): Promise<Buffer> {
  // One byte past what is expected, so a file that grew after stat is still caught.
  const buffer = Buffer.alloc(expected + 1);
  let total = 0;
  while (total < buffer.length) {
    const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
    if (bytesRead === 0) break;
    total += bytesRead;
  }
  if (total > maxBytes) throw new EffectFailure('failed', 'AGENTCTL_E_FILE_TOO_LARGE', `${path} is larger than ${maxBytes} bytes`);
  // A file that grew past its stat size but is still within the limit: read it again with room for all of it.
  if (total > expected) return readBounded(handle, maxBytes, path, maxBytes);
  return buffer.subarray(0, total);
}

/** A writable root's components below the workspace root, or undefined when it is outside it. */
function writableComponents(root: Root, entry: string): string[] | undefined {
  const normalized = posix.normalize(entry);
  const components = normalized.startsWith('/') ? below(root, normalized) : split(normalized);
  return components && !components.includes('..') ? components : undefined;
}

const startsWith = (parts: readonly string[], prefix: readonly string[]) => prefix.length <= parts.length && prefix.every((part, index) => parts[index] === part);

/** A trailing "/" (or a last component ".") names a folder, never the file before it. */
const namesFolder = (path: string) => path.endsWith('/') || path.split('/').at(-1) === '.';

function refused(access: Access, path: string, refusal: Refusal): EffectFailure {
  switch (refusal.reason) {
    case 'escape':
      return failure(access, 'ESCAPE', `${access} path "${path}" leads out of the workspace root: ${refusal.message}`);
    case 'not_creatable':
      return new EffectFailure('failed', 'AGENTCTL_E_POLICY_NOT_WRITABLE', `write path "${path}" leads to ${refusal.at}, which is not below a writable root`, { help: WRITABLE_HELP });
    case 'missing':
    case 'not_directory':
    case 'too_many_links':
      return failure(access, 'FILE', `cannot ${access} ${path}: ${refusal.message}`);
  }
}

function failure(access: Access, kind: 'FILE' | 'ESCAPE', message: string): EffectFailure {
  const code = kind === 'ESCAPE' ? 'AGENTCTL_E_POLICY_PATH_ESCAPE' : access === 'read' ? 'AGENTCTL_E_FILE_READ' : 'AGENTCTL_E_FILE_WRITE';
  return new EffectFailure('failed', code, message);
}

const errnoOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);
