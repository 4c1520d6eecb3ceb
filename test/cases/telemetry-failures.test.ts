// The OpenTelemetry pack when things go wrong, through the real CLI: spans are flushed on SIGTERM (exit 130); a dead
// collector (closed port) or a stuck one (never answers) costs at most the flush bound and one warning, never the
// run's outcome; a malformed setting is refused with a stable code and exit 2 before any run state exists.
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCliAsync, startCli, workspace } from '../support/cli.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { diagnosticWithCode, errorDocument, finished, liveProcessesWith, outcome, rows, uniqueSleep, waitFor, workflow } from './helpers.js';
import { PRINT_TRACEPARENT } from './telemetry-case.js';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('telemetry: failures', function () {
  this.timeout(120_000);
  let receiver: OtlpReceiver | undefined;
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => (ws = workspace()));
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
    ws.cleanup();
  });

  it('SIGTERM during a long task: exit 130, and the run span (state cancelled) reaches the collector', async () => {
    receiver = await startOtlpReceiver();
    const duration = uniqueSleep(300);
    ws.write('wf.yaml', workflow({ policy: { processAllowlist: ['sleep'], approval: 'never' }, actions: { wait: { kind: 'builtin.shell.exec', command: 'sleep', args: [duration], timeoutSeconds: 600 } }, tasks: [{ id: 'wait', uses: 'action:wait' }] }));
    const child = startCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }) });
    const done = finished(child);
    await waitFor('the sleep to run', () => liveProcessesWith(duration).length >= 1);
    child.kill('SIGTERM');
    const result = await done;
    expect(result.status, result.stderr).to.equal(130);
    const [{ trace_id: traceId }] = rows(ws.db, 'SELECT trace_id FROM runs');
    // Flushed before the process exited: the spans are already at the collector.
    const root = receiver.spans.find((span) => span.traceId === traceId && span.parentSpanId === '');
    expect(root?.attributes).to.include({ 'agentctl.run.state': 'cancelled' });
    const effect = receiver.spans.find((span) => span.traceId === traceId && span.name === 'process.exec');
    expect(effect?.attributes).to.include({ 'agentctl.effect.outcome': 'uncertain', 'agentctl.effect.disposition': 'in_doubt', 'error.type': 'AGENTCTL_E_CANCELLED' });
  });

  it('a dead collector (closed port): the run succeeds, with one warning on stderr, within the flush bound', async () => {
    ws.write('wf.yaml', PRINT_TRACEPARENT);
    const started = Date.now();
    const result = await runCliAsync(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}`, OTEL_EXPORTER_OTLP_TIMEOUT: '1500' }) });
    const elapsed = Date.now() - started;
    expect(outcome(result, 0).data.state).to.equal('succeeded');
    const document = JSON.parse(result.stdout);
    const warnings = document.diagnostics.filter((item: any) => item.message.includes('telemetry:'));
    expect(warnings, JSON.stringify(document.diagnostics)).to.have.length(1);
    expect(warnings[0]).to.include({ severity: 'warning', code: 'AGENTCTL_E_PLUGIN_FAILED' });
    expect(warnings[0].message).to.match(/spans were not exported to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
    expect(elapsed).to.be.below(8_000);
  });

  it('a stuck collector (never answers): the run succeeds; the flush gives up at its bound with one warning', async () => {
    receiver = await startOtlpReceiver({ hang: true });
    ws.write('wf.yaml', PRINT_TRACEPARENT);
    const started = Date.now();
    const result = await runCliAsync(['run', ws.file('wf.yaml'), '--db', ws.db], { env: baseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '1000' }) });
    const elapsed = Date.now() - started;
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('succeeded');
    expect(result.stderr.match(/telemetry: spans were not exported/g), result.stderr).to.have.length(1);
    expect(receiver.bodies.length).to.be.greaterThan(0);
    // The bound is 1 s: the flush, and the export request it waits for, both end by then (plus start-up and the run).
    expect(elapsed).to.be.below(7_000);
  });

  const refused = [
    { name: 'an endpoint that is not a URL', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, code: 'AGENTCTL_PACK_OTEL_E_ENDPOINT' },
    { name: 'a traces endpoint with another scheme', env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector:21/v1/traces' }, code: 'AGENTCTL_PACK_OTEL_E_ENDPOINT' },
    { name: 'a header list entry without =', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_HEADERS: 'authorization' }, code: 'AGENTCTL_PACK_OTEL_E_HEADERS' },
    { name: 'grpc', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, code: 'AGENTCTL_PACK_OTEL_E_PROTOCOL' },
    { name: 'an unknown traces protocol', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' }, code: 'AGENTCTL_PACK_OTEL_E_PROTOCOL' },
    { name: 'an unknown sampler', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER: 'sometimes' }, code: 'AGENTCTL_PACK_OTEL_E_SAMPLER' },
    { name: 'a ratio out of range', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, code: 'AGENTCTL_PACK_OTEL_E_SAMPLER' },
    { name: 'a resource attribute list entry without a key', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_RESOURCE_ATTRIBUTES: '=x' }, code: 'AGENTCTL_PACK_OTEL_E_RESOURCE' },
    { name: 'a timeout that is not a number', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }, code: 'AGENTCTL_PACK_OTEL_E_TIMEOUT' },
  ];
  for (const { name, env, code } of refused) {
    it(`refuses ${name}: ${code}, exit 2, no database`, async () => {
      ws.write('wf.yaml', PRINT_TRACEPARENT);
      const result = await runCliAsync(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { env: baseEnv(env) });
      const error = errorDocument(result, 2);
      expect(diagnosticWithCode(error, code).help).to.be.a('string').and.not.equal('');
      expect(existsSync(ws.db)).to.equal(false);
    });
  }

  it('the config\'s telemetry section turns it on; a mistyped field is AGENTCTL_E_CONFIG_INVALID naming it; env wins over config', async () => {
    receiver = await startOtlpReceiver();
    ws.write('wf.yaml', PRINT_TRACEPARENT);
    ws.write('agentctl.config.json', JSON.stringify({ telemetry: { endpoint: receiver.endpoint, serviceName: 'from-config', protocol: 'http/json', resourceAttributes: { team: 'config' } } }));
    const document = outcome(await runCliAsync(['run', 'wf.yaml', '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv({ OTEL_SERVICE_NAME: 'from-env' }) }), 0);
    const root = await receiver.waitFor((span) => span.traceId === document.data.traceId && span.parentSpanId === '');
    expect(root.resource).to.include({ 'service.name': 'from-env', team: 'config' });
    expect(receiver.bodies[0]!.contentType).to.match(/^application\/json/);

    ws.write('agentctl.config.json', JSON.stringify({ telemetry: { endpoint: receiver.endpoint, flushTimeout: 100 } }));
    const error = errorDocument(await runCliAsync(['run', 'wf.yaml', '--db', `${ws.db}.2`, '--output', 'json'], { cwd: ws.dir, env: baseEnv() }), 2);
    expect(diagnosticWithCode(error, 'AGENTCTL_E_CONFIG_INVALID').message).to.contain('telemetry.flushTimeout: unknown field "flushTimeout"');
    expect(existsSync(`${ws.db}.2`)).to.equal(false);
  });
});
