// Confined path resolution. Every component is opened relative to a directory handle already held, without following
// a link, and a symbolic link is read and resolved here rather than by the kernel: no component can be swapped for a
// link between the moment a step is checked and the system call that uses it.
import { existsSync, constants } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

/** Symbolic links followed in one resolution: the kernel's own limit. */
export const MAX_LINKS = 40;

/**
 * Linux names the children of a held directory handle as /proc/self/fd/N/NAME: the lookup starts at the directory the
 * handle refers to, not at a path that could have changed. Elsewhere, children are named by absolute path (racy).
 */
export const HANDLE_PATHS = process.platform === 'linux' && existsSync('/proc/self/fd');

export type RefusalReason = 'escape' | 'not_directory' | 'missing' | 'not_creatable' | 'too_many_links';

/** Why a path cannot be resolved inside its root; `at` is the physical path of the offending step below the root. */
export class Refusal extends Error {
  constructor(readonly reason: RefusalReason, readonly at: string, message: string) {
    super(message);
  }
}

/** An open directory at a known physical place: `components` below the root, `absolute` on disk. */
export class Directory {
  constructor(readonly handle: FileHandle, readonly absolute: string, readonly components: readonly string[]) {}

  /** A path naming `name` in this directory. */
  child(name: string): string {
    return HANDLE_PATHS ? `/proc/self/fd/${this.handle.fd}/${name}` : join(this.absolute, name);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** The root of a resolution. Links to an absolute target are accepted when the target is spelled below one of `spellings`. */
export interface Root {
  readonly directory: Directory;
  readonly spellings: readonly string[];
}

/** Opens a root folder; the path to it is the operator's configuration and is followed as the kernel resolves it. */
export async function openRoot(path: string): Promise<Root> {
  const handle = await open(path, O_RDONLY | O_DIRECTORY);
  try {
    const real = HANDLE_PATHS ? await readlink(`/proc/self/fd/${handle.fd}`) : await realpath(path);
    return { directory: new Directory(handle, real, []), spellings: [...new Set([real, path])] };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Path components, without empty and `.` ones. `..` is kept: it is resolved physically by the walk. */
export const split = (path: string): string[] => path.split('/').filter((part) => part !== '' && part !== '.');

/** The components of an absolute path below the root, or undefined when it is not spelled below it. */
export function below(root: Root, absolute: string): string[] | undefined {
  const parts = split(absolute);
  for (const spelling of root.spellings) {
    const prefix = split(spelling);
    if (prefix.every((part, index) => parts[index] === part)) return parts.slice(prefix.length);
  }
  return undefined;
}

export interface WalkOptions {
  /** Whether a missing folder at these physical components may be created (mode 0777 minus the umask). */
  readonly mayCreate?: (components: readonly string[]) => boolean;
}

/**
 * Opens the folder that `components` name below the root, one component at a time. `..` returns to the folder the
 * walk came from and never above the root. A symbolic link's target is walked the same way (relative to the link's
 * folder, or below the root when absolute); a target that leaves the root is refused. The caller closes the result.
 */
export async function openDirectory(root: Root, components: readonly string[], options: WalkOptions = {}): Promise<Directory> {
  const chain: Directory[] = [];
  const pending = [...components];
  const here = () => chain.at(-1) ?? root.directory;
  let links = 0;
  try {
    while (pending.length > 0) {
      const name = pending.shift()!;
      if (name === '' || name === '.') continue;
      if (name === '..') {
        const left = chain.pop();
        if (!left) throw new Refusal('escape', '..', 'a ".." step leads above the root');
        await left.close();
        continue;
      }
      const opened = await openChild(here(), name, options);
      if (opened) {
        chain.push(opened);
        continue;
      }
      if ((links += 1) > MAX_LINKS) throw new Refusal('too_many_links', [...here().components, name].join('/'), `more than ${MAX_LINKS} symbolic links`);
      // The target is walked again from the root: the chain held so far is the physical path the link lives in.
      const target = await linkTarget(root, here(), name);
      for (const left of chain.splice(0)) await left.close();
      pending.unshift(...target);
    }
    const last = chain.pop();
    // The caller always owns what it gets: the root itself is handed out as a second handle.
    return last ?? (await reopen(root.directory));
  } finally {
    for (const left of chain) await left.close();
  }
}

/** A child folder opened without following a link; undefined when the child is a symbolic link. */
async function openChild(parent: Directory, name: string, options: WalkOptions): Promise<Directory | undefined> {
  const components = [...parent.components, name];
  const shown = components.join('/');
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const handle = await open(parent.child(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      return new Directory(handle, join(parent.absolute, name), components);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && options.mayCreate) {
        if (!options.mayCreate(components)) throw new Refusal('not_creatable', shown, `the folder ${shown} does not exist and may not be created there`);
        await mkdir(parent.child(name)).catch((failure: NodeJS.ErrnoException) => {
          if (failure.code !== 'EEXIST') throw failure;
        });
        continue;
      }
      if (code === 'ENOENT') throw new Refusal('missing', shown, `${shown} does not exist`);
      if (code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
      // O_DIRECTORY | O_NOFOLLOW fails the same way on a link and on a file: look at which it is.
      const stats = await lstat(parent.child(name)).catch(() => undefined);
      if (stats?.isSymbolicLink()) return undefined;
      if (stats) throw new Refusal('not_directory', shown, `${shown} is not a folder`);
    }
  }
  throw new Refusal('missing', shown, `${shown} keeps changing while it is opened`);
}

async function reopen(directory: Directory): Promise<Directory> {
  const handle = await open(HANDLE_PATHS ? `/proc/self/fd/${directory.handle.fd}` : directory.absolute, O_RDONLY | O_DIRECTORY);
  return new Directory(handle, directory.absolute, directory.components);
}

/** Follows a symbolic link named `name` in `folder`: the physical components of its target below the root. */
export async function linkTarget(root: Root, folder: Directory, name: string): Promise<string[]> {
  const link = [...folder.components, name].join('/');
  const target = await readlink(folder.child(name));
  if (!isAbsolute(target)) return [...folder.components, ...split(target)];
  const rest = below(root, target);
  if (!rest) throw new Refusal('escape', link, `the symbolic link ${link} points to ${target}, outside the root`);
  return rest;
}

