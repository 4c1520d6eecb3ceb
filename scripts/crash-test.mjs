#!/usr/bin/env node
// Crash safety, for real: a workflow of N tasks that each append their id to lines.txt through builtin.shell.exec;
// agentctl is killed with SIGKILL at random points K times, the first time while it creates its database. After each
// kill the operator's part is done as a person would: every effect in doubt is checked against the file and
// reconciled (applied if its line is there, else not-applied), then the run is resumed. At the end every line must be
// present exactly once, the run succeeded, and the ledger accounts for every effect.
// Usage: node scripts/crash-test.mjs [--tasks N] [--kills K] [--concurrency C] [--seed S]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'agentctl.js');
const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : Number(process.argv[index + 1]);
};
const tasks = option('tasks', 100);
const kills = option('kills', 20);
const concurrency = option('concurrency', 4);
let seed = option('seed', Date.now() % 2 ** 31);
const initialSeed = seed;
// A small deterministic generator: a failing seed can be replayed with --seed.
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-crash-')));
const db = join(dir, 'state', 'runtime.db');
const marker = `crash-${process.pid}-${initialSeed}`;
const ids = Array.from({ length: tasks }, (_, index) => `t${String(index + 1).padStart(4, '0')}`);
const yaml = [
  'apiVersion: agentctl.dev/v1',
  'kind: Workflow',
  'metadata: { name: crash }',
  'spec:',
  '  policy: { processAllowlist: [sh], writableRoots: [.], approval: never }',
  `  runtime: { maxConcurrency: ${concurrency} }`,
  '  actions:',
  ...ids.map((id) => `    ${id}: { kind: builtin.shell.exec, command: /bin/sh, args: [-c, "echo ${id} >> lines.txt", ${marker}] }`),
  '  tasks:',
  ...ids.map((id) => `    - { id: ${id}, uses: "action:${id}" }`),
].join('\n');
writeFileSync(join(dir, 'wf.yaml'), `${yaml}\n`);
writeFileSync(join(dir, 'result.json'), JSON.stringify({ exitCode: 0, stdout: '', stderr: '' }));

const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
const cli = (...args) => {
  const result = spawnSync(process.execPath, [BIN, ...args, '--db', db, '--output', 'json'], { cwd: dir, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const text = (result.stdout || result.stderr).trim();
  return { status: result.status, document: text ? JSON.parse(text) : null };
};
const lines = () => (existsSync(join(dir, 'lines.txt')) ? readFileSync(join(dir, 'lines.txt'), 'utf8').split('\n').filter(Boolean) : []);
const childrenAlive = () =>
  readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(marker) && !/\) [ZX] /.test(readFileSync(`/proc/${entry}/stat`, 'utf8'));
    } catch {
      return false;
    }
  });
const effectCount = () => {
  if (!existsSync(db)) return 0;
  try {
    const handle = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return handle.prepare('SELECT COUNT(*) AS n FROM effects').get().n;
    } finally {
      handle.close();
    }
  } catch {
    return 0;
  }
};
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
/** The newest run, if any: a database whose creation a kill cut short must read as one without runs. */
const firstRun = () => {
  const listing = cli('runs', 'list');
  if (listing.status !== 0) fail(`runs list exited ${listing.status}: ${JSON.stringify(listing.document)}`);
  return listing.document.data.runs[0]?.runId;
};
/** Resolves when `path` appears in its folder (which is created first). */
const appearance = (path) => {
  mkdirSync(dirname(path), { recursive: true });
  let watcher;
  const promise = new Promise((done) => {
    watcher = watch(dirname(path), (_event, name) => name === basename(path) && existsSync(path) && done());
  });
  return { promise, stop: () => watcher.close() };
};
const fail = (message) => {
  console.error(`crash test FAILED (seed ${initialSeed}, folder ${dir}): ${message}`);
  process.exit(1);
};

