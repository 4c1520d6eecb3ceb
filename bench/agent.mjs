// Benchmark figure (i): the agent loop per turn. A `fake` agent whose script is 49 turns of one builtin.echo call
// and a final text, against the same loop with no framework (bench/agent-bare.mjs) that makes the same commits and
// syncs and records the same bytes. Both sides are whole processes; see bench/README.md.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { agentWorkflow } from './agent-bare.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BARE = join(ROOT, 'bench', 'agent-bare.mjs');
export const AGENT_TURNS = 50;

/**
 * Per repetition, interleaved: agentctl 1 turn, agentctl 50 turns, `agentctl check` of both documents (the compile
 * share: the 50-turn document holds a longer script), bare 1 turn, bare 50 turns (each a fresh database), each timed
 * in wall and CPU time. Then, not timed: the bytes each side recorded for 50 turns, and (where strace exists) the
 * syncs each makes per turn.
 */
export async function measureAgentLoop({ timed, node, cli, tmpRoot, reps }) {
  const dir = join(tmpRoot, 'agent');
  mkdirSync(dir);
  const files = {};
  for (const turns of [1, AGENT_TURNS]) writeFileSync((files[turns] = join(dir, `agent-${turns}.yaml`)), agentWorkflow(turns));
  // A module preloaded into both sides (node --import) writes the process's CPU time (user + system) when it exits:
  // unlike wall time, it does not include waiting for the disk, which other work on the machine makes vary.
  const cpuProbe = join(dir, 'cpu-probe.mjs');
  writeFileSync(cpuProbe, "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => { const u = process.cpuUsage(); writeFileSync(process.env.BENCH_CPU_FILE, String((u.user + u.system) / 1000)); });\n");
  const cpuArgs = ['--import', pathToFileURL(cpuProbe).href];
  const cpuOf = (run) => Number(readFileSync(join(run, 'cpu-ms'), 'utf8'));
  let counter = 0;
  const fresh = () => {
    const run = join(dir, `run-${++counter}`);
    mkdirSync(run);
    return run;
  };
  const agentctl = async (turns, prefix = [], keep = false) => {
    const run = fresh();
    const r = await timed(prefix[0] ?? node, [...prefix.slice(1), ...(prefix.length ? [node] : []), ...cpuArgs, cli, 'run', files[turns], '--db', join(run, 'runtime.db'), '--workspace', run, '--output', 'json'], {
      cwd: run,
      env: { ...process.env, NO_COLOR: '1', BENCH_CPU_FILE: join(run, 'cpu-ms') },
    });
    const doc = r.code === 0 ? JSON.parse(r.stdout) : undefined;
    const usage = doc?.data?.usage;
    if (doc?.data?.state !== 'succeeded' || usage?.providerRequests !== turns || usage?.toolCalls !== turns - 1) {
      throw new Error(`agentctl run of the ${turns}-turn agent failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    }
    const cpuMs = cpuOf(run);
    if (!keep) rmSync(run, { recursive: true, force: true });
    return { ms: r.ms, cpuMs, db: join(run, 'runtime.db') };
  };
  const bare = async (turns, prefix = [], keep = false) => {
    const run = fresh();
    const r = await timed(prefix[0] ?? node, [...prefix.slice(1), ...(prefix.length ? [node] : []), ...cpuArgs, BARE, join(run, 'bare.db'), String(turns)], {
      env: { ...process.env, BENCH_CPU_FILE: join(run, 'cpu-ms') },
    });
    if (r.code !== 0) throw new Error(`the bare ${turns}-turn loop failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    const cpuMs = cpuOf(run);
    if (!keep) rmSync(run, { recursive: true, force: true });
    return { ms: r.ms, cpuMs, loopMs: JSON.parse(r.stdout).loopMs, db: join(run, 'bare.db') };
  };

  await agentctl(1); // warm the page cache; not counted
  await bare(1);
  const check = async (turns) => {
    const r = await timed(node, [cli, 'check', files[turns], '--output', 'json'], { env: { ...process.env, NO_COLOR: '1' } });
    if (r.code !== 0) throw new Error(`agentctl check of the ${turns}-turn agent failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    return r.ms;
  };
  const samples = { agent1: [], agentN: [], bare1: [], bareN: [], bareLoop1: [], bareLoopN: [], check1: [], checkN: [], cpu: { agent1: [], agentN: [], bare1: [], bareN: [] } };
  for (let i = 0; i < reps; i++) {
    const a1 = await agentctl(1);
    const an = await agentctl(AGENT_TURNS);
    samples.agent1.push(a1.ms);
    samples.agentN.push(an.ms);
    samples.cpu.agent1.push(a1.cpuMs);
    samples.cpu.agentN.push(an.cpuMs);
    samples.check1.push(await check(1));
    samples.checkN.push(await check(AGENT_TURNS));
    const b1 = await bare(1);
    const bn = await bare(AGENT_TURNS);
    samples.bare1.push(b1.ms);
    samples.bareN.push(bn.ms);
    samples.cpu.bare1.push(b1.cpuMs);
    samples.cpu.bareN.push(bn.cpuMs);
    samples.bareLoop1.push(b1.loopMs);
    samples.bareLoopN.push(bn.loopMs);
  }
  const recorded = { agentctl: recordedBytes((await agentctl(AGENT_TURNS, [], true)).db), bare: recordedBytes((await bare(AGENT_TURNS, [], true)).db) };
  const syncs = await syncsPerTurn({ agentctl, bare, timed, dir });
  return { samples, recorded, syncs };
}

/** What a database holds of the loop: effects, their audit events and the bytes of their JSON. */
function recordedBytes(path) {
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const db = new Database(path, { readonly: true });
  try {
    const effects = db.prepare(`SELECT count(*) AS n, sum(length(input_json)) + sum(coalesce(length(result_json), 0)) AS bytes FROM effects`).get();
    const events = db.prepare(`SELECT count(*) AS n, sum(length(data_json)) AS bytes FROM audit_events WHERE effect_id IS NOT NULL`).get();
    return { effects: effects.n, effectBytes: effects.bytes, events: events.n, eventBytes: events.bytes };
  } finally {
    db.close();
  }
}

/** fsync and fdatasync calls per turn of each side, counted by `strace -f -c`: (calls at 50 turns - at 1) / 49. */
async function syncsPerTurn({ agentctl, bare, timed, dir }) {
  const strace = ['/usr/bin/strace', '/bin/strace'].find((path) => existsSync(path));
  if (!strace) return { skipped: 'strace is not installed' };
  const count = async (side, turns) => {
    const out = join(dir, `strace-${side.name}-${turns}.txt`);
    try {
      await side(turns, [strace, '-f', '-c', '-e', 'trace=fsync,fdatasync', '-o', out]);
      const total = readFileSync(out, 'utf8').split('\n').find((line) => /\btotal$/.test(line.trim()));
      return total ? Number(total.trim().split(/\s+/)[3]) : 0;
    } finally {
      rmSync(out, { force: true });
    }
  };
  try {
    const probe = await timed(strace, ['-f', '-c', '-o', '/dev/null', 'true']);
    if (probe.code !== 0) return { skipped: `strace cannot trace here: ${probe.stderr.trim().split('\n')[0]}` };
    const per = async (side) => ((await count(side, AGENT_TURNS)) - (await count(side, 1))) / (AGENT_TURNS - 1);
    return { agentctl: await per(agentctl), bare: await per(bare) };
  } catch (error) {
    return { skipped: `strace failed: ${error.message.split('\n')[0]}` };
  }
}
