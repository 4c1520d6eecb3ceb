// The tracer provider spans go to: the embedding process's global one when it registered a real provider, else the
// pack's own, which exports over OTLP/HTTP (protobuf or JSON) and gives each run's root span the run's trace id.
import { ProxyTracerProvider, ROOT_CONTEXT, SpanKind, trace, type TracerProvider } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  RandomIdGenerator,
  TraceIdRatioBasedSampler,
  type IdGenerator,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Settings } from './settings.js';

/** Gives the next span the ids set with `use` (once), and random ids otherwise. */
export class RunIdGenerator implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #traceId: string | undefined;
  #spanId: string | undefined;

  /** The ids of the one span started next, synchronously. */
  use(traceId: string, spanId: string): void {
    this.#traceId = traceId;
    this.#spanId = spanId;
  }

  clear(): void {
    this.#traceId = this.#spanId = undefined;
  }

  generateTraceId(): string {
    const id = this.#traceId ?? this.#random.generateTraceId();
    this.#traceId = undefined;
    return id;
  }

  generateSpanId(): string {
    const id = this.#spanId ?? this.#random.generateSpanId();
    this.#spanId = undefined;
    return id;
  }
}

/** The provider's export state: the first failure since the last flush, for the one warning a run ends with. */
class WatchedExporter implements SpanExporter {
  failure: string | undefined;
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.failure ??= result.error?.message ?? 'the collector did not accept them';
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Where the spans of this process go. */
export interface SpanSink {
  readonly provider: TracerProvider;
  /** Set on the pack's own provider: gives a run's root span its ids. Absent for an embedder's provider. */
  readonly ids?: RunIdGenerator;
  /** Whether a root span of this trace id is sampled (for the flags of a remote parent). */
  sampled(traceId: string): boolean;
  /** Exports what is pending within the bound; resolves to a problem to warn about, or undefined. */
  flush(): Promise<string | undefined>;
}

/** The embedder's provider when the process registered one (not the API's no-op), else undefined. */
export function embeddedProvider(): TracerProvider | undefined {
  const global = trace.getTracerProvider();
  const noop = new ProxyTracerProvider().getDelegate();
  const delegate = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  return delegate === noop || delegate.constructor?.name === 'NoopTracerProvider' ? undefined : global;
}

export function embeddedSink(provider: TracerProvider): SpanSink {
  return { provider, sampled: () => true, flush: async () => undefined };
}

export async function ownSink(settings: Settings, hostVersion: string): Promise<SpanSink> {
  const ids = new RunIdGenerator();
  const root = rootSampler(settings);
  const sampler = settings.sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
  const options = { url: settings.endpoint, headers: { ...settings.headers }, timeoutMillis: settings.flushTimeoutMs };
  const exporter = new WatchedExporter(
    settings.protocol === 'http/json'
      ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options)
      : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options),
  );
  const processor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000, exportTimeoutMillis: settings.flushTimeoutMs, maxExportBatchSize: 512, maxQueueSize: 4_096 });
  const resource = resourceFromAttributes({ ...settings.resourceAttributes, [ATTR_SERVICE_NAME]: settings.serviceName, 'service.version': hostVersion, 'telemetry.distro.name': '@agentctl/pack-otel' });
  const provider = new BasicTracerProvider({ resource, sampler, idGenerator: ids, spanProcessors: [processor], forceFlushTimeoutMillis: settings.flushTimeoutMs });
  return {
    provider,
    ids,
    sampled: (traceId) => root.shouldSample(ROOT_CONTEXT, traceId, 'run', SpanKind.INTERNAL, {}, []).decision !== 0,
    async flush() {
      const bound = settings.flushTimeoutMs;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), bound)));
      try {
        const flushed = await Promise.race([provider.forceFlush().then(() => 'done' as const, (error: unknown) => ((exporter.failure ??= String((error as Error)?.message ?? error)), 'done' as const)), late]);
        if (flushed === 'late') return `spans were not exported to ${settings.endpoint} within ${bound} ms`;
        const failure = exporter.failure;
        exporter.failure = undefined;
        return failure === undefined ? undefined : `spans were not exported to ${settings.endpoint}: ${failure}`;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function rootSampler(settings: Settings): Sampler {
  switch (settings.sampler) {
    case 'always_off':
    case 'parentbased_always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
    case 'parentbased_traceidratio':
      return new TraceIdRatioBasedSampler(settings.ratio);
    default:
      return new AlwaysOnSampler();
  }
}
