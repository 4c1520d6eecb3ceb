// How scripts/test-shards.mjs deals spec files to its mocha processes, and the per-file times it keeps between runs.
//
// With the times of an earlier run, files are dealt longest first, each to the process with the least work so far
// (a file never timed counts as the median of those that were), so the processes end close together. Without any
// time, files are dealt round-robin in path order. Each process runs its files in path order.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/** Splits `files` into `count` lists, by the seconds in `timings` ({ path: seconds }) when it holds any of them. */
export function schedule(files, count, timings = {}) {
  const sorted = [...files].sort();
  const known = sorted.filter((file) => Number.isFinite(timings[file]) && timings[file] >= 0);
  if (known.length === 0) return Array.from({ length: count }, (_, index) => sorted.filter((_file, position) => position % count === index));
  const byTime = known.map((file) => timings[file]).sort((a, b) => a - b);
  const median = byTime[Math.floor(byTime.length / 2)];
  const timed = new Set(known);
  const cost = (file) => (timed.has(file) ? timings[file] : median);
  const shards = Array.from({ length: count }, () => ({ files: [], seconds: 0 }));
  for (const file of [...sorted].sort((a, b) => cost(b) - cost(a) || (a < b ? -1 : 1))) {
    const lightest = shards.reduce((best, shard) => (shard.seconds < best.seconds ? shard : best));
    lightest.files.push(file);
    lightest.seconds += cost(file);
  }
  return shards.map((shard) => shard.files.sort());
}

/** The expected seconds of a list of files (unknown files at the median), for the runner's closing lines. */
export function expectedSeconds(files, timings) {
  const known = Object.values(timings).filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const median = known.length > 0 ? known[Math.floor(known.length / 2)] : 0;
  return files.reduce((sum, file) => sum + (Number.isFinite(timings[file]) ? timings[file] : median), 0);
}

/** The times file's { path: seconds }, or {} when it is missing or unreadable (the runner then deals round-robin). */
export function readTimings(path) {
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter(([, value]) => typeof value === 'number' && Number.isFinite(value) && value >= 0));
  } catch {
    return {};
  }
}

/**
 * Writes the times of this run over the earlier ones (a narrowed run keeps the others), dropping files that no longer
 * exist; written to a temporary file and renamed, so a run stopped half way leaves the earlier file whole.
 */
export function writeTimings(path, earlier, measured, exists) {
  const merged = Object.fromEntries(Object.entries({ ...earlier, ...measured }).filter(([file]) => exists(file)).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(`${path}.tmp`, `${JSON.stringify(merged, null, 1)}\n`);
  renameSync(`${path}.tmp`, path);
  return merged;
}
