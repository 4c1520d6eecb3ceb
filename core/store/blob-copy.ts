// Copying blobs from one artifact store into another, synchronously (a ledger import is one synchronous step): each
// source blob is read and re-hashed against its digest and recorded size, and written as ArtifactStore.ingest writes
// one: a temporary file in the blob's folder, fsync, a no-clobber link into place, then the folder synced.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AgentctlError } from '@agentctl/sdk';
import type { ArtifactStore, BlobReference } from './artifacts.js';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_DIRECTORY } = constants;
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

const digestOf = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const errnoOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/** Whether the store holds the referenced bytes, intact. */
export function holdsBlob(store: ArtifactStore, reference: BlobReference): boolean {
  const path = store.blobPath(reference.digest);
  try {
    const stats = lstatSync(path);
    return stats.isFile() && stats.size === reference.size && digestOf(readFileSync(path)) === reference.digest;
  } catch {
    return false;
  }
}

/**
 * The bytes of a source blob, checked against its digest and recorded size: a missing or different blob is
 * AGENTCTL_E_ARTIFACT_CORRUPT naming the source store, so nothing is copied from a damaged one.
 */
export function readSourceBlob(store: ArtifactStore, reference: BlobReference): Buffer {
  const path = store.blobPath(reference.digest);
  const corrupt = (why: string) =>
    new AgentctlError('AGENTCTL_E_ARTIFACT_CORRUPT', `blob ${reference.digest} of the ledger being imported ${why} (${path}); nothing was imported`, {
      help: 'restore the blob in the source ledger\'s artifact store (or run `agentctl artifacts verify --all --db SOURCE` to see every damaged one), then import again',
    });
  let bytes: Buffer;
  try {
    if (!lstatSync(path).isFile()) throw corrupt('is not a regular file');
    bytes = readFileSync(path);
  } catch (error) {
    if (error instanceof AgentctlError) throw error;
    throw corrupt(errnoOf(error) === 'ENOENT' ? 'is missing' : `cannot be read: ${errnoOf(error)}`);
  }
  const found = digestOf(bytes);
  if (found !== reference.digest) throw corrupt(`holds other bytes: they hash to ${found}`);
  if (bytes.length !== reference.size) throw corrupt(`holds ${bytes.length} bytes, ${reference.size} were recorded`);
  return bytes;
}

/** Stores checked bytes under their digest; a blob already present and intact is left alone. */
export function writeBlob(store: ArtifactStore, bytes: Buffer, reference: BlobReference): void {
  if (holdsBlob(store, reference)) return;
  const target = store.blobPath(reference.digest);
  const folder = dirname(target);
  let temporary: string | undefined;
  try {
    const first = mkdirSync(folder, { recursive: true, mode: 0o755 });
    if (first !== undefined) for (let created = folder; created.length >= first.length; created = dirname(created)) syncFolder(dirname(created));
    temporary = join(folder, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
    const fd = openSync(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o444);
    try {
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    publish(temporary, target, store, reference);
    syncFolder(folder);
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_ARTIFACT_WRITE', `cannot store blob ${reference.digest} in ${store.root}: ${errnoOf(error)}`, { cause: error });
  } finally {
    if (temporary !== undefined) {
      try {
        unlinkSync(temporary);
      } catch {
        // Renamed into place, or never made.
      }
    }
  }
}

/** Links the temporary file into place, never over another file; only a blob that is not those bytes is replaced. */
function publish(temporary: string, target: string, store: ArtifactStore, reference: BlobReference): void {
  try {
    linkSync(temporary, target);
    return;
  } catch (error) {
    const code = errnoOf(error);
    if (code !== 'EEXIST' && !NO_LINKS.has(code)) throw error;
  }
  if (!holdsBlob(store, reference)) renameSync(temporary, target);
}

function syncFolder(folder: string): void {
  const fd = openSync(folder, O_RDONLY | O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
