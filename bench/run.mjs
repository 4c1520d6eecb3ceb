// agentctl benchmark: a report, not a test. Prints each figure next to its limit and always exits 0.
//
//   npm run bench                       (builds first)
//   node bench/run.mjs [--reps N] [--cold-reps N]
//
// Figures (see bench/README.md for the reasoning):
//   (a) builtin.shell.exec of /bin/true, per task, against a plain Node spawn loop: ratio <= 1.5; and, for information,
//       the floor under it (bench/floor.mjs: a synced intent, the same spawn, a synced outcome) against the same loop
//   (b) builtin.assign, per task: <= 0.25 ms
//   (c) `agentctl --version` cold start against `node -e 0`: ratio <= 1.1
//   (d) `agentctl replay` of a succeeded 1,000-task builtin.assign run against that run: marginal ratio <= 0.05
//   (e) `agentctl replay` of a succeeded 1,000-task builtin.shell.exec run against that run: ratio <= 0.05, and
//       the replay starts no process and records no effect
//   (f) `agentctl resume` of a run paused at task 501 of 1,000 against a fresh run of the last 500: ratio <= 1.2
//   (g) /bin/true tasks at maxConcurrency 1 and 8 against plain spawn loops of the same width (<= 1.5), and
//       2,000 tasks at maxConcurrency 8 against the same at 1, per task: ratio <= 0.6 on 2 cores
//   (h) a one-task `isolation: container` run of /bin/true in busybox against the engine's own `run --rm` with the
//       same controls, per engine (Docker, Podman), paired and alternating: median of the ratios (information)
//   (b') the same builtin.assign runs on a database whose state is encrypted (`db encryption enable` before the
//       run), paired with plain runs: marginal per task and its ratio to the plain one (information)
//   (i) an agent task of 50 model turns and 49 builtin.echo calls on the fake provider, marginal per turn, against
//       the same loop with no framework making the same commits and syncs (bench/agent-bare.mjs): ratio <= 1.5
//   (k) long-term memory search over 10,000 entries of 1 KiB, text and vector, ms per query (information)
//   (l) cold `agentctl run` of one shell task with telemetry off (the start-up figure) against `node -e 0`: ratio
//       <= 2.0; and with OpenTelemetry on (a local OTLP receiver): the one-task cost and the marginal per effect, on
//       against off (information)
//   (m) peak resident memory (bench/peak-memory.mjs): one 16 MiB output flood over a one-task run <= 2x the output
//       limit; 8 floods at once over it <= 8 x 2 x the limit; 2,500 / 5,000 / 10,000 builtin.assign tasks, the
//       10,000 <= 150 MiB
//   (n) scale-out on one machine (bench/scale-out.mjs): a 200-item fan-out of 200 ms process tasks as staged runs of
//       local processes (prepare, the shards side by side, gather), 4 shards against 1: wall-time ratio, and gather's
//       wall time per item (information); every gathered output is checked against a whole run's
//
// (a) and (b) are gated on the MARGINAL per-task cost: (t(N-task run) - t(1-task run)) / (N - 1),
// where both runs are whole CLI invocations of the same workflow shape with a fresh temp --db.
// The subtraction removes what every run pays once (node start-up, module loading, opening and
// migrating the database, compiling the plan, creating the run record, printing the outcome), so the
// figure is what one more task costs. The TOTAL per-task cost t(N-task run) / N is printed too, for
// information only.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { benchEngines, measureEngine } from './container.mjs';
import { AGENT_TURNS, measureAgentLoop } from './agent.mjs';
import { measurePackColdStart } from './packs.mjs';
import { MEMORY_ENTRIES, measureMemorySearch } from './memory.mjs';
import { TELEMETRY_TASKS, measureTelemetry } from './telemetry.mjs';
import { FLOOD_LIMIT, FLOODS, WIDE_COUNTS, measurePeakMemory } from './peak-memory.mjs';
import { durableSpawnLoop } from './floor.mjs';
import { SCALE_OUT_ITEMS, SCALE_OUT_SHARDS, SCALE_OUT_TASK_MS, measureScaleOut } from './scale-out.mjs';

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
const ONLY = process.argv.includes('--only') ? String(process.argv[process.argv.indexOf('--only') + 1] ?? '').split(',') : undefined;
// (d) divides by (b)'s figure, so it brings (b) along.
const want = (figure) => !ONLY || ONLY.includes(figure) || (figure === 'b' && ONLY.includes('d'));
const CONTAINER_REPS = argValue('--container-reps', 20); // pairs per engine in (h)
const BIG_REPS = argValue('--big-reps', 3); // repetitions of the multi-second runs of (e) and the 2,000-task runs of (g)

const SHELL_TASKS = 200;
const ASSIGN_TASKS = 1000;
const REPLAY_SHELL_TASKS = 1000;
const RESUME_TASKS = 1000; // task RESUME_TASKS / 2 + 1 waits for an approval
const WIDE_TASKS = 200;
const WIDE_BIG_TASKS = 2000;
const WIDE = 8;
const LIMITS = { shellRatio: 1.5, assignMs: 0.25, coldRatio: 1.1, runStartRatio: 2, replayRatio: 0.05, resumeRatio: 1.2, wideRatio: 0.6, agentRatio: 1.5 };

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

/**
 * The workflow: N tasks chained by `needs`, plus maxConcurrency 1, so they run strictly one after another. With
 * `{ concurrency }` the tasks are independent (no `needs`) and run in a window of that width.
 */
