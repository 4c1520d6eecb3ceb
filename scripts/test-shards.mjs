// `npm test`'s runner: the suite's spec files split over one mocha process per core plus one (at most 4), since most
// of a test's time is spent in the agentctl processes it starts, one at a time. Files are dealt by the time each took
// in the last run (test/.timings.json, which every run updates), longest first onto the least loaded process, so the
// processes end together; a checkout without that file takes the committed test/timings-seed.json, and without any
// times they are dealt round-robin in path order (scripts/test-schedule.mjs). The first process's output is shown as
// it comes; the others' is held and shown when each ends, so no two outputs interleave. At the end come the slowest
// spec files, each process's expected and actual time, then the sum of every process's closing line:
// "N passed, N failed, N skipped". AGENTCTL_TEST_SHARDS=N sets the number of processes (1 runs the suite in one);
// AGENTCTL_TEST_TIMINGS=FILE reads and writes the times there instead (the seed is then not read).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectedSeconds, readTimings, schedule, writeTimings } from './test-schedule.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SPEC_FOLDERS = ['test', 'builtins'];
// Suites with scripts of their own, run after `npm test` by .ci/run: installs of the packed packages (`npm run test:install`).
const OWN_SCRIPT_FOLDERS = new Set([join('test', 'install')]);
const SUMMARY = /^(\d+) passed, (\d+) failed, (\d+) skipped$/m;
const TIMINGS = process.env.AGENTCTL_TEST_TIMINGS ? resolve(process.env.AGENTCTL_TEST_TIMINGS) : join(ROOT, 'test', '.timings.json');
// A committed copy of one full run's times, for a checkout that has not run the suite yet (a fresh clone, a CI job).
const SEED = join(ROOT, 'test', 'timings-seed.json');
const SLOWEST = 20;

function specFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' || OWN_SCRIPT_FOLDERS.has(relative(ROOT, path)) ? [] : specFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

// Spec files given as arguments narrow the run (paths from the repository root); --list prints the shards as JSON.
const list = process.argv.includes('--list');
const named = process.argv.slice(2).filter((arg) => arg !== '--list');
const files = (named.length > 0 ? named : SPEC_FOLDERS.flatMap((folder) => specFiles(join(ROOT, folder)))).sort();
// One process more than there are cores: a process spends much of its time blocked on the agentctl child it waits
// for (fsync, sleeps, timeouts a test waits out, container engines), and a third process on two cores fills it.
const wanted = Number(process.env.AGENTCTL_TEST_SHARDS ?? Math.min(availableParallelism() + 1, 4));
const count = Number.isInteger(wanted) && wanted > 0 ? Math.min(wanted, files.length) : 1;
const own = readTimings(TIMINGS);
const timings = Object.keys(own).length === 0 && !process.env.AGENTCTL_TEST_TIMINGS ? readTimings(SEED) : own;
const shards = schedule(files, count, timings);
const mocha = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
const reporter = join(ROOT, 'test', 'support', 'timing-reporter.cjs');
if (list) {
  process.stdout.write(`${JSON.stringify(shards)}\n`);
  process.exit(0);
}

// The machine's own OpenTelemetry settings would turn tracing on in every test that does not set its own: the tests
// that trace set these themselves, against their own receiver.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));

// Each process writes its files' seconds to its own file here; they are merged into TIMINGS at the end.
const scratch = mkdtempSync(join(tmpdir(), 'agentctl-test-shards-'));

function runShard(shardFiles, index) {
  return new Promise((done) => {
    const json = join(scratch, `${index}.json`);
    const started = Date.now();
    const args = [mocha, '--reporter', reporter, '--reporter-option', `json=${json}`, ...shardFiles];
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const held = [];
    const take = (stream, target) => stream.on('data', (chunk) => (index === 0 ? target.write(chunk) : held.push([target, chunk])));
    take(child.stdout, process.stdout);
    take(child.stderr, process.stderr);
    let text = '';
    child.stdout.on('data', (chunk) => (text = (text + chunk.toString('utf8')).slice(-4096)));
    child.on('close', (code, signal) => {
      for (const [target, chunk] of held) target.write(chunk);
      const last = [...text.matchAll(new RegExp(SUMMARY, 'gm'))].at(-1);
      let measured = {};
      try {
        measured = JSON.parse(readFileSync(json, 'utf8'));
      } catch {
        // The process ended before its reporter wrote (a crash): its files keep their earlier times.
      }
      done({ code: code ?? 1, signal, summary: last ? last.slice(1, 4).map(Number) : undefined, measured, seconds: (Date.now() - started) / 1000 });
    });
  });
}

const started = Date.now();
const results = await Promise.all(shards.map(runShard));
const [passed, failed, skipped] = results.reduce((sum, result) => sum.map((value, index) => value + (result.summary?.[index] ?? 0)), [0, 0, 0]);
const broken = results.filter((result) => result.summary === undefined || result.code !== 0);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
const measured = Object.assign({}, ...results.map((result) => result.measured));
rmSync(scratch, { recursive: true, force: true });
writeTimings(TIMINGS, timings, measured, (file) => existsSync(join(ROOT, file)));
const slowest = Object.entries(measured).sort(([, a], [, b]) => b - a).slice(0, SLOWEST);
const lines = [`slowest ${slowest.length} spec files (s; all in ${relative(ROOT, TIMINGS)}):`];
for (const [file, seconds] of slowest) lines.push(`${seconds.toFixed(1).padStart(8)}  ${file}`);
lines.push('processes (files, s expected from the earlier times, s taken):');
results.forEach((result, index) => {
  const expected = expectedSeconds(shards[index], timings);
  lines.push(`${String(index + 1).padStart(8)}  ${shards[index].length} files, ${expected > 0 ? expected.toFixed(0) : '-'} s expected, ${result.seconds.toFixed(0)} s taken`);
});
process.stdout.write(`\n${lines.join('\n')}\n`);
process.stdout.write(`\n${files.length} spec files in ${count} processes, ${minutes} min${broken.some((result) => result.summary === undefined) ? '; a process ended without its summary' : ''}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exitCode = broken.length > 0 ? 1 : 0;
