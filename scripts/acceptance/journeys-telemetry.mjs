// Journey 12: the image traces a run. The OpenTelemetry pack's exporters are loaded only when telemetry is on, so
// this is the one place that proves they are in the pruned image and work there: the mock-tool agent run, exported
// over OTLP/HTTP as JSON and as protobuf to a receiver on the host's loopback (the container shares the host's
// network for it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const RUN = ['run', '/config/workflow.yaml', '--workspace', '/workspace', '--db', '/state/runtime.db'];

// The receiver runs in a process of its own: the gate's own process runs both engines' steps, and a step that
// blocks its event loop for seconds (an image check reading the image's files) would stall an in-process receiver
// past the exporter's flush bound.
const RECEIVER = `
const { createServer } = require('node:http');
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const type = String(request.headers['content-type'] ?? '');
    process.stdout.write(JSON.stringify({ url: request.url, type, bytes: Buffer.concat(chunks).toString('base64') }) + '\\n');
    const json = type.includes('json');
    response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
`;

/** An OTLP/HTTP receiver on 127.0.0.1 that keeps every request body and answers each with success. */
async function receiver() {
  const bodies = [];
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the OTLP receiver exited ${code} before listening`)));
    lines.on('line', (line) => {
      const message = JSON.parse(line);
      if (message.port !== undefined) resolve(message.port);
      else bodies.push({ url: message.url, type: message.type, bytes: Buffer.from(message.bytes, 'base64') });
    });
  });
  return {
    bodies,
    endpoint: `http://127.0.0.1:${port}`,
    close: () => {
      child.removeAllListeners('exit');
      child.kill();
    },
  };
}

/** The spans of the JSON bodies received, flattened. */
const jsonSpans = (bodies) =>
  bodies
    .filter((body) => body.type.includes('json'))
    .flatMap((body) => JSON.parse(body.bytes.toString('utf8')).resourceSpans ?? [])
    .flatMap((resource) => resource.scopeSpans ?? [])
    .flatMap((scope) => scope.spans ?? []);

export const telemetry = {
  title: 'telemetry on: the run is exported over OTLP/HTTP (JSON and protobuf) under its trace id, with its model turns and tool call',
  async run(t) {
    const collector = await receiver();
    try {
      for (const protocol of ['http/json', 'http/protobuf']) {
        const m = t.mounts('mock-tool');
        const env = [`OTEL_EXPORTER_OTLP_ENDPOINT=${collector.endpoint}`, `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}`];
        const run = await t.cli(m, RUN, { kind: 'RunOutcome', network: 'host', env });
        assert.equal(run.data.state, 'succeeded');
        const traceBytes = Buffer.from(run.data.traceId, 'hex');
        const bodies = collector.bodies.filter((body) => body.url === '/v1/traces' && (body.bytes.includes(run.data.traceId) || body.bytes.includes(traceBytes)));
        assert.ok(bodies.length > 0, `no ${protocol} export names trace ${run.data.traceId} (${collector.bodies.length} requests received; diagnostics: ${JSON.stringify(run.diagnostics)})`);
        if (protocol === 'http/json') {
          const names = jsonSpans(bodies).filter((span) => span.traceId === run.data.traceId).map((span) => span.name);
          for (const name of ['run container-mock-tool', 'task inspect', 'chat scripted', 'execute_tool read_service', 'filesystem.write']) assert.ok(names.includes(name), `span ${name} in ${names.join(', ')}`);
        } else {
          assert.ok(bodies.every((body) => body.type.startsWith('application/x-protobuf')), bodies.map((body) => body.type).join(', '));
        }
      }
    } finally {
      collector.close();
    }
  },
};
