// Figure (m) of bench/run.mjs: peak resident memory of whole `agentctl run` invocations, against a one-task run.
//
//   flood:  one task printing exactly LIMIT bytes (stdoutLimitBytes = combinedOutputLimitBytes = LIMIT), and FLOODS such
//           tasks at once; the figure is the peak over the one-task run (a shell task running `true`)
//   wide:   N builtin.assign tasks chained by `needs`, for each N of WIDE_COUNTS; the figure is the peak itself
//
// Every run's outcome is checked: the run and each task succeeded, and each flood's recorded stdout has LIMIT bytes.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const MiB = 1024 * 1024;
export const FLOOD_LIMIT = 16 * MiB;
export const FLOODS = 8;
export const WIDE_COUNTS = [2500, 5000, 10000];
const TIME = '/usr/bin/time';

const header = (name, policy) => ['apiVersion: agentctl.dev/v1', 'kind: Workflow', `metadata: { name: ${name} }`, 'spec:', `  policy: ${policy}`];

function floodWorkflow(tasks) {
  const lines = [
    ...header('flood', '{ processAllowlist: [sh], approval: never }'),
    `  runtime: { maxConcurrency: ${Math.max(1, tasks)}, defaultTimeoutSeconds: 3600 }`,
    '  actions:',
    '    flood:',
    '      kind: builtin.shell.exec',
    '      command: sh',
    // `tasks` 0 is the baseline: the same shape, a process that prints nothing.
    `      args: ["-c", "${tasks === 0 ? 'true' : `yes | head -c ${FLOOD_LIMIT}`}"]`,
    `      stdoutLimitBytes: ${FLOOD_LIMIT}`,
    `      combinedOutputLimitBytes: ${FLOOD_LIMIT}`,
    '      timeoutSeconds: 3600',
    '  tasks:',
  ];
  for (let index = 0; index < Math.max(1, tasks); index += 1) lines.push(`    - { id: t${index}, uses: "action:flood" }`);
  return `${lines.join('\n')}\n`;
}

function wideWorkflow(tasks) {
  const lines = [...header('wide', '{ approval: never }'), '  runtime: { maxConcurrency: 1 }', '  actions:', '    act: { kind: builtin.assign }', '  tasks:'];
  for (let index = 1; index <= tasks; index += 1) {
    lines.push(`    - id: t${index}`, '      uses: action:act', `      with: { i: ${index} }`);
    if (index > 1) lines.push(`      needs: [t${index - 1}]`);
  }
  return `${lines.join('\n')}\n`;
}

/** One whole `agentctl run`; resolves with its exit code, stdout and peak RSS in MiB. */
function peakOf(node, cli, cwd) {
  const useTime = existsSync(TIME);
  const timeFile = join(cwd, 'time.txt');
  const args = ['run', 'wf.yaml', '--db', 'state/runtime.db', '--output', 'json'];
  const [command, argv] = useTime ? [TIME, ['-v', '-o', timeFile, node, cli, ...args]] : [node, [cli, ...args]];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    let polled = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
    const poll = useTime
      ? undefined
      : setInterval(() => {
          try {
            polled = Math.max(polled, Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0));
          } catch {
            // the process has ended
          }
        }, 5);
    child.once('error', reject);
    child.once('close', (status) => {
      clearInterval(poll);
      const kib = useTime ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timeFile, 'utf8'))?.[1]) : polled;
      resolvePromise({ status, stdout, stderr, mib: kib / 1024 });
    });
  });
}

/** Runs `text` in a fresh folder; throws unless the run and its `tasks` tasks succeeded (and `check` passes). */
async function measured(node, cli, tmpRoot, text, tasks, check) {
  const folder = mkdtempSync(join(tmpRoot, 'peak-'));
  try {
    writeFileSync(join(folder, 'wf.yaml'), text);
    const result = await peakOf(node, cli, folder);
    const data = result.status === 0 ? JSON.parse(result.stdout).data : undefined;
    const succeeded = data ? Object.values(data.tasks).filter((state) => state === 'succeeded').length : 0;
    if (data?.state !== 'succeeded' || succeeded !== tasks) throw new Error(`run ended with exit ${result.status}, ${succeeded} of ${tasks} tasks succeeded: ${result.stderr.slice(-400)}`);
    check?.(join(folder, 'state', 'runtime.db'));
    return result.mib;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Every flood task recorded exactly the limit on stdout. */
function floodsRecorded(tasks) {
  return (db) => {
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const handle = new Database(db, { readonly: true });
    try {
      const rows = handle.prepare(`SELECT length(json_extract(output_json, '$.stdout')) AS bytes FROM tasks`).all();
      if (rows.length !== tasks || rows.some((row) => row.bytes !== FLOOD_LIMIT)) throw new Error(`flood outputs recorded as ${JSON.stringify(rows)}`);
    } finally {
      handle.close();
    }
  };
}

/**
 * Interleaved repetitions of: the one-task baseline, one flood, FLOODS floods at once, and each wide run. Peaks in MiB,
 * one list per scenario.
 */
export async function measurePeakMemory({ node, cli, tmpRoot, reps }) {
  const samples = { baseline: [], one: [], many: [], wide: Object.fromEntries(WIDE_COUNTS.map((count) => [count, []])) };
  for (let rep = 0; rep < reps; rep += 1) {
    samples.baseline.push(await measured(node, cli, tmpRoot, floodWorkflow(0), 1));
    samples.one.push(await measured(node, cli, tmpRoot, floodWorkflow(1), 1, floodsRecorded(1)));
    samples.many.push(await measured(node, cli, tmpRoot, floodWorkflow(FLOODS), FLOODS, floodsRecorded(FLOODS)));
    for (const count of WIDE_COUNTS) samples.wide[count].push(await measured(node, cli, tmpRoot, wideWorkflow(count), count));
  }
  return samples;
}