const started = Date.now();
let runId;
let landed = 0;
const reconciled = { applied: 0, not_applied: 0 };
for (let round = 0; landed < kills && round < kills * 5; round += 1) {
  const args = runId ? ['resume', runId] : ['run', join(dir, 'wf.yaml')];
  // The first kill lands the moment the database file appears, while agentctl is creating it.
  const created = round === 0 ? appearance(db) : undefined;
  const child = spawn(process.execPath, [BIN, ...args, '--db', db, '--output', 'json'], { cwd: dir, env, stdio: 'ignore' });
  let ended = false;
  const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal, ended: (ended = true) })));
  // Of the other kills a quarter land at a random time from startup on; the rest once the run has made progress (one
  // more effect recorded), at a random point after it, so that each round moves the run forward.
  if (created) await Promise.race([created.promise, exited]).finally(created.stop);
  // (within 250 ms: the CLI starts in about 150 ms and a small run ends soon after, so a later kill would mostly miss,
  // and a round whose run ends unkilled ends the test)
  else if (random() < 0.25) await sleep(Math.floor(random() * 250));
  else {
    const before = effectCount();
    while (!ended && effectCount() <= before) await sleep(5);
    await sleep(Math.floor(random() * 40));
  }
  child.kill('SIGKILL');
  const { code, signal } = await exited;
  if (signal === 'SIGKILL') landed += 1;
  else if (code === 0) {
    // A run that finished before this round's kill could land: when no earlier round saw its run (the kills so far
    // all cut the database's creation short), it is the run this one created.
    runId ??= firstRun();
    break;
  }
  else if (code === 2 && runId && cli('inspect', runId).document.data.run.state === 'succeeded') break;
  else if (code !== 3) fail(`agentctl ${args[0]} exited ${code}`);
  // An orphaned child of the killed agentctl may still be appending: the operator waits until it is gone.
  while (childrenAlive()) await sleep(10);
  const listed = runId ?? (existsSync(db) ? firstRun() : undefined);
  if (!listed) continue;
  runId = listed;
  const effects = cli('effects', 'list', runId).document.data.effects;
  const present = new Set(lines());
  for (const effect of effects.filter((item) => item.inDoubt)) {
    const applied = present.has(effect.taskId);
    const status = applied ? 'applied' : 'not-applied';
    const extra = applied ? ['--result-file', join(dir, 'result.json')] : [];
    const result = cli('effects', 'reconcile', effect.effectId, '--status', status, '--reason', `lines.txt ${applied ? 'has' : 'lacks'} ${effect.taskId}`, '--actor', 'crash-test', ...extra);
    if (result.status !== 0) fail(`reconcile ${effect.effectId} exited ${result.status}: ${JSON.stringify(result.document)}`);
    reconciled[applied ? 'applied' : 'not_applied'] += 1;
  }
}

if (!runId) fail('no run was ever created');
const last = cli('resume', runId);
if (last.status !== 0 && !(last.status === 2 && last.document?.diagnostics?.[0]?.code === 'AGENTCTL_E_RUN_NOT_RESUMABLE')) fail(`the final resume exited ${last.status}: ${JSON.stringify(last.document)}`);
const view = cli('inspect', runId).document.data;
if (view.run.state !== 'succeeded') fail(`run ended ${view.run.state}`);
const written = lines();
const counts = new Map();
for (const line of written) counts.set(line, (counts.get(line) ?? 0) + 1);
for (const id of ids) if (counts.get(id) !== 1) fail(`${id} appears ${counts.get(id) ?? 0} times in lines.txt`);
if (written.length !== ids.length) fail(`lines.txt has ${written.length} lines for ${ids.length} tasks`);
// Every effect is accounted for: succeeded, reconciled, or cancelled before it started; each task has exactly one
// effect that took place.
const byState = {};
const took = new Map();
const reconciliations = new Map(cli('effects', 'list', runId).document.data.effects.map((effect) => [effect.effectId, effect.reconciled]));
if (reconciliations.size !== view.effects.length) fail(`effects list shows ${reconciliations.size} effects, inspect ${view.effects.length}`);
for (const effect of view.effects) {
  byState[effect.state] = (byState[effect.state] ?? 0) + 1;
  const reconciliation = reconciliations.get(effect.effectId);
  const tookPlace = effect.state === 'succeeded' || reconciliation === 'applied';
  const accounted = tookPlace || effect.state === 'cancelled' || effect.state === 'requested' || reconciliation === 'not_applied';
  if (!accounted) fail(`effect ${effect.effectId} of ${effect.taskId} is ${effect.state} with no reconciliation`);
  if (tookPlace) took.set(effect.taskId, (took.get(effect.taskId) ?? 0) + 1);
}
for (const id of ids) if (took.get(id) !== 1) fail(`task ${id} has ${took.get(id) ?? 0} effects that took place`);
for (const task of view.tasks) if (task.state !== 'succeeded') fail(`task ${task.taskId} is ${task.state}`);

const figures = { tasks, concurrency, kills: landed, seed: initialSeed, effects: view.effects.length, effectStates: byState, reconciled, seconds: Math.round((Date.now() - started) / 100) / 10 };
console.log(`crash test passed: ${JSON.stringify(figures)}`);
rmSync(dir, { recursive: true, force: true });
