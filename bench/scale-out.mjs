// Figure (n): scale-out on one machine. A 200-item fan-out of 200 ms process tasks, cut into stages and run as local
// processes: prepare, then the shards side by side, then gather — once with 1 shard and once with 4. The figure is the
// wall time of 4 shards over the wall time of 1 (each: prepare + the shards' wall + gather), and gather's wall time
// per item (what gathering costs as the fan-out grows). Every gathered run's output is checked against a whole run's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SCALE_OUT_ITEMS = 200;
export const SCALE_OUT_TASK_MS = 200;
export const SCALE_OUT_SHARDS = 4;

/** The workflow: a prepare task, a foreach of ITEMS process tasks of TASK_MS each, and a gather over all of them. */
export function scaleOutWorkflow(items = SCALE_OUT_ITEMS, taskMs = SCALE_OUT_TASK_MS) {
  const list = Array.from({ length: items }, (_, index) => `i${index}`);
  return [
    'apiVersion: agentctl.dev/v1',
    'kind: Workflow',
    'metadata: {name: bench-scale-out}',
    'spec:',
    '  outputs: {summary: "${{ tasks.summary.output.after }}"}',
    '  policy: {processAllowlist: [sleep], approval: never}',
    '  runtime: {maxConcurrency: 8}',
    '  actions:',
    '    assign: {kind: builtin.assign}',
    `    work: {kind: builtin.shell.exec, command: sleep, args: ["${taskMs / 1000}"]}`,
    '  tasks:',
    '    - id: prepare',
    '      uses: action:assign',
    `      with: {items: ${items}}`,
    '    - id: items',
    '      uses: action:work',
    '      needs: [prepare]',
    `      foreach: {items: [${list.join(', ')}], maxItems: 256}`,
    '    - id: summary',
    '      uses: action:assign',
    '      needs: [prepare, items]',
    '      with: {count: "${{ tasks.prepare.output.after.items }}", items: "${{ tasks.items.output.items }}"}',
    '',
  ].join('\n');
}

/** One staged run on local processes; returns the stages' wall times and the gathered run's output. */
async function stagedRun({ timed, node, cli, folder, file, shards }) {
  mkdirSync(folder, { recursive: true });
  const workspace = ['--workspace', folder, '--output', 'json'];
  const ok = (result, what) => {
    if (result.code !== 0) throw new Error(`${what} exited ${result.code}: ${result.stderr.slice(0, 600)}`);
    return JSON.parse(result.stdout);
  };
  const prepareDb = join(folder, 'prepare.db');
  const started = performance.now();
  const prepare = await timed(node, [cli, 'run', file, '--stage', 'prepare', '--db', prepareDb, ...workspace]);
  ok(prepare, 'prepare');
  const shardDbs = Array.from({ length: shards }, (_, index) => join(folder, `shard-${index}.db`));
  const shardsStarted = performance.now();
  const runs = await Promise.all(shardDbs.map((db, index) => timed(node, [cli, 'run', file, '--shard', `${index}/${shards}`, '--from', prepareDb, '--db', db, ...workspace])));
  const shardsMs = performance.now() - shardsStarted;
  runs.forEach((run, index) => ok(run, `shard ${index}/${shards}`));
  const gather = await timed(node, [cli, 'runs', 'gather', file, ...shardDbs.flatMap((db) => ['--from', db]), '--db', join(folder, 'gather.db'), ...workspace]);
  const gathered = ok(gather, 'gather');
  if (gathered.data?.state !== 'succeeded') throw new Error(`the gathered run is ${gathered.data?.state}`);
  return { totalMs: performance.now() - started, prepareMs: prepare.ms, shardsMs, gatherMs: gather.ms, output: gathered.data.output };
}

/**
 * Runs the whole workflow once (the reference output), then `reps` pairs of staged runs with 1 and with SHARDS shards,
 * alternating. Throws when a gathered output differs from the whole run's.
 */
export async function measureScaleOut({ timed, node, cli, tmpRoot, reps }) {
  const root = join(tmpRoot, 'scale-out');
  mkdirSync(root, { recursive: true });
  const file = join(root, 'workflow.yaml');
  writeFileSync(file, scaleOutWorkflow());
  const wholeFolder = join(root, 'whole');
  mkdirSync(wholeFolder);
  const whole = await timed(node, [cli, 'run', file, '--db', join(wholeFolder, 'runtime.db'), '--workspace', wholeFolder, '--output', 'json']);
  if (whole.code !== 0) throw new Error(`the whole run exited ${whole.code}: ${whole.stderr.slice(0, 600)}`);
  const reference = JSON.stringify(JSON.parse(whole.stdout).data.output);
  const samples = { one: [], many: [], gatherPerItem: [], whole: whole.ms };
  for (let rep = 0; rep < reps; rep += 1) {
    for (const shards of [1, SCALE_OUT_SHARDS]) {
      const run = await stagedRun({ timed, node, cli, folder: join(root, `r${rep}-s${shards}`), file, shards });
      if (JSON.stringify(run.output) !== reference) throw new Error(`the gathered output of ${shards} shard(s) differs from the whole run's`);
      (shards === 1 ? samples.one : samples.many).push(run);
      samples.gatherPerItem.push(run.gatherMs / SCALE_OUT_ITEMS);
    }
  }
  return samples;
}