function workflow(kind, n, { concurrency } = {}) {
  const lines = [
    'apiVersion: agentctl.dev/v1',
    'kind: Workflow',
    `metadata: {name: bench-${kind}-${n}}`,
    'spec:',
    '  policy: {processAllowlist: ["true"], approval: never}',
    `  runtime: {maxConcurrency: ${concurrency ?? 1}}`,
    '  actions:',
    kind === 'shell' ? '    act: {kind: builtin.shell.exec, command: /bin/true}' : '    act: {kind: builtin.assign}',
    '  tasks:',
  ];
  for (let i = 1; i <= n; i++) {
    lines.push(`    - id: t${i}`, '      uses: action:act');
    if (kind === 'assign') lines.push(`      with: {i: ${i}}`);
    if (i > 1 && !concurrency) lines.push(`      needs: [t${i - 1}]`);
  }
  return lines.join('\n') + '\n';
}

/**
 * (f): N builtin.assign tasks chained by `needs`, except that task `pauseAt` is a builtin.write, which needs an
 * approval under `approval: mutations` (a non-interactive run pauses there). With `pauseAt` 1 and approval `never`,
 * it is the fresh run of the same shape: the write first, then the assign chain.
 */
function approvalWorkflow(n, pauseAt, approval) {
  const lines = [
    'apiVersion: agentctl.dev/v1',
    'kind: Workflow',
    `metadata: {name: bench-resume-${n}}`,
    'spec:',
    `  policy: {writableRoots: [out], approval: ${approval}, nonInteractive: pause}`,
    '  runtime: {maxConcurrency: 1}',
    '  actions:',
    '    act: {kind: builtin.assign}',
    '    save: {kind: builtin.write}',
    '  tasks:',
  ];
  for (let i = 1; i <= n; i++) {
    lines.push(`    - id: t${i}`);
    if (i === pauseAt) lines.push('      uses: action:save', '      with: {path: out/approved.txt, content: "approved\\n"}');
    else lines.push('      uses: action:act', `      with: {i: ${i}}`);
    if (i > 1) lines.push(`      needs: [t${i - 1}]`);
  }
  return lines.join('\n') + '\n';
}

let tmpRoot;
let runCounter = 0;

/** The state key of (b'): a fresh one per benchmark, in the variable its databases record. */
const STATE_KEY_ENV = 'AGENTCTL_BENCH_STATE_KEY';
const stateKey = randomBytes(32).toString('base64');

/**
 * One `agentctl run` of FILE with a fresh database and workspace; returns wall ms. `encrypted`: the database is
 * created with state encryption enabled first (not timed), and the run is given its key.
 */
async function agentctlRun(file, expectTasks, { encrypted = false } = {}) {
  const dir = join(tmpRoot, `run-${++runCounter}`);
  const ws = join(dir, 'ws');
  // agentctl creates the database's directory itself; the workspace must exist.
  mkdirSync(ws, { recursive: true });
  const db = join(dir, 'state', 'runtime.db');
  const env = { ...process.env, NO_COLOR: '1', ...(encrypted ? { [STATE_KEY_ENV]: stateKey } : {}) };
  if (encrypted) await agentctl(['db', 'encryption', 'enable', '--key-id', 'bench', '--key-env', STATE_KEY_ENV, '--db', db], { env, cwd: ws });
  const r = await timed(NODE, [CLI, 'run', file, '--db', db, '--workspace', ws, '--output', 'json'], { cwd: ws, env });
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

/** One agentctl invocation that must exit `exit`; returns wall ms and the parsed JSON document of stdout. */
async function agentctl(args, { exit = 0, env = { ...process.env, NO_COLOR: '1' }, cwd, node = [] } = {}) {
  const r = await timed(NODE, [...node, CLI, ...args, '--output', 'json'], { env, ...(cwd ? { cwd } : {}) });
  let doc;
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    doc = undefined;
  }
  if (r.code !== exit || !doc) throw new Error(`agentctl ${args.join(' ')} exited ${r.code}, expected ${exit}:\n${r.stdout}\n${r.stderr}`);
  return { ms: r.ms, doc };
}

/** The plain-Node baseline at a width: N spawns of /bin/true, at most `width` at a time, options as plainSpawnLoop. */
async function plainSpawnPool(n, width, cwd) {
  const started = performance.now();
  let next = 0;
  const one = () =>
    new Promise((resolvePromise, reject) => {
      const child = spawn('/bin/true', [], { cwd, env: {}, stdio: ['ignore', 'pipe', 'pipe'], detached: true, shell: false, windowsHide: true });
      child.stdout.on('data', () => undefined);
      child.stderr.on('data', () => undefined);
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolvePromise() : reject(new Error(`/bin/true exited ${code}`))));
    });
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      next += 1;
      await one();
    }
  }));
  return performance.now() - started;
}

/**
 * A module preloaded with `node --import` that counts every process the agentctl process starts (every asynchronous
 * spawn goes through ChildProcess.prototype.spawn; the synchronous ones are wrapped) and writes the count at exit.
 */
function spawnCounter(countFile) {
  const file = join(tmpRoot, `count-spawns-${++runCounter}.mjs`);
  writeFileSync(
    file,
    [
      "import cp from 'node:child_process';",
      "import { syncBuiltinESMExports } from 'node:module';",
      "import { writeFileSync } from 'node:fs';",
      'let count = 0;',
      'const spawnOne = cp.ChildProcess.prototype.spawn;',
      'cp.ChildProcess.prototype.spawn = function (...args) { count += 1; return spawnOne.apply(this, args); };',
      "for (const name of ['spawnSync', 'execSync', 'execFileSync']) { const sync = cp[name]; cp[name] = function (...args) { count += 1; return sync.apply(this, args); }; }",
      'syncBuiltinESMExports();',
      `process.on('exit', () => writeFileSync(${JSON.stringify(countFile)}, String(count)));`,
    ].join('\n'),
  );
  return ['--import', pathToFileURL(file).href];
}

