// agentctl benchmark: a report, not a test. Prints each figure next to its limit and always exits 0.
//
//   npm run bench                       (builds first)
//   node bench/run.mjs [--reps N] [--cold-reps N]
//
// Figures (see bench/README.md for the reasoning):
//   (a) builtin.shell.exec of /bin/true, per task, against a plain Node spawn loop: ratio <= 1.5
//   (b) builtin.assign, per task: <= 0.25 ms
//   (c) `agentctl --version` cold start against `node -e 0`: ratio <= 1.5
//   (d) `agentctl replay` of a succeeded 1,000-task builtin.assign run against that run: marginal ratio <= 0.05
//
// (a) and (b) are gated on the MARGINAL per-task cost: (t(N-task run) - t(1-task run)) / (N - 1),
// where both runs are whole CLI invocations of the same workflow shape with a fresh temp --db.
// The subtraction removes what every run pays once (node start-up, module loading, opening and
// migrating the database, compiling the plan, creating the run record, printing the outcome), so the
// figure is what one more task costs. The TOTAL per-task cost t(N-task run) / N is printed too, for
// information only.

import { spawn } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin', 'agentctl.js');
const NODE = process.execPath;

function argValue(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) return fallback;
  const n = Number(process.argv[i + 1]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
const REPS = argValue('--reps', 7); // repetitions of each (a)/(b) run and of the spawn-loop baseline
const COLD_REPS = argValue('--cold-reps', 15); // repetitions of each cold-start command

const SHELL_TASKS = 200;
const ASSIGN_TASKS = 1000;
const LIMITS = { shellRatio: 1.5, assignMs: 0.25, coldRatio: 1.5, replayRatio: 0.05 };

// ---------------------------------------------------------------------------------------------
// helpers

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (n, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));

/** Spawns a command, drains its output, resolves with wall time (ms), exit code and output. */
function timed(command, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const out = [];
    const err = [];
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const ms = performance.now() - started;
      resolvePromise({ ms, code, signal, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
  });
}

/** The workflow: N tasks chained by `needs`, plus maxConcurrency 1, so they run strictly one after another. */
function workflow(kind, n) {
  const lines = [
    'apiVersion: agentctl.dev/v1',
    'kind: Workflow',
    `metadata: {name: bench-${kind}-${n}}`,
    'spec:',
    '  policy: {processAllowlist: ["true"], approval: never}',
    '  runtime: {maxConcurrency: 1}',
    '  actions:',
    kind === 'shell' ? '    act: {kind: builtin.shell.exec, command: /bin/true}' : '    act: {kind: builtin.assign}',
    '  tasks:',
  ];
  for (let i = 1; i <= n; i++) {
    lines.push(`    - id: t${i}`, '      uses: action:act');
    if (kind === 'assign') lines.push(`      with: {i: ${i}}`);
    if (i > 1) lines.push(`      needs: [t${i - 1}]`);
  }
  return lines.join('\n') + '\n';
}

let tmpRoot;
let runCounter = 0;

