// Figure (l): what OpenTelemetry tracing costs. Whole CLI invocations, interleaved, each with a fresh database:
// - cold `agentctl run` of one builtin.shell.exec /bin/true task with telemetry off (no OTEL_* set): the figure a
//   start-up comparison with an earlier build uses;
// - the same one-task run and a TASKS-task run with telemetry on, exporting to a local OTLP/HTTP receiver in this
//   process (it answers 200 to every POST /v1/traces and counts the bytes), against the same runs with it off.
// The marginal per task, (t(TASKS) - t(1)) / (TASKS - 1), on minus off, is what tracing adds per effect (a task here
// is one effect); the one-task difference is what turning it on costs a run once (loading OpenTelemetry, the flush).
// `node -e 0` runs next to each one-task run with telemetry off: the start-up floor the one-task figure is a ratio to.
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TELEMETRY_TASKS = 100;

const workflow = (n) =>
  [
    'apiVersion: agentctl.dev/v1',
    'kind: Workflow',
    `metadata: {name: bench-telemetry-${n}}`,
    'spec:',
    '  policy: {processAllowlist: ["true"], approval: never}',
    '  runtime: {maxConcurrency: 1}',
    '  actions:',
    '    act: {kind: builtin.shell.exec, command: /bin/true}',
    '  tasks:',
    ...Array.from({ length: n }, (_, i) => [`    - id: t${i + 1}`, '      uses: action:act', ...(i > 0 ? [`      needs: [t${i}]`] : [])]).flat(),
  ].join('\n') + '\n';

/** A local OTLP/HTTP receiver: accepts every export, counts requests and bytes. */
async function receiver() {
  const counts = { requests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk) => (counts.bytes += chunk.length));
    request.on('end', () => {
      counts.requests += 1;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${server.address().port}`, counts, close: () => new Promise((resolve) => server.close(resolve)) };
}

export async function measureTelemetry({ timed, node, cli, tmpRoot, reps }) {
  const dir = join(tmpRoot, 'telemetry');
  mkdirSync(dir, { recursive: true });
  const one = join(dir, 'one.yaml');
  const many = join(dir, 'many.yaml');
  writeFileSync(one, workflow(1));
  writeFileSync(many, workflow(TELEMETRY_TASKS));
  const sink = await receiver();
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  const environments = { off: base, on: { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint } };
  const samples = { off1: [], offN: [], on1: [], onN: [], node: [] };
  let n = 0;
  try {
    for (let rep = -1; rep < reps; rep += 1) {
      for (const [mode, env] of Object.entries(environments)) {
        for (const [size, file] of [['1', one], ['N', many]]) {
          n += 1;
          const result = await timed(node, [cli, 'run', file, '--db', join(dir, `run-${n}.db`), '--workspace', dir, '--output', 'json'], { cwd: dir, env });
          if (result.code !== 0) throw new Error(`agentctl run (telemetry ${mode}) exited ${result.code}: ${result.stderr}`);
          if (mode === 'on' && JSON.parse(result.stdout).diagnostics.length > 0) throw new Error(`telemetry warned: ${result.stdout}`);
          if (rep >= 0) samples[`${mode}${size}`].push(result.ms); // the first round warms the page cache
          if (mode === 'off' && size === '1') {
            const floor = await timed(node, ['-e', '0'], { cwd: dir, env });
            if (rep >= 0) samples.node.push(floor.ms);
          }
        }
      }
    }
  } finally {
    await sink.close();
  }
  return { samples, exported: sink.counts };
}
