// `npm test`'s runner: the suite's spec files split over one mocha process per core (at most 4), since most of a test's
// time is spent in the agentctl processes it starts, one at a time. Files are dealt round-robin in path order, so each
// process gets a like share of every folder. The first process's output is shown as it comes; the others' is held and
// shown when each ends, so no two outputs interleave. The last line sums every process's closing line:
// "N passed, N failed, N skipped". AGENTCTL_TEST_SHARDS=1 runs the suite in one process.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SPEC_FOLDERS = ['test', 'builtins'];
// Suites with scripts of their own, run after `npm test` by .ci/run: installs of the packed packages (`npm run test:install`).
const OWN_SCRIPT_FOLDERS = new Set([join('test', 'install')]);
const SUMMARY = /^(\d+) passed, (\d+) failed, (\d+) skipped$/m;

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
const wanted = Number(process.env.AGENTCTL_TEST_SHARDS ?? Math.min(availableParallelism(), 4));
const count = Number.isInteger(wanted) && wanted > 0 ? Math.min(wanted, files.length) : 1;
const shards = Array.from({ length: count }, (_, index) => files.filter((_file, position) => position % count === index));
const mocha = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
if (list) {
  process.stdout.write(`${JSON.stringify(shards)}\n`);
  process.exit(0);
}

// The machine's own OpenTelemetry settings would turn tracing on in every test that does not set its own: the tests
// that trace set these themselves, against their own receiver.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));

function runShard(shardFiles, index) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [mocha, ...shardFiles], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const held = [];
    const take = (stream, target) => stream.on('data', (chunk) => (index === 0 ? target.write(chunk) : held.push([target, chunk])));
    take(child.stdout, process.stdout);
    take(child.stderr, process.stderr);
    let text = '';
    child.stdout.on('data', (chunk) => (text = (text + chunk.toString('utf8')).slice(-4096)));
    child.on('close', (code, signal) => {
      for (const [target, chunk] of held) target.write(chunk);
      const last = [...text.matchAll(new RegExp(SUMMARY, 'gm'))].at(-1);
      done({ code: code ?? 1, signal, summary: last ? last.slice(1, 4).map(Number) : undefined });
    });
  });
}

const started = Date.now();
const results = await Promise.all(shards.map(runShard));
const [passed, failed, skipped] = results.reduce((sum, result) => sum.map((value, index) => value + (result.summary?.[index] ?? 0)), [0, 0, 0]);
const broken = results.filter((result) => result.summary === undefined || result.code !== 0);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
process.stdout.write(`\n${files.length} spec files in ${count} processes, ${minutes} min${broken.some((result) => result.summary === undefined) ? '; a process ended without its summary' : ''}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exitCode = broken.length > 0 ? 1 : 0;
