// The pack's settings: the project config's `telemetry` section and the standard OTEL_* environment variables, the
// environment winning where both set a value (as OpenTelemetry's own SDKs do). Light on purpose: nothing of
// OpenTelemetry is imported here, so a run with telemetry off parses none of it.
import { AgentctlError, z } from '@agentctl/sdk';

export const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/** The longest flush the pack waits for: under the 5 s a commit observer may take over one event. */
export const MAX_FLUSH_TIMEOUT_MS = 4_500;
export const DEFAULT_FLUSH_TIMEOUT_MS = 3_000;
const DEFAULT_BASE_ENDPOINT = 'http://localhost:4318';

/** The `telemetry` section of the project config (`agentctl.config.*`). */
export const telemetryOptionsSchema = z
  .strictObject({
    enabled: z.boolean().optional(),
    endpoint: z.string().min(1).optional(),
    protocol: z.string().min(1).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    serviceName: z.string().min(1).optional(),
    resourceAttributes: z.record(z.string(), z.string()).optional(),
    sampler: z.string().min(1).optional(),
    samplerArg: z.union([z.string(), z.number()]).optional(),
    flushTimeoutMs: z.number().int().min(1).max(MAX_FLUSH_TIMEOUT_MS).optional(),
  })
  .optional();

export type TelemetryOptions = NonNullable<z.infer<typeof telemetryOptionsSchema>>;

/** Where spans go and how they are sampled: the result of reading the config and the environment. */
export interface Settings {
  /** The full URL spans are posted to (`…/v1/traces`). */
  readonly endpoint: string;
  readonly protocol: Protocol;
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: SamplerName;
  /** The ratio of the `*traceidratio` samplers, 0 to 1. */
  readonly ratio: number;
  readonly flushTimeoutMs: number;
}

/** The pack's own error codes (all exit 2: a setting to fix before any run starts). */
export const ERROR_CODES = {
  AGENTCTL_PACK_OTEL_E_ENDPOINT: { exitCode: 2, description: 'The OTLP endpoint is not an http(s) URL.' },
  AGENTCTL_PACK_OTEL_E_HEADERS: { exitCode: 2, description: 'The OTLP headers are not a list of key=value pairs.' },
  AGENTCTL_PACK_OTEL_E_PROTOCOL: { exitCode: 2, description: 'The OTLP protocol is not http/protobuf or http/json (there is no gRPC exporter).' },
  AGENTCTL_PACK_OTEL_E_SAMPLER: { exitCode: 2, description: 'The trace sampler or its argument is not one OpenTelemetry defines.' },
  AGENTCTL_PACK_OTEL_E_RESOURCE: { exitCode: 2, description: 'The resource attributes are not a list of key=value pairs.' },
  AGENTCTL_PACK_OTEL_E_TIMEOUT: { exitCode: 2, description: 'The OTLP export timeout is not a whole number of milliseconds.' },
} as const;

type Code = keyof typeof ERROR_CODES;
type Env = Readonly<Record<string, string | undefined>>;

function refuse(code: Code, source: string, problem: string, help: string): never {
  throw new AgentctlError(code, `telemetry: ${source} ${problem}`, { diagnostics: [{ code, severity: 'error', message: `${source} ${problem}`, help }] });
}

/** A non-empty, trimmed environment value, or undefined. */
const envValue = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value ? value : undefined;
};

