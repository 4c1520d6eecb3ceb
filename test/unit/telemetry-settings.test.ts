// How the OpenTelemetry pack reads its settings: when it is on, the endpoint rules of OTEL_EXPORTER_OTLP_*, the
// environment winning over the config, header and resource lists, samplers and the flush bound.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { readSettings } from '@agentctl/pack-otel';

/** The modules a built module imports statically, followed through its relative imports (dynamic ones are not). */
function staticImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]/gm)) {
    if (specifier!.startsWith('.')) staticImports(join(dirname(file), specifier!), seen);
    else seen.add(specifier!);
  }
  return seen;
}

describe('telemetry settings', () => {
  it('the pack\'s entry loads nothing of OpenTelemetry: its tracer is imported only when telemetry is on', () => {
    const entry = createRequire(import.meta.url).resolve('@agentctl/pack-otel');
    const loaded = [...staticImports(entry)];
    expect(loaded).to.include('@agentctl/sdk').and.to.satisfy((all: string[]) => all.some((path) => path.endsWith('settings.js')));
    expect(loaded.filter((specifier) => specifier.startsWith('@opentelemetry/'))).to.deep.equal([]);
    expect(loaded.filter((specifier) => specifier.endsWith('tracing.js'))).to.deep.equal([]);
    expect(readFileSync(entry, 'utf8')).to.match(/import\(['"]\.\/tracing\.js['"]\)/);
  });

  it('is off without an endpoint, an enabled config, or with OTEL_SDK_DISABLED=true', () => {
    expect(readSettings({}, undefined)).to.equal(undefined);
    expect(readSettings({}, { serviceName: 'x' })).to.equal(undefined);
    expect(readSettings({}, { endpoint: 'http://c:4318', enabled: false })).to.equal(undefined);
    expect(readSettings({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, { enabled: true })).to.equal(undefined);
    expect(readSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, undefined)).to.equal(undefined);
  });

  it('a base endpoint gains /v1/traces under its path; a traces endpoint is used as it is and wins', () => {
    expect(readSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, undefined)?.endpoint).to.equal('http://c:4318/v1/traces');
    expect(readSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c/otlp/' }, undefined)?.endpoint).to.equal('https://c/otlp/v1/traces');
    expect(readSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/custom' }, undefined)?.endpoint).to.equal('http://t:9/custom');
    expect(readSettings({}, { enabled: true })?.endpoint).to.equal('http://localhost:4318/v1/traces');
    expect(readSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:1' }, { endpoint: 'http://config:2', enabled: false })?.endpoint).to.equal('http://env:1/v1/traces');
  });

  it('the environment wins over the config; headers and resource attributes merge, the most specific last', () => {
    const settings = readSettings(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'a=env,b=env%20b', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=traces', OTEL_RESOURCE_ATTRIBUTES: 'team=env', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      { headers: { a: 'config', c: 'config' }, resourceAttributes: { team: 'config', region: 'eu' }, protocol: 'http/protobuf', serviceName: 'config-service' },
    )!;
    expect(settings.headers).to.deep.equal({ a: 'env', b: 'traces', c: 'config' });
    expect(settings.resourceAttributes).to.deep.equal({ team: 'env', region: 'eu' });
    expect(settings.protocol).to.equal('http/json');
    expect(settings.serviceName).to.equal('config-service');
    expect(readSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource' }, undefined)!.serviceName).to.equal('from-resource');
  });

  it('samplers, ratios and the flush bound', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(readSettings(on, undefined)).to.include({ sampler: 'parentbased_always_on', ratio: 1, flushTimeoutMs: 3000 });
    expect(readSettings({ ...on, OTEL_TRACES_SAMPLER: 'TraceIdRatio', OTEL_TRACES_SAMPLER_ARG: '0.25' }, undefined)).to.include({ sampler: 'traceidratio', ratio: 0.25 });
    expect(readSettings(on, { sampler: 'parentbased_traceidratio', samplerArg: 0.5 })).to.include({ sampler: 'parentbased_traceidratio', ratio: 0.5 });
    expect(readSettings({ ...on, OTEL_EXPORTER_OTLP_TIMEOUT: '10000' }, undefined)!.flushTimeoutMs).to.equal(4500);
    expect(readSettings({ ...on, OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '800', OTEL_EXPORTER_OTLP_TIMEOUT: '2000' }, undefined)!.flushTimeoutMs).to.equal(800);
    expect(readSettings(on, { flushTimeoutMs: 1200 })!.flushTimeoutMs).to.equal(1200);
  });

  it('refuses a malformed setting with its code, never quoting a header value', () => {
    const refused = (env: Record<string, string>, options?: Parameters<typeof readSettings>[1]) => {
      try {
        readSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...env }, options);
      } catch (error) {
        return error as { code: string; message: string };
      }
      throw new Error('not refused');
    };
    expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:secret-pw@c:4318' })).to.include({ code: 'AGENTCTL_PACK_OTEL_E_ENDPOINT' });
    expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:secret-pw@c:4318' }).message).to.not.contain('secret-pw');
    const header = refused({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%zzsecret-token' });
    expect(header.code).to.equal('AGENTCTL_PACK_OTEL_E_HEADERS');
    expect(header.message).to.not.contain('secret-token');
    expect(refused({}, { headers: { 'bad name': 'x' } }).code).to.equal('AGENTCTL_PACK_OTEL_E_HEADERS');
    expect(refused({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' }).code).to.equal('AGENTCTL_PACK_OTEL_E_SAMPLER');
    expect(refused({}, { protocol: 'grpc' }).message).to.contain('grpc');
  });
});