/** Effects recorded for a run, as `agentctl effects list` shows them. */
async function effectCount(db, runId) {
  const { doc } = await agentctl(['effects', 'list', runId, '--db', db], { env: { PATH: '', NO_COLOR: '1' } });
  return doc.data.effects.length;
}

/**
 * (e): BIG_REPS recorded 1,000-task shell.exec runs, each timed and replayed (timed, interleaved). One more replay,
 * not timed, runs under the spawn counter; the replay runs record zero effects.
 */
async function measureShellReplay() {
  const file = join(tmpRoot, `shell-${REPLAY_SHELL_TASKS}.yaml`);
  writeFileSync(file, workflow('shell', REPLAY_SHELL_TASKS));
  const runs = [];
  const replays = [];
  const sources = [];
  for (let i = 0; i < BIG_REPS; i++) {
    const dir = join(tmpRoot, `replay-shell-${i}`);
    mkdirSync(dir, { recursive: true });
    const db = join(dir, 'runtime.db');
    const run = await agentctl(['run', file, '--db', db, '--workspace', dir], { cwd: dir });
    if (run.doc.data.state !== 'succeeded') throw new Error(`the ${REPLAY_SHELL_TASKS}-task shell run ended ${run.doc.data.state}`);
    runs.push(run.ms);
    const source = { db, runId: run.doc.data.runId };
    sources.push(source);
    replays.push(await agentctlReplay(source, REPLAY_SHELL_TASKS));
  }
  // The counter must see processes where there are some: a 1-task shell run under it counts exactly 1.
  const probeCount = join(tmpRoot, 'spawns-probe');
  const probeDir = join(tmpRoot, 'replay-probe');
  mkdirSync(probeDir);
  writeFileSync(join(tmpRoot, 'shell-1.yaml'), workflow('shell', 1));
  await agentctl(['run', join(tmpRoot, 'shell-1.yaml'), '--db', join(probeDir, 'runtime.db'), '--workspace', probeDir], { cwd: probeDir, node: spawnCounter(probeCount) });
  const countFile = join(tmpRoot, 'spawns-replay');
  const counted = await agentctl(['replay', sources[0].runId, '--db', sources[0].db], { env: { PATH: '', NO_COLOR: '1' }, node: spawnCounter(countFile) });
  const effects = [];
  for (const source of sources) {
    effects.push(await effectCount(source.db, source.runId));
  }
  const replayEffects = await effectCount(sources[0].db, counted.doc.data.runId);
  return { runs, replays, sourceEffects: effects, probeSpawns: Number(readFileSync(probeCount, 'utf8')), replaySpawns: Number(readFileSync(countFile, 'utf8')), replayEffects };
}

/**
 * (f): a 1,000-task run paused at task 501 (a write waiting for approval) is recorded once and approved; each
 * repetition resumes a fresh copy of that database (timed) and runs the 500-task workflow of the same shape fresh.
 */
async function measureResume() {
  const half = RESUME_TASKS / 2;
  const dir = join(tmpRoot, 'resume');
  mkdirSync(dir);
  const pausedFile = join(dir, `paused-${RESUME_TASKS}.yaml`);
  const freshFile = join(tmpRoot, `fresh-${half}.yaml`);
  writeFileSync(pausedFile, approvalWorkflow(RESUME_TASKS, half + 1, 'mutations'));
  writeFileSync(freshFile, approvalWorkflow(half, 1, 'never'));
  const template = join(dir, 'paused.db');
  const env = { ...process.env, NO_COLOR: '1', CI: 'true' };
  const paused = await agentctl(['run', pausedFile, '--db', template, '--workspace', dir], { exit: 3, env, cwd: dir });
  const runId = paused.doc.data.runId;
  const pausedTasks = Object.values(paused.doc.data.tasks);
  if (paused.doc.data.state !== 'paused' || pausedTasks.filter((s) => s === 'succeeded').length !== half) {
    throw new Error(`the run to resume did not pause after ${half} tasks: ${JSON.stringify(paused.doc.data).slice(0, 300)}`);
  }
  const approvals = (await agentctl(['approvals', 'list', runId, '--db', template], { env })).doc.data; // ApprovalList: the array itself
  if (approvals.length !== 1 || approvals[0].taskId !== `t${half + 1}`) throw new Error(`expected one approval for t${half + 1}: ${JSON.stringify(approvals)}`);
  await agentctl(['approvals', 'approve', approvals[0].approvalId, '--reason', 'benchmark', '--actor', 'bench', '--db', template], { env });
  // The template's connection is closed: the database is one file again (no -wal), so a copy is the whole ledger.
  const resumes = [];
  const fresh = [];
  for (let i = 0; i < REPS; i++) {
    const db = join(dir, `resume-${i}.db`);
    copyFileSync(template, db);
    rmSync(join(dir, 'out'), { recursive: true, force: true });
    const resumed = await agentctl(['resume', runId, '--db', db], { env });
    const done = Object.values(resumed.doc.data.tasks).filter((s) => s === 'succeeded').length;
    if (resumed.doc.data.state !== 'succeeded' || done !== RESUME_TASKS) throw new Error(`resume ended ${resumed.doc.data.state} with ${done} tasks succeeded`);
    resumes.push(resumed.ms);
    rmSync(db, { force: true });
    fresh.push(await agentctlRun(freshFile, half));
  }
  return { resumes, fresh };
}

