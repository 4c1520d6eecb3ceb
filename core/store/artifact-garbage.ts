// Removes the blobs of the artifact store no task refers to any more (`artifacts gc`, and `gc` after it removed runs),
// and the temporary files interrupted writes left beside them.
//
// A blob is written before its row (artifacts.ts), and a task's rows are recorded only when the task ends, which for
// a paused run may be days later. So a blob no row refers to may still be about to be referred to by a run that is
// not finished. A blob is therefore removed only when its file is older than the cutoff and older than the oldest
// unfinished run; ingesting bytes that are already stored renews the file's time, so a live run's reuse counts too.
import { lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Maintenance } from './maintenance.js';

export interface ArtifactGcReport {
  considered: number;
  removed: string[];
  reclaimedBytes: number;
  temporaryFilesConsidered: number;
  temporaryFilesRemoved: number;
}

const HEX2 = /^[0-9a-f]{2}$/;
const HEX64 = /^[0-9a-f]{64}$/;
/** The temporary name artifacts.ts writes a blob under before it is published. */
const TEMPORARY = /^\..+\.[0-9a-f]{12}\.tmp$/;

/** Removes (or, with `dryRun`, counts) the unreferenced blobs and temporary files older than `before`. */
export async function collectArtifacts(maintenance: Maintenance, root: string, before: Date, dryRun: boolean): Promise<ArtifactGcReport> {
  const live = maintenance.oldestLiveRun();
  const cutoff = Math.min(before.getTime(), live === null ? Infinity : Date.parse(live));
  const referenced = maintenance.referencedDigests();
  const report: ArtifactGcReport = { considered: 0, removed: [], reclaimedBytes: 0, temporaryFilesConsidered: 0, temporaryFilesRemoved: 0 };
  const store = join(root, 'sha256');
  for (const prefix of (await names(store)).filter((name) => HEX2.test(name)).sort()) {
    const folder = join(store, prefix);
    for (const name of (await names(folder)).sort()) {
      const path = join(folder, name);
      const stats = await lstat(path).catch(() => undefined);
      if (!stats?.isFile() || stats.mtimeMs >= cutoff) continue;
      if (TEMPORARY.test(name)) {
        report.temporaryFilesConsidered += 1;
        if (!dryRun && (await removed(path))) report.temporaryFilesRemoved += 1;
        continue;
      }
      const digest = `sha256:${name}`;
      if (!HEX64.test(name) || !name.startsWith(prefix) || referenced.has(digest)) continue;
      report.considered += 1;
      if (dryRun) {
        report.reclaimedBytes += stats.size;
      } else if (await removed(path)) {
        report.removed.push(digest);
        report.reclaimedBytes += stats.size;
      }
    }
    // An emptied prefix folder goes too; one a writer has just filled again stays (rmdir refuses it).
    if (!dryRun) await rmdir(folder).catch(() => undefined);
  }
  maintenance.forgetBlobs(report.removed);
  return report;
}

async function names(folder: string): Promise<string[]> {
  return readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
}

async function removed(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
