// {file: PATH}: where a secret file may be, what it may be, and a read bounded whatever the file claims to be.
import { accessSync, closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { AgentctlError, isAgentctlError, type AnyErrorCode, type SecretResolverContext } from '@agentctl/sdk';

/** The largest secret file: 64 KiB. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

export const refuse = (code: AnyErrorCode, path: string, problem: string) => new AgentctlError(code, `{file: ${JSON.stringify(path)}} ${problem}`);

/** The path written in the reference, checked for shape. */
export function referencedPath(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.includes('\0')) {
    throw new AgentctlError('AGENTCTL_E_SECRET_REFERENCE_INVALID', `{file: ${JSON.stringify(value) ?? 'undefined'}} must name a path: a non-empty string without NUL bytes`);
  }
  return value;
}

const below = (path: string, root: string) => {
  const rest = relative(root, path);
  return rest !== '' && rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest);
};

const realpathOrNull = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/**
 * The real path of the file, once it passes the rules: no `..` component, roots declared, and below a root after
 * symlinks of both the path and the roots are resolved (so a symlink cannot lead out of the roots).
 */
export function locate(path: string, context: SecretResolverContext): string {
  if (path.split(/[\\/]/).includes('..')) throw refuse('AGENTCTL_E_SECRET_FILE_PARENT_SEGMENT', path, 'has a ".." component');
  const roots = context.policy.secretFileRoots;
  if (roots.length === 0) throw refuse('AGENTCTL_E_SECRET_FILE_NO_ROOTS', path, 'cannot be read: policy.secretFileRoots is empty');
  let real: string;
  try {
    real = realpathSync(resolve(context.workspaceRoot, path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Worded as the reference words it ("secret file"): scripts match the message of a file that is gone.
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new AgentctlError('AGENTCTL_E_SECRET_MISSING', `secret file ${JSON.stringify(path)} does not exist ({file: ${JSON.stringify(path)}})`);
    throw refuse('AGENTCTL_E_SECRET_FILE_UNREADABLE', path, `cannot be looked up (${code ?? 'error'})`);
  }
  const realRoots = roots.map((root) => realpathOrNull(resolve(context.workspaceRoot, root))).filter((root) => root !== null);
  if (!realRoots.some((root) => below(real, root))) {
    throw refuse('AGENTCTL_E_SECRET_FILE_OUTSIDE_ROOTS', path, `is not below any policy.secretFileRoots entry (${roots.join(', ')}) once symlinks are resolved`);
  }
  return real;
}

/** Refuses anything but a regular file of at most 64 KiB by what stat says (the read counts again). */
export function checkStats(stats: Stats, path: string): void {
  if (!stats.isFile()) throw refuse('AGENTCTL_E_SECRET_FILE_NOT_REGULAR', path, `is ${kindOf(stats)}, not a regular file`);
  if (stats.size > MAX_SECRET_FILE_BYTES) throw refuse('AGENTCTL_E_SECRET_FILE_TOO_LARGE', path, `is larger than ${MAX_SECRET_FILE_BYTES} bytes`);
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** Stats of the located file without opening it (auth check: nothing is read). */
export function statOnly(real: string, path: string): Stats {
  try {
    return lstatSync(real);
  } catch (error) {
    throw refuse('AGENTCTL_E_SECRET_FILE_UNREADABLE', path, `cannot be examined (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Whether agentctl may read the file, asked without opening it. */
export function checkReadable(real: string, path: string): void {
  try {
    accessSync(real, constants.R_OK);
  } catch (error) {
    throw refuse('AGENTCTL_E_SECRET_FILE_UNREADABLE', path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * Reads the located file: opened non-blocking (a FIFO never waits for a writer) and without following a symlink
 * swapped in since it was located, checked on the open descriptor, and read to at most 64 KiB + 1 bytes.
 */
export function readBounded(real: string, path: string): Buffer {
  checkStats(statOnly(real, path), path);
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    throw refuse('AGENTCTL_E_SECRET_FILE_UNREADABLE', path, `cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    if (!fstatSync(fd).isFile()) throw refuse('AGENTCTL_E_SECRET_FILE_NOT_REGULAR', path, 'is not a regular file');
    const buffer = Buffer.alloc(MAX_SECRET_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > MAX_SECRET_FILE_BYTES) throw refuse('AGENTCTL_E_SECRET_FILE_TOO_LARGE', path, `is larger than ${MAX_SECRET_FILE_BYTES} bytes`);
    return buffer.subarray(0, length);
  } catch (error) {
    if (isAgentctlError(error)) throw error;
    throw refuse('AGENTCTL_E_SECRET_FILE_UNREADABLE', path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    closeSync(fd);
  }
}

/** UTF-8 text with exactly one trailing line ending (`\n` or `\r\n`) dropped. */
export function secretText(bytes: Uint8Array, refusal: () => AgentctlError): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw refusal();
  }
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
