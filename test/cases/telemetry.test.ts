// The OpenTelemetry pack through the real CLI, exporting to a real OTLP/HTTP receiver on loopback: the span tree of
// a run (run → task attempt → effect), its attributes, status and events, trace context in a child process's
// environment, protobuf and JSON encodings, a resumed run in the same trace, and a retry's and a replay's link to its source.
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCliAsync, workspace } from '../support/cli.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { outcome, rows, workflow } from './helpers.js';
import { PRINT_TRACEPARENT, rootSpanId } from './telemetry-case.js';

describe('telemetry: the OpenTelemetry pack', function () {
  this.timeout(120_000);
  let receiver: OtlpReceiver;
  let ws: ReturnType<typeof workspace>;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    ws = workspace();
  });
  afterEach(async () => {
    await receiver.close();
    ws.cleanup();
  });

  const env = (extra: NodeJS.ProcessEnv = {}) => baseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...extra });
  const run = (file: string, extra: NodeJS.ProcessEnv = {}, args: string[] = []) => runCliAsync(['run', ws.file(file), '--db', ws.db, '--output', 'json', ...args], { env: env(extra) });
  const spansOf = (traceId: string) => receiver.spans.filter((span) => span.traceId === traceId);
  const byName = (spans: ReceivedSpan[], name: string) => {
    const found = spans.filter((span) => span.name === name);
    expect(found, `span ${name} in ${spans.map((span) => span.name).join(', ')}`).to.have.length(1);
    return found[0]!;
  };

  for (const protocol of ['http/protobuf', 'http/json']) {
    it(`a run exports run → task → effect spans in the run's trace (${protocol}); the child process's TRACEPARENT names its effect span`, async () => {
      ws.write('wf.yaml', PRINT_TRACEPARENT);
      const document = outcome(await run('wf.yaml', { OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_SERVICE_NAME: 'ci-pipeline', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,team=platform' }), 0);
      const { runId, traceId } = document.data;
      const root = await receiver.waitFor((span) => span.traceId === traceId && span.parentSpanId === '');
      expect(receiver.bodies.every((body) => body.contentType.startsWith(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf'))).to.equal(true);
      const spans = spansOf(traceId);
      expect(spans.map((span) => span.name).sort()).to.deep.equal(['process.exec', 'run test', 'task print']);
      expect(root).to.include({ name: 'run test', spanId: rootSpanId(runId) });
      expect(root.attributes).to.include({ 'agentctl.run.id': runId, 'agentctl.run.state': 'succeeded', 'agentctl.workflow.name': 'test', 'agentctl.run.resumed': false });
      expect(root.resource).to.include({ 'service.name': 'ci-pipeline', 'deployment.environment': 'test', team: 'platform' });
      const task = byName(spans, 'task print');
      expect(task.parentSpanId).to.equal(root.spanId);
      expect(task.attributes).to.include({ 'agentctl.task.id': 'print', 'agentctl.task.attempt': 1, 'agentctl.task.state': 'succeeded' });
      const effect = byName(spans, 'process.exec');
      expect(effect.parentSpanId).to.equal(task.spanId);
      const [recorded] = rows(ws.db, 'SELECT id, result_json FROM effects');
      expect(effect.attributes).to.include({
        'agentctl.effect.id': recorded.id,
        'agentctl.effect.operation': 'process.exec',
        'agentctl.effect.class': 'process_execution',
        'agentctl.effect.risk': 'high',
        'agentctl.effect.idempotency': 'unknown',
        'agentctl.effect.outcome': 'succeeded',
        'agentctl.effect.disposition': 'applied',
        'agentctl.action.kind': 'builtin.shell.exec',
      });
      expect(JSON.parse(recorded.result_json).stdout).to.equal(`00-${traceId}-${effect.spanId}-01\n`);
      expect(effect.startNs >= task.startNs && effect.endNs <= task.endNs && task.endNs <= root.endNs).to.equal(true);
    });
  }

  it('plan names TRACEPARENT when telemetry is on, and not when it is off', async () => {
    ws.write('wf.yaml', PRINT_TRACEPARENT);
    const on = outcome(await runCliAsync(['plan', ws.file('wf.yaml'), '--output', 'json'], { env: env() }), 0);
    expect(on.data.processes[0].propagatedEnvironment).to.deep.equal([
      { name: 'TRACEPARENT', plugin: '@agentctl/pack-otel' },
      { name: 'TRACESTATE', plugin: '@agentctl/pack-otel' },
    ]);
    const off = outcome(await runCliAsync(['plan', ws.file('wf.yaml'), '--output', 'json'], { env: baseEnv() }), 0);
    expect(off.data.processes[0].propagatedEnvironment ?? null).to.equal(null);
  });

  it('a failed task (exit 4) sets the error status and the stable code on the effect, task and run spans', async () => {
    ws.write('wf.yaml', workflow({ policy: { approval: 'never', processAllowlist: ['sh'] }, actions: { fail: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'exit 3'] } }, tasks: [{ id: 'fail', uses: 'action:fail' }] }));
    const result = await run('wf.yaml');
    expect(result.status, result.stderr).to.equal(4);
    const { traceId } = JSON.parse(result.stderr).error;
    const root = await receiver.waitFor((span) => span.traceId === traceId && span.parentSpanId === '');
    const spans = spansOf(traceId);
    expect(root.attributes).to.include({ 'agentctl.run.state': 'failed', 'error.type': 'AGENTCTL_E_RUN_FAILED' });
    expect(root.status.code).to.equal(2);
    const task = byName(spans, 'task fail');
    expect(task.status).to.deep.equal({ code: 2, message: 'sh exited with status 3' });
    expect(task.attributes).to.include({ 'agentctl.task.state': 'failed', 'error.type': 'AGENTCTL_E_PROCESS_EXIT', 'agentctl.error.code': 'AGENTCTL_E_PROCESS_EXIT' });
    const effect = byName(spans, 'process.exec');
    expect(effect.attributes).to.include({ 'agentctl.effect.outcome': 'failed', 'agentctl.effect.disposition': 'not_applied', 'error.type': 'AGENTCTL_E_PROCESS_EXIT' });
    expect(result.stderr).to.not.contain('telemetry:');
  });

  it('a task that records no effect (an assert) and a skipped task each get a span under the run, with their state', async () => {
    ws.write('wf.yaml', workflow({ vars: { go: false }, actions: { check: { kind: 'builtin.assert' } }, tasks: [{ id: 'check', uses: 'action:check', with: { that: true } }, { id: 'never', uses: 'action:check', when: '${{ vars.go }}', with: { that: true } }] }));
    const ran = outcome(await run('wf.yaml'), 0);
    const root = await receiver.waitFor((span) => span.traceId === ran.data.traceId && span.parentSpanId === '');
    for (const [name, state] of [['task check', 'succeeded'], ['task never', 'skipped']] as const) {
      const task = byName(spansOf(ran.data.traceId), name);
      expect(task.parentSpanId).to.equal(root.spanId);
      expect(task.attributes['agentctl.task.state']).to.equal(state);
      expect(task.startNs <= task.endNs && task.startNs >= root.startNs && task.endNs <= root.endNs, 'inside the run span').to.equal(true);
    }
  });

  it('a paused run (exit 3) records the approval and the pause as events; the resumed process continues the same trace', async () => {
    ws.write('wf.yaml', workflow({ policy: { processAllowlist: ['printenv'], environmentAllowlist: ['TRACEPARENT'] }, actions: { print: { kind: 'builtin.shell.exec', command: 'printenv', args: ['TRACEPARENT'] } }, tasks: [{ id: 'print', uses: 'action:print' }] }));
    const paused = outcome(await run('wf.yaml'), 3);
    const { runId, traceId } = paused.data;
    const root = await receiver.waitFor((span) => span.traceId === traceId && span.parentSpanId === '');
    expect(root.attributes).to.include({ 'agentctl.run.state': 'paused' });
    expect(root.events.map((event) => event.name)).to.deep.equal(['run.paused']);
    expect(root.events[0]!.attributes).to.deep.equal({ 'agentctl.pause.code': 'AGENTCTL_E_APPROVAL_PENDING' });
    const task = byName(spansOf(traceId), 'task print');
    expect(task.events.map((event) => event.name)).to.deep.equal(['approval.requested', 'task.paused']);
    expect(task.attributes['agentctl.task.state']).to.equal('waiting_for_approval');

    const [{ id: approvalId }] = rows(ws.db, 'SELECT id FROM approvals');
    outcome(await runCliAsync(['approvals', 'approve', approvalId, '--reason', 'checked', '--db', ws.db, '--output', 'json'], { env: baseEnv() }), 0);
    outcome(await runCliAsync(['resume', runId, '--db', ws.db, '--output', 'json'], { env: env() }), 0);
    const resumed = await receiver.waitFor((span) => span.traceId === traceId && span.attributes['agentctl.run.resumed'] === true);
    expect(resumed.parentSpanId).to.equal(root.spanId);
    expect(resumed.attributes['agentctl.run.state']).to.equal('succeeded');
    const effect = await receiver.waitFor((span) => span.traceId === traceId && span.name === 'process.exec');
    const attempt = spansOf(traceId).find((span) => span.spanId === effect.parentSpanId)!;
    expect(attempt.parentSpanId).to.equal(resumed.spanId);
  });

  it('a retry links its run span to the source run\'s root span', async () => {
    ws.write('wf.yaml', workflow({ policy: { approval: 'never', processAllowlist: ['sh'] }, actions: { flaky: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'test -f ok'] } }, tasks: [{ id: 'flaky', uses: 'action:flaky' }] }));
    const failed = await run('wf.yaml');
    expect(failed.status, failed.stderr).to.equal(4);
    const source = JSON.parse(failed.stderr).error;
    ws.write('ok', '');
    const retried = outcome(await runCliAsync(['retry', ws.file('wf.yaml'), source.runId, '--failed', '--db', ws.db, '--output', 'json'], { env: env(), cwd: ws.dir }), 0);
    const root = await receiver.waitFor((span) => span.traceId === retried.data.traceId && span.parentSpanId === '');
    expect(root.attributes).to.include({ 'agentctl.run.derivation': 'retry', 'agentctl.run.source_id': source.runId });
    expect(root.links).to.deep.equal([{ traceId: source.traceId, spanId: rootSpanId(source.runId), attributes: { 'agentctl.link': 'retry_of' } }]);
  });

  it('a replay is a run span in its own trace, with the source\'s end state, a link to the source run\'s root span, and its recorded tasks', async () => {
    ws.write('wf.yaml', PRINT_TRACEPARENT);
    const source = outcome(await run('wf.yaml'), 0);
    const replayed = outcome(await runCliAsync(['replay', source.data.runId, '--db', ws.db, '--output', 'json'], { env: env() }), 0);
    const root = await receiver.waitFor((span) => span.traceId === replayed.data.traceId && span.parentSpanId === '');
    expect(root.spanId).to.equal(rootSpanId(replayed.data.runId));
    expect(root.attributes).to.include({ 'agentctl.run.derivation': 'replay', 'agentctl.run.source_id': source.data.runId, 'agentctl.run.state': 'succeeded' });
    expect(root.links).to.deep.equal([{ traceId: source.data.traceId, spanId: rootSpanId(source.data.runId), attributes: { 'agentctl.link': 'replay_of' } }]);
    // Its tasks were not run again: each is a span of the recorded task, under the run span.
    const task = byName(spansOf(replayed.data.traceId), 'task print');
    expect(task.parentSpanId).to.equal(root.spanId);
    expect(task.attributes).to.include({ 'agentctl.task.state': 'succeeded', 'agentctl.task.disposition': 'recorded' });
    expect(spansOf(replayed.data.traceId)).to.have.length(2);
  });

  it('OTEL_SDK_DISABLED=true turns it off whatever the endpoint says; plugins list shows the pack', async () => {
    ws.write('wf.yaml', PRINT_TRACEPARENT);
    // printenv exits 1 when the variable is not set: nothing propagated it.
    const result = await run('wf.yaml', { OTEL_SDK_DISABLED: 'true' });
    expect(result.status).to.equal(4);
    expect(JSON.parse(result.stderr).diagnostics[0].message).to.equal('printenv exited with status 1');
    expect(receiver.bodies).to.deep.equal([]);
    const plugins = outcome(await runCliAsync(['plugins', 'list', '--output', 'json'], { env: baseEnv() }), 0);
    expect(plugins.data.plugins.find((plugin: any) => plugin.name === '@agentctl/pack-otel')).to.include({ source: 'builtin', version: '0.1.0' });
    expect(existsSync(ws.db)).to.equal(true);
  });
});
