// Bounded reads of documents named on the command line: never more than the limit plus one byte, never trusting
// `stat` (a /proc file says 0 bytes and is endless), and never blocking on a FIFO or a device.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { AgentctlError, diagnostic } from '@agentctl/sdk';

export const MAX_DOCUMENT_BYTES = 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

/** How the workflow file `-` (standard input) is named in diagnostics. */
export const STDIN_NAME = '<stdin>';

/**
 * What the CLI passes on for a lone `-` argument (yargs cannot take `-` as a positional): it holds a NUL byte, so it
 * can never be a real path.
 */
export const STDIN_ARGUMENT = '\u0000-';

/** Reads a regular file of at most 1 MiB as UTF-8; anything else is a usage error naming the file. */
export function readBoundedFile(file: string, what: string): string {
  return decode(readBoundedBytes(file, what));
}

/** The bytes of a regular file of at most 1 MiB, refused like readBoundedFile refuses it. */
export function readBoundedBytes(file: string, what: string): Buffer {
  if (file === STDIN_ARGUMENT) {
    throw new AgentctlError('AGENTCTL_E_USAGE', `the ${what} cannot be - (standard input) here`, { help: 'check and plan read a workflow from standard input; name a file for the others' });
  }
  let descriptor: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer; it is refused just below.
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    throw unreadable(file, what, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw unreadable(file, what, stats.isDirectory() ? 'it is a folder' : 'it is not a regular file');
    // Chunks of 64 KiB (a multiple of 8: some /proc files refuse other sizes), until the end or past the limit.
    const buffer = Buffer.alloc(MAX_DOCUMENT_BYTES + CHUNK_BYTES);
    let total = 0;
    for (;;) {
      let bytesRead: number;
      try {
        bytesRead = readSync(descriptor, buffer, total, CHUNK_BYTES, null);
      } catch (error) {
        throw unreadable(file, what, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
      }
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > MAX_DOCUMENT_BYTES) throw tooLarge(file, what, Math.max(stats.size, total));
    }
    return buffer.subarray(0, total);
  } finally {
    closeSync(descriptor);
  }
}

/** Reads standard input to its end, refusing it as soon as it passes 1 MiB. */
export async function readBoundedStdin(what: string, input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += bytes.length;
    if (total > MAX_DOCUMENT_BYTES) {
      (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      // The rest is never read: how much more there was is unknown.
      throw tooLarge(STDIN_NAME, what, MAX_DOCUMENT_BYTES + 1);
    }
    chunks.push(bytes);
  }
  return decode(Buffer.concat(chunks));
}

/** UTF-8 text without a leading byte order mark (editors on some systems write one). */
function decode(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function unreadable(file: string, what: string, reason: string): AgentctlError {
  return new AgentctlError('AGENTCTL_E_FILE_NOT_FOUND', `${what} ${file} cannot be read: ${reason}`, {
    diagnostics: [diagnostic('AGENTCTL_E_FILE_NOT_FOUND', { message: `${what} cannot be read: ${reason}`, file, line: 1, column: 1, help: 'name an existing, readable regular file (a FIFO or device is refused; use - for standard input where a command accepts it)' })],
  });
}

function tooLarge(file: string, what: string, size: number): AgentctlError {
  const amount = size > MAX_DOCUMENT_BYTES + 1 ? `is ${size} bytes` : `is more than ${MAX_DOCUMENT_BYTES} bytes`;
  const message = `${what} ${amount}; the limit is ${MAX_DOCUMENT_BYTES} bytes (1 MiB)`;
  return new AgentctlError('AGENTCTL_E_DOCUMENT_TOO_LARGE', message, {
    diagnostics: [diagnostic('AGENTCTL_E_DOCUMENT_TOO_LARGE', { message, file, line: 1, column: 1, help: 'split the document or move data into files read by tasks' })],
  });
}
