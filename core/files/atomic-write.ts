// A file written by agentctl for a user (a lock, an emitted plan, a report) appears complete or not at all: the
// content goes to a temporary file beside the target, is synced, then renamed over it.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/** Writes `content` to `target` through a temporary file in the same folder and a rename; the temporary never stays. */
export function writeAtomically(target: string, content: string | Uint8Array): void {
  const temporary = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    const descriptor = openSync(temporary, 'wx', 0o644);
    try {
      const bytes = typeof content === 'string' ? Buffer.from(content) : content;
      for (let written = 0; written < bytes.length; ) written += writeSync(descriptor, bytes, written, bytes.length - written);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, target);
  } finally {
    rmSync(temporary, { force: true });
  }
}
