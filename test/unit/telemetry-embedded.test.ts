// The OpenTelemetry pack inside a process that registered its own tracer provider (an embedder): the pack sends its
// spans there, with no endpoint configured, makes each run span a child of a remote parent that carries the run's
// trace id, propagates the effect span, and never shuts the embedder's provider down. Off again once it is gone.
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { runAction } from '../../core/testing/index.js';
import { rootSpanId } from '../cases/telemetry-case.js';

const PRINT = {
  action: { command: 'printenv', args: ['TRACEPARENT'] },
  policy: { processAllowlist: ['printenv'], environmentAllowlist: ['TRACEPARENT'] },
};

describe('telemetry: an embedder\'s tracer provider', function () {
  this.timeout(60_000);
  let exporter: InMemorySpanExporter;
  let provider: BasicTracerProvider;
  let shutdowns = 0;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const shutdown = provider.shutdown.bind(provider);
    shutdowns = 0;
    provider.shutdown = () => ((shutdowns += 1), shutdown());
    expect(trace.setGlobalTracerProvider(provider)).to.equal(true);
  });
  afterEach(async () => {
    trace.disable();
    await provider.shutdown();
  });

  it('spans go to the embedder\'s provider, in the run\'s trace, under a remote parent named after the run', async () => {
    const result = await runAction('builtin.shell.exec', PRINT);
    expect(result.state).to.equal('succeeded');
    const { runId, traceId } = result.inspection!.run as { runId: string; traceId: string };
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name).sort()).to.deep.equal(['process.exec', 'run kit', 'task subject']);
    const byName = (name: string) => spans.find((span) => span.name === name)!;
    const run = byName('run kit');
    expect(run.spanContext().traceId).to.equal(traceId);
    expect(run.parentSpanContext?.spanId).to.equal(rootSpanId(runId));
    expect(run.parentSpanContext?.isRemote).to.equal(true);
    expect(run.attributes).to.include({ 'agentctl.run.id': runId, 'agentctl.run.state': 'succeeded' });
    const task = byName('task subject');
    expect(task.parentSpanContext?.spanId).to.equal(run.spanContext().spanId);
    const effect = byName('process.exec');
    expect(effect.parentSpanContext?.spanId).to.equal(task.spanContext().spanId);
    expect(result.output).to.include({ stdout: `00-${traceId}-${effect.spanContext().spanId}-01\n` });
    expect(shutdowns).to.equal(0);
  });

  it('without a registered provider and without an endpoint the pack registers nothing: no TRACEPARENT', async () => {
    trace.disable();
    const result = await runAction('builtin.shell.exec', PRINT);
    expect(result.state).to.equal('failed');
    expect(exporter.getFinishedSpans()).to.deep.equal([]);
  });
});