/** Whether telemetry is on, and with what settings; undefined when off. Throws on a malformed setting. */
export function readSettings(env: Env, options: TelemetryOptions | undefined): Settings | undefined {
  if (envValue(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const config = options ?? {};
  const tracesEndpoint = envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = envValue(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const fromEnv = tracesEndpoint !== undefined || baseEndpoint !== undefined;
  const fromConfig = config.enabled === true || (config.enabled === undefined && config.endpoint !== undefined);
  if (!fromEnv && !fromConfig) return undefined;

  const endpoint = tracesEndpoint
    ? url(tracesEndpoint, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
    : tracesUrl(url(baseEndpoint ?? config.endpoint ?? DEFAULT_BASE_ENDPOINT, baseEndpoint ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : 'telemetry.endpoint'));
  const protocolSource = envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : envValue(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_PROTOCOL' : 'telemetry.protocol';
  const protocol = protocolOf(envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? envValue(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? config.protocol ?? 'http/protobuf', protocolSource);
  // Headers merge: the config's, then the general variable's, then the traces variable's (the most specific wins).
  const headers = {
    ...checkedHeaders(config.headers ?? {}),
    ...pairs(envValue(env, 'OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS', 'AGENTCTL_PACK_OTEL_E_HEADERS'),
    ...pairs(envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'), 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'AGENTCTL_PACK_OTEL_E_HEADERS'),
  };
  const resourceAttributes = { ...(config.resourceAttributes ?? {}), ...pairs(envValue(env, 'OTEL_RESOURCE_ATTRIBUTES'), 'OTEL_RESOURCE_ATTRIBUTES', 'AGENTCTL_PACK_OTEL_E_RESOURCE') };
  const serviceName = envValue(env, 'OTEL_SERVICE_NAME') ?? config.serviceName ?? resourceAttributes['service.name'] ?? 'agentctl';
  const samplerSource = envValue(env, 'OTEL_TRACES_SAMPLER') ? 'OTEL_TRACES_SAMPLER' : 'telemetry.sampler';
  const sampler = samplerOf(envValue(env, 'OTEL_TRACES_SAMPLER') ?? config.sampler ?? 'parentbased_always_on', samplerSource);
  const argument = envValue(env, 'OTEL_TRACES_SAMPLER_ARG') ?? (config.samplerArg === undefined ? undefined : String(config.samplerArg));
  const ratio = sampler.endsWith('traceidratio') ? ratioOf(argument, envValue(env, 'OTEL_TRACES_SAMPLER_ARG') ? 'OTEL_TRACES_SAMPLER_ARG' : 'telemetry.samplerArg') : 1;
  const timeout = envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ?? envValue(env, 'OTEL_EXPORTER_OTLP_TIMEOUT');
  const flushTimeoutMs = timeout === undefined ? (config.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS) : timeoutOf(timeout);
  return Object.freeze({ endpoint, protocol, headers: Object.freeze(headers), serviceName, resourceAttributes: Object.freeze(resourceAttributes), sampler, ratio, flushTimeoutMs });
}

function url(value: string, source: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    refuse('AGENTCTL_PACK_OTEL_E_ENDPOINT', source, 'is not a URL', 'give an http:// or https:// URL, e.g. http://localhost:4318');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') refuse('AGENTCTL_PACK_OTEL_E_ENDPOINT', source, `has scheme ${parsed.protocol} (only http: and https: are exported to)`, 'give an http:// or https:// URL');
  if (parsed.username || parsed.password) refuse('AGENTCTL_PACK_OTEL_E_ENDPOINT', source, 'holds credentials in the URL', 'pass credentials as OTEL_EXPORTER_OTLP_HEADERS instead');
  return parsed.href;
}

/** A base endpoint's traces path, as OTEL_EXPORTER_OTLP_ENDPOINT defines it: `v1/traces` under its path. */
function tracesUrl(base: string): string {
  const parsed = new URL(base);
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/v1/traces`;
  return parsed.href;
}

function protocolOf(value: string, source: string): Protocol {
  if ((PROTOCOLS as readonly string[]).includes(value)) return value as Protocol;
  if (value === 'grpc') refuse('AGENTCTL_PACK_OTEL_E_PROTOCOL', source, 'is grpc, which agentctl does not export with', 'use http/protobuf (the default) or http/json; an OpenTelemetry Collector accepts both on port 4318');
  refuse('AGENTCTL_PACK_OTEL_E_PROTOCOL', source, `is ${JSON.stringify(value)}, not a known protocol`, 'use http/protobuf (the default) or http/json');
}

function samplerOf(value: string, source: string): SamplerName {
  const name = value.toLowerCase();
  if ((SAMPLERS as readonly string[]).includes(name)) return name as SamplerName;
  refuse('AGENTCTL_PACK_OTEL_E_SAMPLER', source, `is ${JSON.stringify(value)}, not a known sampler`, `use one of ${SAMPLERS.join(', ')}`);
}

function ratioOf(value: string | undefined, source: string): number {
  if (value === undefined) return 1;
  const ratio = Number(value);
  if (!/^\s*[0-9.eE+-]+\s*$/.test(value) || !Number.isFinite(ratio) || ratio < 0 || ratio > 1) refuse('AGENTCTL_PACK_OTEL_E_SAMPLER', source, `is ${JSON.stringify(value)}, not a ratio from 0 to 1`, 'give a number from 0 to 1, e.g. 0.25');
  return ratio;
}

function timeoutOf(value: string): number {
  const milliseconds = Number(value);
  if (!/^[0-9]+$/.test(value) || milliseconds < 1) refuse('AGENTCTL_PACK_OTEL_E_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT', `is ${JSON.stringify(value)}, not a whole number of milliseconds`, 'give a whole number of milliseconds, e.g. 3000');
  return Math.min(milliseconds, MAX_FLUSH_TIMEOUT_MS);
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) refuse('AGENTCTL_PACK_OTEL_E_HEADERS', 'telemetry.headers', `has a header name that is not an HTTP token`, 'use header names of letters, digits and -');
    if (/[\r\n\0]/.test(value)) refuse('AGENTCTL_PACK_OTEL_E_HEADERS', `telemetry.headers.${name}`, 'is not a single-line value', 'remove line breaks from the value');
  }
  return { ...headers };
}

/** A W3C-baggage-style list, `key1=value1,key2=value2`, values percent-decoded. Never quotes a value in errors. */
function pairs(text: string | undefined, source: string, code: Code): Record<string, string> {
  if (text === undefined) return {};
  const entries: Record<string, string> = {};
  const header = code === 'AGENTCTL_PACK_OTEL_E_HEADERS';
  text.split(',').forEach((item, index) => {
    if (item.trim() === '') return;
    const at = item.indexOf('=');
    const key = at < 0 ? '' : item.slice(0, at).trim();
    if (at < 0 || key === '') refuse(code, source, `entry ${index + 1} is not key=value`, 'write a comma-separated list of key=value pairs, values percent-encoded');
    let value: string;
    try {
      value = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      refuse(code, source, `entry ${index + 1} (${key}) has a malformed percent-encoding`, 'percent-encode the value (e.g. %20 for a space)');
    }
    if (header && !HEADER_NAME.test(key)) refuse(code, source, `entry ${index + 1} has a name that is not an HTTP token`, 'use header names of letters, digits and -');
    if (/[\r\n\0]/.test(value)) refuse(code, source, `entry ${index + 1} (${key}) is not a single-line value`, 'remove line breaks from the value');
    entries[key] = value;
  });
  return entries;
}
