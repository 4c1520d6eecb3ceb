// A new database appears at its path complete or not at all: a kill while it is being created leaves no half-made file.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A draft older than this was left by a process killed while creating: creating takes milliseconds. */
const LEFTOVER_AGE_MS = 60_000;
/** `link` fails so on a filesystem without hard links; there the draft is renamed into place instead. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Builds the file at `path` through `build(draft)`, which must leave a complete, closed database in the draft file
 * beside it. The draft is synced and hard-linked into place, which never replaces a file: when another process
 * created the database meanwhile, its file is kept and this draft is dropped. The folder is synced last, so the new
 * name survives a power loss.
 */
export function createAtomically(path: string, build: (draft: string) => void): void {
  const draft = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.creating`;
  try {
    build(draft);
    sync(draft);
    publish(draft, path);
    sync(dirname(path));
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${draft}${suffix}`, { force: true });
  }
}

function publish(draft: string, path: string): void {
  try {
    linkSync(draft, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return;
    if (!NO_HARD_LINKS.has(code)) throw error;
    // Without hard links a rename would replace a database created meanwhile: the gap is this one check.
    if (!existsSync(path)) renameSync(draft, path);
  }
}

function sync(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } catch (error) {
    // Some filesystems cannot sync a folder; the file itself was synced.
    if (!['EINVAL', 'EISDIR', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes the drafts (and their SQLite companions) of processes killed while creating this database, including one
 * killed between linking its draft into place and removing it, which leaves a second name of the database.
 */
export function removeLeftoverDrafts(path: string): void {
  const prefix = `${basename(path)}.`;
  const draft = /^\d+-[0-9a-f]{8}\.creating(-wal|-shm|-journal)?$/;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !draft.test(name.slice(prefix.length))) continue;
    const file = join(dirname(path), name);
    try {
      if (Date.now() - statSync(file).mtimeMs > LEFTOVER_AGE_MS) rmSync(file, { force: true });
    } catch {
      // Gone meanwhile: another process cleaned it up.
    }
  }
}
