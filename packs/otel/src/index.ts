// The OpenTelemetry pack's entry: small on purpose. It reads the settings and, only when telemetry is on, registers
// the effect interceptor, the trace-context propagator and a commit tap; OpenTelemetry itself (./tracing.js and the
// SDK and exporters it imports) is loaded on first use. When telemetry is off nothing is registered, so the host keeps
// its direct path around every effect.
import { definePlugin, type PluginDefinition } from '@agentctl/sdk';
import { ERROR_CODES, readSettings, telemetryOptionsSchema, type Settings, type TelemetryOptions } from './settings.js';
import type { Tracing } from './tracing.js';

export { readSettings, telemetryOptionsSchema, type Settings, type TelemetryOptions } from './settings.js';

export const PACK_NAME = '@agentctl/pack-otel';
export const PACK_VERSION = '0.1.0';

/** The key the OpenTelemetry API keeps its globals under: set once a process registered a provider (or anything). */
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/** Whether the embedding process registered a global tracer provider with the OpenTelemetry API. */
function embedderRegistered(): boolean {
  const globals = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_API_GLOBAL];
  return globals?.trace !== undefined;
}

/**
 * The pack, for a given environment: on when an OTLP endpoint is set (environment or the config's `telemetry`
 * section), or when the embedding process registered its own tracer provider; `OTEL_SDK_DISABLED=true` turns it off.
 */
export function otelPlugin(env: Readonly<Record<string, string | undefined>> = process.env): PluginDefinition {
  return definePlugin({
    name: PACK_NAME,
    version: PACK_VERSION,
    hostRange: '^0.1.0',
    description: 'OpenTelemetry traces of runs, task attempts and effects (GenAI conventions for model turns), exported over OTLP/HTTP; off unless configured',
    errorCodes: ERROR_CODES,
    optionsSchema: telemetryOptionsSchema,
    setup(api) {
      const settings: Settings | undefined = readSettings(env, api.options as TelemetryOptions | undefined);
      if (!settings && (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || !embedderRegistered())) return;
      let loaded: Tracing | undefined;
      let loading: Promise<Tracing> | undefined;
      const tracing = () => (loading ??= import('./tracing.js').then(async ({ createTracing }) => (loaded = await createTracing(settings, api.hostVersion))));
      api.registerInterceptor({
        name: 'otel-spans',
        effect: async (input, next) => (await tracing()).effect(input, next),
        // Only a `kind: action` tool's dispatch needs the tracer, and the tool call's effect loaded it already.
        dispatch: (input, next) => (loaded ? loaded.dispatch(input, next) : next()),
      });
      api.registerPropagator({
        name: 'otel-trace-context',
        environment: { names: ['TRACEPARENT', 'TRACESTATE'], values: (work) => loaded?.environment(work) ?? {} },
        headers: (work) => loaded?.headers(work) ?? {},
      });
      api.hooks.commit.tapPromise({ name: 'otel-spans' }, async (event) => {
        const problem = await (await tracing()).commit(event);
        // Thrown, it is one warning on stderr at the run's end; the run's outcome and exit code stay the ledger's.
        if (problem) throw new Error(`telemetry: ${problem}`);
      });
    },
  });
}

/** The pack as agentctl registers it: settings from this process's environment and the project config. */
const plugin: PluginDefinition = otelPlugin();
export default plugin;
