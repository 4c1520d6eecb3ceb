// The gate's steps: each named, timed, printed with PASS or FAIL as it ends; the closing line counts them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Seconds with one decimal, for a duration in milliseconds. */
export const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** A failure as printed below its step: the message, and the line of the journey that failed. */
export function failureText(error) {
  if (!(error instanceof Error)) return String(error);
  const where = (error.stack ?? '').split('\n').find((line) => line.includes('/acceptance/journeys-') || line.includes('/acceptance/scaleout/'));
  return where === undefined ? error.message : `${error.message}\n${where.trim()}`;
}

/** The closing line of a run of steps. */
export const summaryLine = (results) => {
  const failed = results.filter((result) => !result.ok).length;
  return `${results.length - failed} passed, ${failed} failed`;
};

/**
 * A log of steps printed to `write` as each ends.
 * @param {(line: string) => void} write
 */
export function stepLog(write) {
  const results = [];
  return {
    results,
    /** Runs one step; a thrown error fails it (and is printed below it), and the next step still runs. */
    async step(name, body) {
      const started = performance.now();
      let error;
      try {
        await body();
      } catch (caught) {
        error = caught;
      }
      const ms = performance.now() - started;
      results.push({ name, ok: error === undefined, ms });
      write(`${error === undefined ? 'PASS' : 'FAIL'}  ${name}  (${seconds(ms)})`);
      if (error !== undefined) write(failureText(error).replace(/^/gm, '      '));
      return error === undefined;
    },
    summary: () => summaryLine(results),
    failed: () => results.filter((result) => !result.ok).length,
  };
}

/**
 * Runs `body` with a fresh folder for the gate's journeys (`PREFIX` under the system's temporary folder), removed
 * afterwards unless `keep` (then its path is printed).
 * @template T
 * @param {string} prefix
 * @param {boolean | undefined} keep
 * @param {(root: string) => Promise<T>} body
 * @returns {Promise<T>}
 */
export async function inJourneyRoot(prefix, keep, body) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await body(root);
  } finally {
    if (keep) process.stdout.write(`journey folders kept in ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Runs a gate's `main`, a throw of its own counted as a failed step, then prints the duration and the closing line
 * and sets the exit code (1 when a step failed).
 * @param {ReturnType<typeof stepLog>} log
 * @param {() => Promise<void>} main
 * @param {() => string} duration the text after `duration: `
 */
export async function runGate(log, main, duration) {
  try {
    await main();
  } catch (error) {
    await log.step('the gate itself', () => Promise.reject(error));
  }
  process.stdout.write(`duration: ${duration()}\n`);
  process.stdout.write(`${log.summary()}\n`);
  process.exitCode = log.failed() === 0 ? 0 : 1;
}