/** One `agentctl run` of FILE with a fresh database and workspace; returns wall ms. */
async function agentctlRun(file, expectTasks) {
  const dir = join(tmpRoot, `run-${++runCounter}`);
  const ws = join(dir, 'ws');
  // agentctl creates the database's directory itself; the workspace must exist.
  mkdirSync(ws, { recursive: true });
  const r = await timed(NODE, [CLI, 'run', file, '--db', join(dir, 'state', 'runtime.db'), '--workspace', ws, '--output', 'json'], {
    cwd: ws,
    env: { ...process.env, NO_COLOR: '1' },
  });
  let doc;
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    doc = undefined;
  }
  if (r.code !== 0 || !doc?.ok || doc.data?.state !== 'succeeded') {
    throw new Error(`agentctl run ${file} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  const done = Object.values(doc.data.tasks ?? {}).filter((s) => s === 'succeeded').length;
  if (doc.data.tasks && done !== expectTasks) throw new Error(`expected ${expectTasks} succeeded tasks, got ${done}`);
  rmSync(dir, { recursive: true, force: true });
  return r.ms;
}

/** The plain-Node baseline: N spawns of /bin/true awaited one after another, with the same options as
 *  builtins/shell-exec/spawn.ts (stdio ignore/pipe/pipe drained, own process group, empty env, cwd). */
async function plainSpawnLoop(n, cwd) {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    await new Promise((resolvePromise, reject) => {
      const child = spawn('/bin/true', [], { cwd, env: {}, stdio: ['ignore', 'pipe', 'pipe'], detached: true, shell: false, windowsHide: true });
      const out = [];
      child.stdout.on('data', (c) => out.push(c));
      child.stderr.on('data', (c) => out.push(c));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolvePromise() : reject(new Error(`/bin/true exited ${code}`))));
    });
  }
  return performance.now() - started;
}

/** One `agentctl run` of FILE into a database that is kept, for replay; returns the database and the run id. */
async function recordedRun(file, name) {
  const dir = join(tmpRoot, name);
  mkdirSync(dir, { recursive: true });
  const db = join(dir, 'runtime.db');
  const r = await timed(NODE, [CLI, 'run', file, '--db', db, '--workspace', dir, '--output', 'json'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
  if (r.code !== 0) throw new Error(`agentctl run ${file} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return { db, runId: JSON.parse(r.stdout).data.runId };
}

/** One `agentctl replay` of a recorded run, with an empty PATH and environment; returns wall ms. */
async function agentctlReplay(source, expectTasks) {
  const r = await timed(NODE, [CLI, 'replay', source.runId, '--db', source.db, '--output', 'json'], { env: { PATH: '', NO_COLOR: '1' } });
  const doc = r.code === 0 ? JSON.parse(r.stdout) : undefined;
  if (doc?.data?.mode !== 'replay' || doc.data.state !== 'succeeded' || Object.keys(doc.data.tasks).length !== expectTasks) {
    throw new Error(`agentctl replay ${source.runId} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.ms;
}

/** One `agentctl check FILE` (compile only, no database); returns wall ms. */
async function agentctlCheck(file) {
  const r = await timed(NODE, [CLI, 'check', file, '--output', 'json'], { env: { ...process.env, NO_COLOR: '1' } });
  if (r.code !== 0) throw new Error(`agentctl check ${file} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r.ms;
}

/**
 * Runs the 1-task and N-task workflows REPS times, interleaved (so load drifts hit both alike), and
 * derives marginal and total figures. `alongside` runs once per repetition too (the spawn baseline).
 * `check` runs of both files give the compile-only share of the marginal cost, for the breakdown.
 */
async function measureWorkflow(kind, n, alongside) {
  const one = join(tmpRoot, `${kind}-1.yaml`);
  const many = join(tmpRoot, `${kind}-${n}.yaml`);
  writeFileSync(one, workflow(kind, 1));
  writeFileSync(many, workflow(kind, n));
  await agentctlRun(one, 1); // warm the page cache; not counted
  const samples = { run1: [], runN: [], check1: [], checkN: [], alongside: [] };
  for (let i = 0; i < REPS; i++) {
    samples.run1.push(await agentctlRun(one, 1));
    samples.runN.push(await agentctlRun(many, n));
    if (alongside) samples.alongside.push(await alongside());
    samples.check1.push(await agentctlCheck(one));
    samples.checkN.push(await agentctlCheck(many));
  }
  const t1 = median(samples.run1);
  const tn = median(samples.runN);
  const compile = (median(samples.checkN) - median(samples.check1)) / (n - 1);
  const marginal = (tn - t1) / (n - 1);
  const bestMarginal = (Math.min(...samples.runN) - Math.min(...samples.run1)) / (n - 1);
  return { t1, tn, samples, marginal, bestMarginal, total: tn / n, compile, execute: marginal - compile };
}

const list = (values) => `[${values.map((v) => fmt(v, 0)).join(', ')}]`;

function printWorkflow(m, n) {
  const w = String(n).length;
  console.log(`    agentctl run, ${'1'.padStart(w)} task:     median ${fmt(m.t1, 1).padStart(8)} ms  ${list(m.samples.run1)}`);
  console.log(`    agentctl run, ${String(n).padStart(w)} tasks:    median ${fmt(m.tn, 1).padStart(8)} ms  ${list(m.samples.runN)}`);
  console.log(`    marginal per task  = (${fmt(m.tn, 1)} - ${fmt(m.t1, 1)}) / ${n - 1} = ${fmt(m.marginal)} ms   <- gated`);
  console.log(`    total per task     = ${fmt(m.tn, 1)} / ${n} = ${fmt(m.total)} ms   (includes start-up)`);
  console.log(`    best-of-${REPS} marginal = (${fmt(Math.min(...m.samples.runN), 1)} - ${fmt(Math.min(...m.samples.run1), 1)}) / ${n - 1} = ${fmt(m.bestMarginal)} ms   (info: least disturbed by other load)`);
  console.log(`    breakdown (info): agentctl check, 1 task median ${fmt(median(m.samples.check1), 1)} ms, ${n} tasks median ${fmt(median(m.samples.checkN), 1)} ms`);
  console.log(`      compile share per task  = (check ${n} - check 1) / ${n - 1} = ${fmt(m.compile)} ms   (YAML parse, schema validation, plan)`);
  console.log(`      execute share per task  = marginal - compile share    = ${fmt(m.execute)} ms   (runner, ledger, dispatch)`);
}

/** Median latency of a 4 KiB write + fsync in the temp dir: the floor under each durable effect intent. */
function fsyncProbe() {
  const file = join(tmpRoot, 'fsync-probe');
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(4096, 1);
  const times = [];
  try {
    for (let i = 0; i < 25; i++) {
      writeSync(fd, block);
      const started = performance.now();
      fsyncSync(fd);
      times.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return median(times);
}

// ---------------------------------------------------------------------------------------------

async function main() {
  if (!existsSync(join(ROOT, 'dist', 'core', 'cli', 'main.js'))) {
    console.log('dist/ is missing: run `npm run build` (or `npm run bench`) first.');
    return;
  }
  tmpRoot = mkdtempSync(join(os.tmpdir(), 'agentctl-bench-'));
  const benchStarted = performance.now();
  const loadBefore = os.loadavg()[0];
  const cpus = os.cpus();
  console.log('agentctl benchmark');
  console.log(`  agentctl   ${(await timed(NODE, [CLI, '--version'])).stdout.trim()}  (${CLI})`);
  console.log(`  node       ${process.version}  (${process.execPath})`);
  console.log(`  platform   ${os.platform()} ${os.release()} ${os.arch()}`);
  console.log(`  cpus       ${cpus.length} x ${cpus[0]?.model ?? 'unknown'}${os.availableParallelism ? `  (available parallelism ${os.availableParallelism()})` : ''}`);
  console.log(`  memory     ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB total, ${(os.freemem() / 2 ** 30).toFixed(1)} GiB free;  load avg ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  tmpdir     ${tmpRoot}  (4 KiB write + fsync: median ${fmt(fsyncProbe())} ms)`);
  console.log(`  reps       ${REPS} per workflow run / spawn loop (median), ${COLD_REPS} per cold start (median)`);
  console.log('');

  const rows = [];
  try {
    // (a) shell.exec vs plain spawn loop -------------------------------------------------------
    process.stdout.write(`(a) ${SHELL_TASKS} sequential builtin.shell.exec /bin/true tasks vs a plain spawn loop ... `);
    const plainDir = join(tmpRoot, 'plain');
    mkdirSync(plainDir);
    await plainSpawnLoop(20, plainDir); // warm-up
    const shell = await measureWorkflow('shell', SHELL_TASKS, () => plainSpawnLoop(SHELL_TASKS, plainDir));
    const plainTimes = shell.samples.alongside;
    const plainPer = median(plainTimes) / SHELL_TASKS;
    console.log('done');
    printWorkflow(shell, SHELL_TASKS);
    console.log(`    plain loop, ${SHELL_TASKS} spawns: median ${fmt(median(plainTimes), 1)} ms  ${list(plainTimes)}`);
    console.log(`    plain per spawn    = ${fmt(plainPer)} ms;  agentctl overhead per task = ${fmt(shell.marginal - plainPer)} ms (marginal - plain)`);
    const bestPlain = Math.min(...plainTimes) / SHELL_TASKS;
    console.log(`    best-of-${REPS} ratio   = ${fmt(shell.bestMarginal)} / ${fmt(bestPlain)} = ${fmt(shell.bestMarginal / bestPlain)} x   (info)`);
    rows.push({ id: '(a)', figure: 'shell.exec marginal per task / plain spawn', value: shell.marginal / plainPer, unit: 'x', limit: LIMITS.shellRatio, gated: true });
    rows.push({ id: '(a)', figure: 'shell.exec total per task / plain spawn', value: shell.total / plainPer, unit: 'x', limit: LIMITS.shellRatio, gated: false });
    rows.push({ id: '(a)', figure: 'shell.exec execute share / plain spawn', value: shell.execute / plainPer, unit: 'x', limit: LIMITS.shellRatio, gated: false });

    // (b) assign ------------------------------------------------------------------------------
    process.stdout.write(`(b) ${ASSIGN_TASKS} sequential builtin.assign tasks ... `);
    const assign = await measureWorkflow('assign', ASSIGN_TASKS);
    console.log('done');
    printWorkflow(assign, ASSIGN_TASKS);
    rows.push({ id: '(b)', figure: 'assign marginal per task', value: assign.marginal, unit: 'ms', limit: LIMITS.assignMs, gated: true });
    rows.push({ id: '(b)', figure: 'assign total per task', value: assign.total, unit: 'ms', limit: LIMITS.assignMs, gated: false });
    rows.push({ id: '(b)', figure: 'assign execute share per task', value: assign.execute, unit: 'ms', limit: LIMITS.assignMs, gated: false });

    // (c) cold start --------------------------------------------------------------------------
    process.stdout.write(`(c) cold start: \`agentctl --version\` vs \`node -e 0\`, ${COLD_REPS} runs each, interleaved ... `);
    const cliTimes = [];
    const nodeTimes = [];
    await timed(NODE, [CLI, '--version']); // warm the page cache; not counted
    await timed(NODE, ['-e', '0']);
    for (let i = 0; i < COLD_REPS; i++) {
      const v = await timed(NODE, [CLI, '--version']);
      if (v.code !== 0) throw new Error(`agentctl --version exited ${v.code}: ${v.stderr}`);
      cliTimes.push(v.ms);
      nodeTimes.push((await timed(NODE, ['-e', '0'])).ms);
    }
    console.log('done');
    const cliMed = median(cliTimes);
    const nodeMed = median(nodeTimes);
    console.log(`    agentctl --version: median ${fmt(cliMed, 1)} ms  ${list(cliTimes)}`);
    console.log(`    node -e 0:          median ${fmt(nodeMed, 1)} ms  ${list(nodeTimes)}`);
    rows.push({ id: '(c)', figure: 'agentctl --version / node -e 0', value: cliMed / nodeMed, unit: 'x', limit: LIMITS.coldRatio, gated: true });

    // (d) replay ------------------------------------------------------------------------------
    process.stdout.write(`(d) replay of a succeeded ${ASSIGN_TASKS}-task builtin.assign run vs that run ... `);
    const source1 = await recordedRun(join(tmpRoot, 'assign-1.yaml'), 'replay-1');
    const sourceN = await recordedRun(join(tmpRoot, `assign-${ASSIGN_TASKS}.yaml`), `replay-${ASSIGN_TASKS}`);
    await agentctlReplay(source1, 1); // warm-up; not counted
    const replay1 = [];
    const replayN = [];
    for (let i = 0; i < REPS; i++) {
      replay1.push(await agentctlReplay(source1, 1));
      replayN.push(await agentctlReplay(sourceN, ASSIGN_TASKS));
    }
    console.log('done');
    const r1 = median(replay1);
    const rn = median(replayN);
    const replayMarginal = (rn - r1) / (ASSIGN_TASKS - 1);
    console.log(`    agentctl replay, 1 task:     median ${fmt(r1, 1).padStart(8)} ms  ${list(replay1)}`);
    console.log(`    agentctl replay, ${ASSIGN_TASKS} tasks: median ${fmt(rn, 1).padStart(8)} ms  ${list(replayN)}`);
    console.log(`    replay marginal per task = ${fmt(replayMarginal)} ms;  run marginal per task (b) = ${fmt(assign.marginal)} ms   <- ratio gated`);
    console.log(`    whole invocations: replay ${fmt(rn, 1)} ms / run ${fmt(assign.tn, 1)} ms = ${fmt(rn / assign.tn)} x   (info: includes start-up)`);
    rows.push({ id: '(d)', figure: 'replay marginal per task / run marginal', value: replayMarginal / assign.marginal, unit: 'x', limit: LIMITS.replayRatio, gated: true });
    rows.push({ id: '(d)', figure: 'replay / run, whole invocations', value: rn / assign.tn, unit: 'x', limit: LIMITS.replayRatio, gated: false });
  } finally {
    rmSync(tmpRoot, { recursive: true, force: true });
  }

  // table -------------------------------------------------------------------------------------
  console.log('');
  const header = ['', 'figure', 'measured', 'limit', 'ratio to limit', 'verdict'];
  const body = rows.map((r) => [
    r.id,
    r.figure,
    `${fmt(r.value)} ${r.unit}`,
    `${r.limit} ${r.unit}`,
    fmt(r.value / r.limit, 2),
    r.gated ? (r.value <= r.limit ? 'PASS' : 'OVER') : r.value <= r.limit ? '(info: within)' : '(info: over)',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
  console.log('');
  console.log('Gated figures use the marginal per-task cost, (t(N-task run) - t(1-task run)) / (N - 1). Both runs are');
  console.log('whole CLI invocations with a fresh --db, so the difference cancels what every run pays once (node');
  console.log('start-up, module loading, database creation and migration, run record, outcome). It still includes');
  console.log('compiling the larger document; the "execute share" rows subtract that (from `agentctl check` runs)');
  console.log('and, like the "total" rows (whole N-task run / N), are for information only.');
  const loadAfter = os.loadavg()[0];
  console.log(`elapsed ${fmt((performance.now() - benchStarted) / 1000, 1)} s;  load avg (1 min) ${fmt(loadBefore, 2)} before, ${fmt(loadAfter, 2)} after, on ${cpus.length} cpus`);
  if (Math.max(loadBefore, loadAfter) > cpus.length * 0.5) {
    console.log('NOTE: the machine was busy with other work during the benchmark; figures are noisier and likely pessimistic.');
  }
  const over = rows.filter((r) => r.gated && r.value > r.limit);
  console.log(
    over.length === 0
      ? 'SUMMARY: all figures within their limits'
      : `SUMMARY: ${over.length} of ${rows.filter((r) => r.gated).length} over: ${over.map((r) => `${r.id} ${r.figure} ${fmt(r.value)} ${r.unit} > ${r.limit} ${r.unit}`).join('; ')}`,
  );
}

try {
  await main();
} catch (error) {
  console.log(`\nbenchmark could not complete: ${error?.stack ?? error}`);
  console.log('SUMMARY: incomplete');
}
process.exitCode = 0;
