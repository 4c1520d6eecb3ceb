// agentctl report benchmark: a figure, not a test. Makes a 1,000-task run and prints, for each report format, the
// report's size and how long `agentctl report` takes (whole CLI invocations, median of --reps) and how long the
// renderer alone takes on the run's inspection document (median of --reps in this process). Always exits 0.
//
//   npm run build && node bench/report.mjs [--tasks N] [--reps N]
//
// The run: N builtin.assign tasks in layers of ten (each task needs the one ten before it, so the graph is ten wide
// and N/10 deep), with one builtin.shell.exec task that fails under `failure: continue` and the tasks after it in
// its chain skipped, so every report has a failure to put first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin', 'agentctl.js');

function argValue(name, fallback) {
  const i = process.argv.indexOf(name);
  const n = i < 0 ? NaN : Number(process.argv[i + 1]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
const TASKS = argValue('--tasks', 1000);
const REPS = argValue('--reps', 5);
const FAILING = Math.floor(TASKS / 2);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

function workflow() {
  const lines = [
    'apiVersion: agentctl.dev/v1',
    'kind: Workflow',
    'metadata: {name: report-bench}',
    'spec:',
    '  policy: {processAllowlist: [sh], approval: never}',
    '  actions:',
    '    act: {kind: builtin.assign}',
    "    boom: {kind: builtin.shell.exec, command: sh, args: ['-c', 'echo broken >&2; exit 3']}",
    '  tasks:',
  ];
  for (let i = 0; i < TASKS; i++) {
    const needs = i >= 10 ? `, needs: [t${i - 10}]` : '';
    lines.push(i === FAILING ? `    - {id: t${i}, uses: action:boom, failure: continue${needs}}` : `    - {id: t${i}, uses: action:act, with: {i: ${i}}${needs}}`);
  }
  return `${lines.join('\n')}\n`;
}

function cli(args, cwd) {
  const started = performance.now();
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { ...result, ms: performance.now() - started };
}

const dir = mkdtempSync(join(os.tmpdir(), 'agentctl-report-bench-'));
try {
  const db = join(dir, 'state.db');
  writeFileSync(join(dir, 'wf.yaml'), workflow());
  const run = cli(['run', 'wf.yaml', '--db', db, '--output', 'json'], dir);
  const runId = JSON.parse(run.stdout || run.stderr).data?.runId ?? JSON.parse(run.stderr).error.runId;
  console.log(`run ${runId}: ${TASKS} tasks, exit ${run.status}, ${(run.ms / 1000).toFixed(2)} s`);
  const inspection = JSON.parse(cli(['inspect', runId, '--db', db, '--output', 'json'], dir).stdout).data;
  const renderers = {
    html: (await import(pathToFileURL(join(ROOT, 'dist', 'builtins', 'reporter-html', 'render.js')).href)).renderHtml,
    junit: (await import(pathToFileURL(join(ROOT, 'dist', 'builtins', 'reporter-junit', 'render.js')).href)).renderJunit,
    markdown: (await import(pathToFileURL(join(ROOT, 'dist', 'builtins', 'reporter-markdown', 'render.js')).href)).renderMarkdown,
  };
  console.log(`\n${'format'.padEnd(10)}${'size'.padStart(12)}${'agentctl report'.padStart(18)}${'renderer alone'.padStart(17)}`);
  for (const [format, render] of Object.entries(renderers)) {
    const out = join(dir, `report.${format}`);
    const times = [];
    for (let rep = 0; rep < REPS; rep++) {
      const result = cli(['report', runId, '--format', format, '--out', out, '--db', db], dir);
      if (result.status !== 0) throw new Error(`report --format ${format} exited ${result.status}: ${result.stderr}`);
      times.push(result.ms);
    }
    const renders = [];
    for (let rep = 0; rep < REPS; rep++) {
      const started = performance.now();
      render(inspection);
      renders.push(performance.now() - started);
    }
    console.log(`${format.padEnd(10)}${kib(statSync(out).size).padStart(12)}${`${median(times).toFixed(0)} ms`.padStart(18)}${`${median(renders).toFixed(1)} ms`.padStart(17)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
