// agentctl output-flood memory report: a report, not a test. Always exits 0 unless the CLI misbehaves.
//
//   npm run build && node bench/flood.mjs [--tasks 1,64] [--limit-mib 16] [--variants overflow,exact] [--reps 1]
//
// Each scenario is one `agentctl run` of a workflow with N tasks that flood stdout, all running at once
// (runtime.maxConcurrency = N), with stdoutLimitBytes = combinedOutputLimitBytes = the limit:
//   overflow: `yes` writes forever; the task fails at the limit (AGENTCTL_E_PROCESS_OUTPUT_LIMIT) and the output
//             kept up to the limit is recorded with the failed effect (tasks have `failure: continue`);
//   exact:    `sh -c "yes | head -c LIMIT"` writes exactly the limit; the task succeeds and its output is recorded.
// The figure is the peak resident set size of the agentctl process (GNU time's "Maximum resident set size" when
// /usr/bin/time exists, else the VmHWM of /proc/PID/status polled every 5 ms), next to the captured output itself.
// With --reps N each scenario runs N times and the line shows min / median / max.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin', 'agentctl.js');
const TIME = '/usr/bin/time';
const MiB = 1024 * 1024;

function option(name, fallback) {
  const index = process.argv.indexOf(name);
  return index < 0 || index + 1 >= process.argv.length ? fallback : process.argv[index + 1];
}
const TASKS = option('--tasks', '1,64').split(',').map(Number);
const LIMIT = Number(option('--limit-mib', '16')) * MiB;
const VARIANTS = option('--variants', 'overflow,exact').split(',');
const REPS = Math.max(1, Number(option('--reps', '1')));

function workflowText(tasks, variant) {
  const action =
    variant === 'overflow'
      ? { command: 'yes' }
      : { command: 'sh', args: ['-c', `yes | head -c ${LIMIT}`] };
  const lines = [
    'apiVersion: agentctl.dev/v1',
    'kind: Workflow',
    'metadata: { name: flood }',
    'spec:',
    `  policy: { processAllowlist: [yes, sh], approval: never }`,
    // Generous deadlines: on a loaded machine 64 floods take minutes, and a timed-out flood would measure something else.
    `  runtime: { maxConcurrency: ${Math.min(tasks, 64)}, defaultTimeoutSeconds: 3600 }`,
    '  actions:',
    '    flood:',
    '      kind: builtin.shell.exec',
    `      command: ${action.command}`,
    ...(action.args ? [`      args: ${JSON.stringify(action.args)}`] : []),
    `      stdoutLimitBytes: ${LIMIT}`,
    `      combinedOutputLimitBytes: ${LIMIT}`,
    '      timeoutSeconds: 3600',
    '  tasks:',
  ];
  for (let index = 0; index < tasks; index += 1) lines.push(`    - { id: t${index}, uses: "action:flood", failure: continue }`);
  return `${lines.join('\n')}\n`;
}

/** Runs the CLI; resolves with its exit code, peak RSS in KiB and wall time. */
function measure(args, cwd) {
  const useTime = existsSync(TIME);
  const timeFile = join(cwd, 'time.txt');
  const command = useTime ? TIME : process.execPath;
  const argv = useTime ? ['-v', '-o', timeFile, process.execPath, CLI, ...args] : [CLI, ...args];
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(command, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    let polled = 0;
    const poll = useTime
      ? undefined
      : setInterval(() => {
          try {
            const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (match) polled = Math.max(polled, Number(match[1]));
          } catch {
            // the process has ended
          }
        }, 5);
    child.once('error', reject);
    child.once('close', (status) => {
      clearInterval(poll);
      const seconds = (performance.now() - started) / 1000;
      let peak = polled;
      if (useTime) {
        const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timeFile, 'utf8'));
        peak = match ? Number(match[1]) : NaN;
      }
      resolvePromise({ status, peakKiB: peak, seconds, stdout, stderr, method: useTime ? 'GNU time' : 'VmHWM poll' });
    });
  });
}

/** The error codes of the failed tasks in the database, with their counts (why a flood did not end as expected). */
function failureCodes(db) {
  try {
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const handle = new Database(db, { readonly: true });
    try {
      const rows = handle.prepare(`SELECT json_extract(error_json, '$.code') AS code, COUNT(*) AS count FROM tasks WHERE state = 'failed' GROUP BY code`).all();
      return rows.map((row) => `${row.count} ${row.code}`).join(', ');
    } finally {
      handle.close();
    }
  } catch (error) {
    return `(not read: ${error.message})`;
  }
}

/** Task state counts from the RunOutcome document. */
function taskStates(stdout) {
  try {
    const tasks = JSON.parse(stdout).data.tasks;
    return Object.values(tasks).reduce((tally, state) => ({ ...tally, [state]: (tally[state] ?? 0) + 1 }), {});
  } catch {
    return {};
  }
}

const mib = (kib) => (kib / 1024).toFixed(0);
const spread = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 1 ? mib(sorted[0]) : `${mib(sorted[0])} / ${mib(sorted[Math.floor(sorted.length / 2)])} / ${mib(sorted.at(-1))}`;
};
console.log(`agentctl output flood: limit ${LIMIT / MiB} MiB per task, node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)}`);
console.log(`variant   tasks  task states       peak RSS (MiB${REPS > 1 ? `, min / median / max of ${REPS}` : ''})  output kept (MiB)  wall (s)`);
for (const variant of VARIANTS) {
  for (const tasks of TASKS) {
    const peaks = [];
    const walls = [];
    let shown = '?';
    for (let rep = 0; rep < REPS; rep += 1) {
      const folder = mkdtempSync(join(os.tmpdir(), 'agentctl-flood-'));
      try {
        writeFileSync(join(folder, 'wf.yaml'), workflowText(tasks, variant));
        // Every task has `failure: continue`, so the run succeeds; the overflow tasks themselves fail.
        const expected = variant === 'overflow' ? 'failed' : 'succeeded';
        const result = await measure(['run', 'wf.yaml', '--db', 'state/runtime.db', '--output', 'json'], folder);
        const states = taskStates(result.stdout);
        shown = Object.entries(states).map(([state, count]) => `${count} ${state}`).join(', ') || '?';
        peaks.push(result.peakKiB);
        walls.push(result.seconds);
        if (result.status !== 0 || states[expected] !== tasks) {
          const codes = states.failed ? `; failed tasks: ${failureCodes(join(folder, 'state', 'runtime.db'))}` : '';
          console.log(`  unexpected outcome (exit ${result.status}, ${shown}${codes}); stderr tail: ${result.stderr.slice(-600)}`);
        }
        if (rep === 0 && tasks === TASKS[0] && variant === VARIANTS[0]) console.log(`  (peak measured with ${result.method})`);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
    const kept = (tasks * LIMIT) / MiB;
    const wall = walls.sort((a, b) => a - b)[Math.floor(walls.length / 2)];
    console.log(`${variant.padEnd(9)} ${String(tasks).padStart(5)}  ${shown.padEnd(16)}  ${spread(peaks).padStart(14)}  ${String(kept).padStart(17)}  ${wall.toFixed(1).padStart(8)}`);
  }
}