/** (g): independent /bin/true tasks at width 1 and WIDE against plain spawn pools of the same width, and the 2,000-task runs. */
async function measureWide() {
  const write = (name, text) => {
    const file = join(tmpRoot, name);
    writeFileSync(file, text);
    return file;
  };
  const one = write('wide-1.yaml', workflow('shell', 1, { concurrency: 1 }));
  const narrow = write(`wide-${WIDE_TASKS}-c1.yaml`, workflow('shell', WIDE_TASKS, { concurrency: 1 }));
  const wide = write(`wide-${WIDE_TASKS}-c${WIDE}.yaml`, workflow('shell', WIDE_TASKS, { concurrency: WIDE }));
  const bigNarrow = write(`wide-${WIDE_BIG_TASKS}-c1.yaml`, workflow('shell', WIDE_BIG_TASKS, { concurrency: 1 }));
  const bigWide = write(`wide-${WIDE_BIG_TASKS}-c${WIDE}.yaml`, workflow('shell', WIDE_BIG_TASKS, { concurrency: WIDE }));
  const plainDir = join(tmpRoot, 'plain-wide');
  mkdirSync(plainDir);
  await agentctlRun(one, 1); // warm-up; not counted
  const samples = { run1: [], narrow: [], wide: [], plain1: [], plainWide: [], bigNarrow: [], bigWide: [] };
  for (let i = 0; i < REPS; i++) {
    samples.run1.push(await agentctlRun(one, 1));
    samples.narrow.push(await agentctlRun(narrow, WIDE_TASKS));
    samples.plain1.push(await plainSpawnPool(WIDE_TASKS, 1, plainDir));
    samples.wide.push(await agentctlRun(wide, WIDE_TASKS));
    samples.plainWide.push(await plainSpawnPool(WIDE_TASKS, WIDE, plainDir));
  }
  for (let i = 0; i < BIG_REPS; i++) {
    samples.bigNarrow.push(await agentctlRun(bigNarrow, WIDE_BIG_TASKS));
    samples.bigWide.push(await agentctlRun(bigWide, WIDE_BIG_TASKS));
  }
  return samples;
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

/** (b'): marginal per task of N-task assign runs on encrypted and on plain databases, run in alternation. */
async function measureEncrypted(n) {
  const one = join(tmpRoot, 'assign-1.yaml');
  const many = join(tmpRoot, `assign-${n}.yaml`);
  writeFileSync(one, workflow('assign', 1));
  writeFileSync(many, workflow('assign', n));
  const samples = { sealed1: [], sealedN: [], plain1: [], plainN: [] };
  for (let i = 0; i < REPS; i++) {
    samples.sealed1.push(await agentctlRun(one, 1, { encrypted: true }));
    samples.plain1.push(await agentctlRun(one, 1));
    samples.sealedN.push(await agentctlRun(many, n, { encrypted: true }));
    samples.plainN.push(await agentctlRun(many, n));
  }
  return { encrypted: (median(samples.sealedN) - median(samples.sealed1)) / (n - 1), plain: (median(samples.plainN) - median(samples.plain1)) / (n - 1) };
}

/** A figure within its limit: at most the limit, or below it for a strict one. */
const within = (r) => (r.strict ? r.value < r.limit : r.value <= r.limit);

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
  console.log(`  reps       ${REPS} per workflow run / spawn loop (median), ${COLD_REPS} per cold start (median), ${BIG_REPS} per multi-second run of (e) and (g) (median)`);
  console.log('');

  const rows = [];
  try {
    let assign; // (b), which (d) divides by
    if (want('a')) {
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
      // The floor: a synced intent, the same spawn, a synced outcome (bench/floor.mjs), interleaved with plain loops.
      const floorTimes = [];
      const floorPlain = [];
      for (let i = 0; i < REPS; i++) {
        floorTimes.push(await durableSpawnLoop(SHELL_TASKS, plainDir));
        floorPlain.push(await plainSpawnLoop(SHELL_TASKS, plainDir));
      }
      const floorPer = median(floorTimes) / SHELL_TASKS;
      const floorPlainPer = median(floorPlain) / SHELL_TASKS;
      console.log(`    floor loop (synced intent + spawn + synced outcome), ${SHELL_TASKS} tasks: median ${fmt(median(floorTimes), 1)} ms  ${list(floorTimes)}`);
      console.log(`    floor per task     = ${fmt(floorPer)} ms = ${fmt(floorPer / floorPlainPer)} x the plain spawn beside it (${fmt(floorPlainPer)} ms);  agentctl marginal / floor = ${fmt(shell.marginal / floorPer)} x`);
      rows.push({ id: '(a)', figure: 'floor: synced intent + spawn + synced outcome / plain spawn', value: floorPer / floorPlainPer, unit: 'x', limit: LIMITS.shellRatio, gated: false });

    }
    if (want('b')) {
      // (b) assign ------------------------------------------------------------------------------
      process.stdout.write(`(b) ${ASSIGN_TASKS} sequential builtin.assign tasks ... `);
      assign = await measureWorkflow('assign', ASSIGN_TASKS);
      console.log('done');
      printWorkflow(assign, ASSIGN_TASKS);
      rows.push({ id: '(b)', figure: 'assign marginal per task', value: assign.marginal, unit: 'ms', limit: LIMITS.assignMs, gated: true });
      rows.push({ id: '(b)', figure: 'assign total per task', value: assign.total, unit: 'ms', limit: LIMITS.assignMs, gated: false });
      rows.push({ id: '(b)', figure: 'assign execute share per task', value: assign.execute, unit: 'ms', limit: LIMITS.assignMs, gated: false });

      // (b') the same runs on an encrypted database, each encrypted run paired with a plain one ------------------
      process.stdout.write(`(b') ${ASSIGN_TASKS} builtin.assign tasks, encrypted state vs plain, paired ... `);
      const sealed = await measureEncrypted(ASSIGN_TASKS);
      console.log('done');
      console.log(`    encrypted marginal per task = ${fmt(sealed.encrypted)} ms;  plain = ${fmt(sealed.plain)} ms;  ratio ${fmt(sealed.encrypted / sealed.plain)} x   (info)`);
      rows.push({ id: "(b')", figure: 'assign marginal per task, encrypted / plain', value: sealed.encrypted / sealed.plain, unit: 'x', gated: false });

    }
    if (want('c')) {
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

    }
    if (want('d')) {
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
    }

    if (want('e')) {
      // (e) replay of a process run -------------------------------------------------------------
      process.stdout.write(`(e) replay of a succeeded ${REPLAY_SHELL_TASKS}-task builtin.shell.exec run vs that run, ${BIG_REPS} runs ... `);
      const e = await measureShellReplay();
      console.log('done');
      const eRun = median(e.runs);
      const eReplay = median(e.replays);
      console.log(`    agentctl run, ${REPLAY_SHELL_TASKS} tasks:    median ${fmt(eRun, 1).padStart(8)} ms  ${list(e.runs)}  (effects recorded: ${e.sourceEffects.join(', ')})`);
      console.log(`    agentctl replay of it:      median ${fmt(eReplay, 1).padStart(8)} ms  ${list(e.replays)}  (PATH and environment empty)`);
      console.log(`    replay / run = ${fmt(eReplay, 1)} / ${fmt(eRun, 1)} = ${fmt(eReplay / eRun)} x   <- gated`);
      console.log(`    processes started by a replay: ${e.replaySpawns} (counted in the agentctl process; the same counter counts ${e.probeSpawns} for a 1-task run); effects recorded by it: ${e.replayEffects}`);
      rows.push({ id: '(e)', figure: 'replay of a shell.exec run / that run', value: eReplay / eRun, unit: 'x', limit: LIMITS.replayRatio, gated: true });
      rows.push({ id: '(e)', figure: 'processes + effects of that replay', value: e.replaySpawns + e.replayEffects, unit: '', limit: 0, gated: true });

    }
    if (want('f')) {
      // (f) resume ------------------------------------------------------------------------------
      process.stdout.write(`(f) resume of a run paused after ${RESUME_TASKS / 2} of ${RESUME_TASKS} tasks vs a fresh run of the last ${RESUME_TASKS / 2} ... `);
      const f = await measureResume();
      console.log('done');
      const fResume = median(f.resumes);
      const fFresh = median(f.fresh);
      console.log(`    agentctl resume (after approve):  median ${fmt(fResume, 1).padStart(8)} ms  ${list(f.resumes)}`);
      console.log(`    agentctl run, ${RESUME_TASKS / 2} tasks, fresh:   median ${fmt(fFresh, 1).padStart(8)} ms  ${list(f.fresh)}`);
      console.log(`    resume / fresh = ${fmt(fResume / fFresh)} x   <- gated (whole invocations: resume also compiles the recorded ${RESUME_TASKS}-task workflow)`);
      rows.push({ id: '(f)', figure: 'resume of the last 500 / fresh run of 500', value: fResume / fFresh, unit: 'x', limit: LIMITS.resumeRatio, gated: true });

    }
    if (want('g')) {
      // (g) concurrency -------------------------------------------------------------------------
      process.stdout.write(`(g) independent /bin/true tasks at maxConcurrency 1 and ${WIDE} vs plain spawn pools ... `);
      const g = await measureWide();
      console.log('done');
      const g1 = median(g.run1);
      const perNarrow = (median(g.narrow) - g1) / (WIDE_TASKS - 1);
      const perWide = (median(g.wide) - g1) / (WIDE_TASKS - 1);
      const plain1 = median(g.plain1) / WIDE_TASKS;
      const plainWide = median(g.plainWide) / WIDE_TASKS;
      console.log(`    agentctl run, 1 task:                 median ${fmt(g1, 1).padStart(8)} ms  ${list(g.run1)}`);
      console.log(`    agentctl run, ${WIDE_TASKS} tasks, width 1:     median ${fmt(median(g.narrow), 1).padStart(8)} ms  ${list(g.narrow)}`);
      console.log(`    agentctl run, ${WIDE_TASKS} tasks, width ${WIDE}:     median ${fmt(median(g.wide), 1).padStart(8)} ms  ${list(g.wide)}`);
      console.log(`    plain pool, ${WIDE_TASKS} spawns, width 1:      median ${fmt(median(g.plain1), 1).padStart(8)} ms  ${list(g.plain1)}`);
      console.log(`    plain pool, ${WIDE_TASKS} spawns, width ${WIDE}:      median ${fmt(median(g.plainWide), 1).padStart(8)} ms  ${list(g.plainWide)}`);
      console.log(`    width 1: marginal per task ${fmt(perNarrow)} ms / plain ${fmt(plain1)} ms = ${fmt(perNarrow / plain1)} x`);
      console.log(`    width ${WIDE}: marginal per task ${fmt(perWide)} ms / plain ${fmt(plainWide)} ms = ${fmt(perWide / plainWide)} x;  plain width ${WIDE} / plain width 1 = ${fmt(plainWide / plain1)} x (the machine's own gain from width)`);
      const bigNarrow = median(g.bigNarrow) / WIDE_BIG_TASKS;
      const bigWide = median(g.bigWide) / WIDE_BIG_TASKS;
      console.log(`    agentctl run, ${WIDE_BIG_TASKS} tasks, width 1:    median ${fmt(median(g.bigNarrow), 1).padStart(8)} ms  ${list(g.bigNarrow)}  = ${fmt(bigNarrow)} ms per task`);
      console.log(`    agentctl run, ${WIDE_BIG_TASKS} tasks, width ${WIDE}:    median ${fmt(median(g.bigWide), 1).padStart(8)} ms  ${list(g.bigWide)}  = ${fmt(bigWide)} ms per task`);
      console.log(`    width ${WIDE} / width 1, per task = ${fmt(bigWide / bigNarrow)} x   <- gated (must be below 1)`);
      rows.push({ id: '(g)', figure: `width 1 marginal per task / plain loop`, value: perNarrow / plain1, unit: 'x', limit: LIMITS.shellRatio, gated: true });
      rows.push({ id: '(g)', figure: `width ${WIDE} marginal per task / plain pool of ${WIDE}`, value: perWide / plainWide, unit: 'x', limit: LIMITS.shellRatio, gated: true });
      rows.push({ id: '(g)', figure: `${WIDE_BIG_TASKS} tasks: per task at width ${WIDE} / at width 1`, value: bigWide / bigNarrow, unit: 'x', limit: LIMITS.wideRatio, gated: true });
    }
    if (want('h')) {
      // (h) container isolation vs the engine's own run command -----------------------------------
      console.log(`(h) one-task isolation: container run of /bin/true vs \`ENGINE run --rm\` with the same controls, ${CONTAINER_REPS} pairs per engine`);
      const found = benchEngines(ROOT);
      if (!found.engines) console.log(`    skipped: ${found.reason}`);
      for (const reason of found.skipped ?? []) console.log(`    skipped ${reason}`);
      for (const engine of found.engines ?? []) {
        const h = await measureEngine(engine, { timed, node: NODE, cli: CLI, tmpRoot, reps: CONTAINER_REPS });
        const [run, plain, ratio] = [median(h.agentctl), median(h.plain), median(h.ratios)];
        console.log(`    ${engine.name}: agentctl run  median ${fmt(run, 1).padStart(8)} ms  ${list(h.agentctl)}`);
        console.log(`    ${engine.name}: plain run     median ${fmt(plain, 1).padStart(8)} ms  ${list(h.plain)}`);
        console.log(`    ${engine.name}: median paired ratio ${fmt(ratio)} x;  median difference ${fmt(median(h.agentctl.map((ms, i) => ms - h.plain[i])), 1)} ms`);
        rows.push({ id: '(h)', figure: `container run / ${engine.name} run --rm, paired`, value: ratio, unit: 'x', limit: LIMITS.shellRatio, gated: false });
      }
    }
    if (want('j')) {
      // (j) cold start with a code pack ---------------------------------------------------------
      process.stdout.write(`(j) a one-task run with no pack, with the hello pack from its folder, and vendored, ${COLD_REPS} runs each, interleaved ... `);
      const s = await measurePackColdStart({ timed, node: NODE, cli: CLI, root: ROOT, tmpRoot, reps: COLD_REPS });
      console.log('done');
      const [none, pack, vendored] = [median(s.none), median(s.pack), median(s.vendored)];
      console.log(`    no pack (--no-config):       median ${fmt(none, 1).padStart(7)} ms  ${list(s.none)}`);
      console.log(`    hello pack from its folder:  median ${fmt(pack, 1).padStart(7)} ms  ${list(s.pack)}  (+${fmt(pack - none, 1)} ms)`);
      console.log(`    hello pack vendored:         median ${fmt(vendored, 1).padStart(7)} ms  ${list(s.vendored)}  (+${fmt(vendored - none, 1)} ms)`);
      rows.push({ id: '(j)', figure: 'run with one code pack / with none', value: pack / none, unit: 'x', gated: false });
      rows.push({ id: '(j)', figure: 'run with the pack vendored / with none', value: vendored / none, unit: 'x', gated: false });
    }
    if (want('i')) {
      // (i) the agent loop per turn ------------------------------------------------------------
      process.stdout.write(`(i) an agent task of ${AGENT_TURNS} model turns and ${AGENT_TURNS - 1} builtin.echo calls on the fake provider vs the bare loop ... `);
      const { samples: s, recorded, syncs } = await measureAgentLoop({ timed, node: NODE, cli: CLI, tmpRoot, reps: REPS });
      console.log('done');
      const per = (one, many) => (median(many) - median(one)) / (AGENT_TURNS - 1);
      const agentPer = per(s.agent1, s.agentN);
      const barePer = per(s.bare1, s.bareN);
      console.log(`    agentctl run, 1 turn:     median ${fmt(median(s.agent1), 1).padStart(8)} ms  ${list(s.agent1)}`);
      console.log(`    agentctl run, ${AGENT_TURNS} turns:   median ${fmt(median(s.agentN), 1).padStart(8)} ms  ${list(s.agentN)}`);
      console.log(`    bare loop, 1 turn:        median ${fmt(median(s.bare1), 1).padStart(8)} ms  ${list(s.bare1)}`);
      console.log(`    bare loop, ${AGENT_TURNS} turns:      median ${fmt(median(s.bareN), 1).padStart(8)} ms  ${list(s.bareN)}`);
      console.log(`    marginal per turn: agentctl ${fmt(agentPer)} ms, bare ${fmt(barePer)} ms;  ratio ${fmt(agentPer / barePer)} x   <- gated`);
      console.log(`    compile share (info): (check ${AGENT_TURNS} turns ${fmt(median(s.checkN), 1)} ms - check 1 turn ${fmt(median(s.check1), 1)} ms) / ${AGENT_TURNS - 1} = ${fmt(per(s.check1, s.checkN))} ms per turn (the longer script in the document)`);
      console.log(`    bare loop timed inside its process (info): ${fmt(per(s.bareLoop1, s.bareLoopN))} ms per turn`);
      const cpuAgent = per(s.cpu.agent1, s.cpu.agentN);
      const cpuBare = per(s.cpu.bare1, s.cpu.bareN);
      console.log(`    CPU time (user + system) per turn (info): agentctl ${fmt(cpuAgent)} ms, bare ${fmt(cpuBare)} ms;  difference ${fmt(cpuAgent - cpuBare)} ms (framework work, without disk waits)`);
      const r = (side) => `${side.effects} effects (${side.effectBytes} bytes of JSON), ${side.events} effect audit events (${side.eventBytes} bytes)`;
      console.log(`    recorded by ${AGENT_TURNS} turns: agentctl ${r(recorded.agentctl)}; bare ${r(recorded.bare)}`);
      console.log(syncs.skipped ? `    syncs per turn: not counted (${syncs.skipped})` : `    fsync calls per turn (strace): agentctl ${fmt(syncs.agentctl, 2)}, bare ${fmt(syncs.bare, 2)}`);
      rows.push({ id: '(i)', figure: 'agent loop marginal per turn / bare loop', value: agentPer / barePer, unit: 'x', limit: LIMITS.agentRatio, gated: true });
      rows.push({ id: '(i)', figure: 'agent loop execute share per turn / bare loop', value: (agentPer - per(s.check1, s.checkN)) / barePer, unit: 'x', limit: LIMITS.agentRatio, gated: false });
    }
    if (want('l')) {
      // (l) OpenTelemetry tracing, off and on ---------------------------------------------------------
      process.stdout.write(`(l) one and ${TELEMETRY_TASKS} shell tasks with telemetry off and on (a local OTLP receiver), ${REPS} runs each, interleaved ... `);
      const { samples: s, exported } = await measureTelemetry({ timed, node: NODE, cli: CLI, tmpRoot, reps: REPS });
      console.log('done');
      const per = (one, many) => (median(many) - median(one)) / (TELEMETRY_TASKS - 1);
      const [off, on] = [per(s.off1, s.offN), per(s.on1, s.onN)];
      console.log(`    cold agentctl run, 1 task, telemetry off: median ${fmt(median(s.off1), 1).padStart(8)} ms  ${list(s.off1)}`);
      console.log(`    node -e 0, next to each of those:         median ${fmt(median(s.node), 1).padStart(8)} ms  ${list(s.node)}`);
      console.log(`    cold agentctl run, 1 task, telemetry on:  median ${fmt(median(s.on1), 1).padStart(8)} ms  ${list(s.on1)}  (+${fmt(median(s.on1) - median(s.off1), 1)} ms: loading OpenTelemetry, the flush)`);
      console.log(`    ${TELEMETRY_TASKS} tasks, off: median ${fmt(median(s.offN), 1)} ms;  on: median ${fmt(median(s.onN), 1)} ms`);
      console.log(`    marginal per task: off ${fmt(off)} ms, on ${fmt(on)} ms;  tracing per effect = ${fmt(on - off)} ms`);
      console.log(`    exported: ${exported.requests} requests, ${exported.bytes} bytes in all`);
      rows.push({ id: '(l)', figure: 'cold run, 1 shell task, telemetry off / node -e 0', value: median(s.off1) / median(s.node), unit: 'x', limit: LIMITS.runStartRatio, gated: true });
      rows.push({ id: '(l)', figure: 'cold run, 1 shell task, telemetry off', value: median(s.off1), unit: 'ms', gated: false });
      rows.push({ id: '(l)', figure: 'tracing per effect (marginal on - off)', value: on - off, unit: 'ms', gated: false });
    }
    if (want('m')) {
      // (m) peak resident memory ---------------------------------------------------------------
      const limitMiB = FLOOD_LIMIT / 2 ** 20;
      process.stdout.write(`(m) peak RSS: one ${limitMiB} MiB flood, ${FLOODS} at once, ${WIDE_COUNTS.join(' / ')} builtin.assign tasks, ${BIG_REPS} runs each, interleaved ... `);
      // A run that did not end as checked (e.g. a flood whose recorded output is short) leaves this figure out, not the table.
      const m = await measurePeakMemory({ node: NODE, cli: CLI, tmpRoot, reps: BIG_REPS }).catch((error) => {
        console.log(`not measured: ${error.message}`);
        return undefined;
      });
      if (m) {
        console.log('done');
        const mib = (values) => `median ${fmt(median(values), 0).padStart(5)} MiB  ${list(values)}`;
        console.log(`    one-task run (sh -c true):          ${mib(m.baseline)}`);
        console.log(`    one ${limitMiB} MiB flood:                  ${mib(m.one)}`);
        console.log(`    ${FLOODS} floods at once:                   ${mib(m.many)}`);
        for (const count of WIDE_COUNTS) console.log(`    ${String(count).padStart(6)} builtin.assign tasks:      ${mib(m.wide[count])}`);
        const base = median(m.baseline);
        rows.push({ id: '(m)', figure: `one ${limitMiB} MiB flood, peak RSS over a one-task run`, value: median(m.one) - base, unit: 'MiB', limit: 2 * limitMiB, gated: true });
        rows.push({ id: '(m)', figure: `${FLOODS} floods at once, peak RSS over a one-task run`, value: median(m.many) - base, unit: 'MiB', limit: FLOODS * 2 * limitMiB, gated: true });
        for (const count of WIDE_COUNTS) {
          const last = count === WIDE_COUNTS.at(-1);
          rows.push({ id: '(m)', figure: `${count} builtin.assign tasks, peak RSS`, value: median(m.wide[count]), unit: 'MiB', ...(last ? { limit: 150, gated: true } : { gated: false }) });
        }
      }
    }
    if (want('k')) {
      // (k) long-term memory search -------------------------------------------------------------
      process.stdout.write(`(k) long-term memory search over ${MEMORY_ENTRIES} entries of 1 KiB, text and vector, top 10 ... `);
      const { samples: k, seedMs } = await measureMemorySearch({ timed, node: NODE, cli: CLI, root: ROOT, tmpRoot, reps: REPS });
      console.log('done');
      console.log(`    seeding ${MEMORY_ENTRIES} entries through the store: ${fmt(seedMs / 1000, 1)} s`);
      console.log(`    text search, in process:    median ${fmt(median(k.text), 1).padStart(8)} ms per query  ${list(k.text)}`);
      console.log(`    vector search, in process:  median ${fmt(median(k.vector), 1).padStart(8)} ms per query  ${list(k.vector)}`);
      console.log(`    agentctl memory search --mode text (whole invocation):    median ${fmt(median(k.cliText), 1).padStart(8)} ms  ${list(k.cliText)}`);
      console.log(`    agentctl memory search --mode vector (whole invocation):  median ${fmt(median(k.cliVector), 1).padStart(8)} ms  ${list(k.cliVector)}`);
      console.log(`    text search, in process, encrypted state:    median ${fmt(median(k.sealedText), 1).padStart(8)} ms per query  ${list(k.sealedText)}`);
      console.log(`    vector search, in process, encrypted state:  median ${fmt(median(k.sealedVector), 1).padStart(8)} ms per query  ${list(k.sealedVector)}`);
      rows.push({ id: '(k)', figure: `text search of ${MEMORY_ENTRIES} entries, per query`, value: median(k.text), unit: 'ms', gated: false });
      rows.push({ id: '(k)', figure: `vector search of ${MEMORY_ENTRIES} entries, per query`, value: median(k.vector), unit: 'ms', gated: false });
    }
    if (want('n')) {
      // (n) scale-out on one machine -----------------------------------------------------------
      process.stdout.write(`(n) ${SCALE_OUT_ITEMS} items of ${SCALE_OUT_TASK_MS} ms, staged on local processes: 1 shard and ${SCALE_OUT_SHARDS} side by side, ${BIG_REPS} pairs, alternating ... `);
      const n = await measureScaleOut({ timed, node: NODE, cli: CLI, tmpRoot, reps: BIG_REPS }).catch((error) => {
        console.log(`not measured: ${error.message}`);
        return undefined;
      });
      if (n) {
        console.log('done');
        const stage = (runs) => `prepare ${fmt(median(runs.map((run) => run.prepareMs)), 0)} ms + shards ${fmt(median(runs.map((run) => run.shardsMs)), 0)} ms + gather ${fmt(median(runs.map((run) => run.gatherMs)), 0)} ms`;
        const total = (runs) => runs.map((run) => run.totalMs);
        console.log(`    whole run (one process, for reference): ${fmt(n.whole, 0)} ms`);
        console.log(`    1 shard:  median ${fmt(median(total(n.one)), 0).padStart(6)} ms  ${list(total(n.one))}  (${stage(n.one)})`);
        console.log(`    ${SCALE_OUT_SHARDS} shards: median ${fmt(median(total(n.many)), 0).padStart(6)} ms  ${list(total(n.many))}  (${stage(n.many)})`);
        console.log('    every gathered output equals the whole run\'s');
        rows.push({ id: '(n)', figure: `${SCALE_OUT_SHARDS} shards / 1 shard, ${SCALE_OUT_ITEMS} items of ${SCALE_OUT_TASK_MS} ms`, value: median(total(n.many)) / median(total(n.one)), unit: 'x', gated: false });
        rows.push({ id: '(n)', figure: 'gather wall time per item', value: median(n.gatherPerItem), unit: 'ms', gated: false });
      }
    }
  } finally {
    rmSync(tmpRoot, { recursive: true, force: true });
  }

  // table -------------------------------------------------------------------------------------
  console.log('');
  const header = ['', 'figure', 'measured', 'limit', 'ratio to limit', 'verdict'];
  const body = rows.map((r) => [
    r.id,
    r.figure,
    `${r.unit ? fmt(r.value) : r.value} ${r.unit}`.trimEnd(),
    r.limit === undefined ? '-' : `${r.strict ? '< ' : ''}${r.limit} ${r.unit}`.trimEnd(),
    r.limit === undefined || r.limit === 0 ? '-' : fmt(r.value / r.limit, 2),
    r.limit === undefined ? '(info)' : r.gated ? (within(r) ? 'PASS' : 'OVER') : within(r) ? '(info: within)' : '(info: over)',
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
  const over = rows.filter((r) => r.gated && !within(r));
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
