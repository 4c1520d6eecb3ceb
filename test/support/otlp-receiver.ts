// A real OTLP/HTTP trace receiver on 127.0.0.1 for tests: it accepts `POST /v1/traces` as application/x-protobuf
// (decoded with protobufjs from a schema of the OTLP trace messages, written below by field number) or
// application/json, keeps every raw body (to scan every exported byte), and flattens the spans. It can also hang
// (accept the connection and never answer), like a collector that is stuck.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback.js';
import protobuf from 'protobufjs';

/** The OTLP trace messages (opentelemetry/proto trace/v1, common/v1, resource/v1, collector/trace/v1), by field number. */
const OTLP_TRACE_SCHEMA = {
  nested: {
    otlp: {
      nested: {
        ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
        ResourceSpans: { fields: { resource: { type: 'Resource', id: 1 }, scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 }, schemaUrl: { type: 'string', id: 3 } } },
        Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 }, droppedAttributesCount: { type: 'uint32', id: 2 } } },
        ScopeSpans: { fields: { scope: { type: 'InstrumentationScope', id: 1 }, spans: { rule: 'repeated', type: 'Span', id: 2 }, schemaUrl: { type: 'string', id: 3 } } },
        InstrumentationScope: { fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 }, attributes: { rule: 'repeated', type: 'KeyValue', id: 3 } } },
        Span: {
          fields: {
            traceId: { type: 'bytes', id: 1 },
            spanId: { type: 'bytes', id: 2 },
            traceState: { type: 'string', id: 3 },
            parentSpanId: { type: 'bytes', id: 4 },
            name: { type: 'string', id: 5 },
            kind: { type: 'int32', id: 6 },
            startTimeUnixNano: { type: 'fixed64', id: 7 },
            endTimeUnixNano: { type: 'fixed64', id: 8 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
            droppedAttributesCount: { type: 'uint32', id: 10 },
            events: { rule: 'repeated', type: 'Event', id: 11 },
            droppedEventsCount: { type: 'uint32', id: 12 },
            links: { rule: 'repeated', type: 'Link', id: 13 },
            droppedLinksCount: { type: 'uint32', id: 14 },
            status: { type: 'Status', id: 15 },
            flags: { type: 'fixed32', id: 16 },
          },
        },
        Event: { fields: { timeUnixNano: { type: 'fixed64', id: 1 }, name: { type: 'string', id: 2 }, attributes: { rule: 'repeated', type: 'KeyValue', id: 3 }, droppedAttributesCount: { type: 'uint32', id: 4 } } },
        Link: { fields: { traceId: { type: 'bytes', id: 1 }, spanId: { type: 'bytes', id: 2 }, traceState: { type: 'string', id: 3 }, attributes: { rule: 'repeated', type: 'KeyValue', id: 4 }, droppedAttributesCount: { type: 'uint32', id: 5 }, flags: { type: 'fixed32', id: 6 } } },
        Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
        KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
        AnyValue: {
          oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
          fields: {
            stringValue: { type: 'string', id: 1 },
            boolValue: { type: 'bool', id: 2 },
            intValue: { type: 'int64', id: 3 },
            doubleValue: { type: 'double', id: 4 },
            arrayValue: { type: 'ArrayValue', id: 5 },
            kvlistValue: { type: 'KeyValueList', id: 6 },
            bytesValue: { type: 'bytes', id: 7 },
          },
        },
        ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
        KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
      },
    },
  },
};

const ExportRequest = protobuf.Root.fromJSON(OTLP_TRACE_SCHEMA).lookupType('otlp.ExportTraceServiceRequest');

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

/** One received span, flattened: ids as lower-case hex, attributes as a plain object. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Record<string, AttributeValue>;
  readonly events: { readonly name: string; readonly attributes: Record<string, AttributeValue> }[];
  readonly links: { readonly traceId: string; readonly spanId: string; readonly attributes: Record<string, AttributeValue> }[];
  readonly status: { readonly code: number; readonly message: string };
  readonly resource: Record<string, AttributeValue>;
  readonly scope: string;
}

export interface ReceivedBody {
  readonly contentType: string;
  readonly headers: IncomingMessage['headers'];
  readonly bytes: Buffer;
}

export interface OtlpReceiver {
  /** The base endpoint, `http://127.0.0.1:PORT` (OTEL_EXPORTER_OTLP_ENDPOINT). */
  readonly endpoint: string;
  readonly bodies: ReceivedBody[];
  readonly spans: ReceivedSpan[];
  /** Resolves once a span matches, or rejects after `timeoutMs`. */
  waitFor(match: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

/** Starts a receiver; with `hang`, it reads each request and never answers it. */
export async function startOtlpReceiver(options: { readonly hang?: boolean } = {}): Promise<OtlpReceiver> {
  const bodies: ReceivedBody[] = [];
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const contentType = String(request.headers['content-type'] ?? '');
      bodies.push({ contentType, headers: request.headers, bytes });
      if (options.hang) return;
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      try {
        spans.push(...decode(contentType, bytes));
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
        return;
      }
      for (const wake of waiters) wake();
      response.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' }).end(contentType.includes('json') ? '{}' : Buffer.alloc(0));
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    spans,
    waitFor(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = spans.find(match);
          if (!found) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching span within ${timeoutMs} ms; received: ${spans.map((span) => span.name).join(', ')}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close,
  };
}

function decode(contentType: string, bytes: Buffer): ReceivedSpan[] {
  if (contentType.startsWith('application/x-protobuf')) {
    const message = ExportRequest.toObject(ExportRequest.decode(bytes), { longs: String, bytes: Buffer, defaults: false, oneofs: true });
    return flatten(message, (id: Buffer) => id.toString('hex'));
  }
  if (contentType.startsWith('application/json')) return flatten(JSON.parse(bytes.toString('utf8')), (id: string) => (id ? Buffer.from(id, 'hex').toString('hex') : ''));
  throw new Error(`unexpected content-type ${contentType}`);
}

/** OTLP/JSON and the decoded protobuf share field names (camelCase); ids are hex in JSON, bytes in protobuf. */
function flatten(request: any, hex: (id: any) => string): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        out.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: span.parentSpanId ? hex(span.parentSpanId) : '',
          name: span.name,
          kind: Number(span.kind ?? 0),
          startNs: BigInt(span.startTimeUnixNano ?? 0),
          endNs: BigInt(span.endTimeUnixNano ?? 0),
          attributes: attributes(span.attributes),
          events: (span.events ?? []).map((event: any) => ({ name: event.name, attributes: attributes(event.attributes) })),
          links: (span.links ?? []).map((link: any) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId), attributes: attributes(link.attributes) })),
          status: { code: Number(span.status?.code ?? 0), message: span.status?.message ?? '' },
          resource,
          scope: scopeSpans.scope?.name ?? '',
        });
      }
    }
  }
  return out;
}

function attributes(list: any[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((item) => [item.key, anyValue(item.value)]));
}

function anyValue(value: any): AttributeValue {
  if (!value) return null;
  // The decoded protobuf names the set member of the oneof in `value`; OTLP/JSON has only the set member.
  const key: string | undefined = typeof value.value === 'string' ? value.value : Object.keys(value).find((name) => name.endsWith('Value'));
  if (key === undefined) return null;
  const member = value[key];
  if (key === 'arrayValue') return (member.values ?? []).map(anyValue);
  if (key === 'intValue') return Number(member);
  return member;
}
