// What one plugin's `setup` receives: tap-only facades that wrap every tap so its errors name the plugin and hook,
// a policy facade that can only tighten, and the registration calls that enforce one owner per key.
import type { Tap } from 'tapable';
import {
  AgentctlError,
  diagnostic,
  POLICY_STAGES,
  type Diagnostic,
  type ActionKind,
  isNetworkFailure,
  type HttpRequest,
  type Interceptor,
  type IsolationMode,
  type IsolationOptions,
  type ProcessMount,
  type JsonValue,
  type MemoryStoreProvider,
  type ModelProvider,
  type ModelRequest,
  type NetworkClient,
  type NetworkClientFactory,
  type ProviderCallContext,
  type ToolContext,
  type ToolKind,
  type PluginApi,
  type PluginHooks,
  type PolicyHook,
  type PolicyRequest,
  type PlanEmitter,
  type PolicyTapOptions,
  type PolicyVote,
  type PreflightContext,
  type ProcessService,
  type ProcessSpec,
  type SecretReference,
  type Propagator,
  type RunReporter,
  type SecretResolver,
  type SpecSection,
  type TaskBody,
  type TapOnly,
  type TapOptions,
} from '@agentctl/sdk';
import type { CommitSink, Hooks, InterceptorChains, PolicyBallot, SecretLookup } from './hooks.js';
import { dispatchProcessService } from './process-service.js';
import type { ErrorCodeRegistry } from './plugin-errors.js';
import { CORE_SPEC_KEYS } from './spec-keys.js';
import { checkPropagator } from './propagation.js';

/** A registered plugin, as `agentctl plugins list` shows it. */
export interface PluginRecord {
  readonly name: string;
  readonly version: string;
  readonly hostRange: string;
  readonly description: string;
  /** Where it came from: `builtin`, or a pack source. */
  readonly source: string;
  readonly actionKinds: string[];
  readonly secretForms: string[];
  readonly isolationModes: string[];
  readonly providers: string[];
  readonly toolKinds: string[];
  /** The `spec` sections it owns (e.g. `mcpServers`). */
  readonly specSections: string[];
  /** The kinds it registered task bodies for. */
  readonly taskBodies: string[];
  /** The plan emitters and run reporters it owns, by format. */
  readonly planEmitters: string[];
  readonly runReporters: string[];
  /** The long-term memory store providers it owns. */
  readonly memoryStores: string[];
  /** Whether it registered the network client factory. */
  network: boolean;
  readonly errorCodes: string[];
}

/** What the host offers the registration calls of one plugin: its hooks, its error codes and its keyed registries. */
export interface PluginRegistrar {
  readonly hooks: Hooks;
  readonly version: string;
  readonly errorCodes: ErrorCodeRegistry;
  assertOpen(message: string): void;
  ownerOf(kind: string): string | undefined;
  assertOwner(kind: string, plugin: string): void;
  claim<T>(registry: 'kind' | 'isolation' | 'provider' | 'tool' | 'network' | 'section', key: string, value: T, plugin: string): void;
  claimSecretForm(form: string, plugin: string): void;
  deferOwnerCheck(kind: string, plugin: string): void;
  /** The isolation modes behind the process service a secret resolver is given. */
  readonly process: ProcessService;
  isolationMode(mode: string): IsolationMode | undefined;
  isolationModes(): string[];
  /** The interceptor chains and propagators plugins add to (declared in hooks.ts). */
  readonly interceptors: InterceptorChains;
  claimTaskBody(body: TaskBody, plugin: string): void;
  claimFormat(registry: 'emitter' | 'reporter', format: string, value: PlanEmitter | RunReporter, plugin: string): void;
  claimMemoryStore(store: MemoryStoreProvider, plugin: string): void;
}

interface Tappable {
  tapPromise(options: Tap & Record<string, unknown>, fn: (...args: any[]) => Promise<unknown>): void;
}

export function pluginApi(host: PluginRegistrar, record: PluginRecord, options?: unknown): PluginApi {
  const plugin = record.name;
  const open = (what: string) => host.assertOpen(`plugin ${plugin} ${what} after the host was ready`);
  const tapName = (options: TapOptions | PolicyTapOptions) => (typeof options === 'string' ? options : (options.name ?? plugin));

  // `adapt` gives a tap its own view of the arguments, e.g. a preflight `report` that names this plugin; `contain`, when
  // given, takes a tap's error instead of letting it stop the hook.
  const facade = <Args extends unknown[], Result>(
    hook: Tappable,
    hookName: string,
    adapt = (args: unknown[]) => args,
    contain?: (error: unknown, args: unknown[]) => void,
  ): TapOnly<Args, Result> => {
    const tapPromise = (options: TapOptions, fn: (...args: Args) => Promise<Result>) => {
      open(`tapped ${hookName}`);
      hook.tapPromise({ name: tapName(options), plugin } as Tap & Record<string, unknown>, async (...args: unknown[]) => {
        try {
          return await fn(...(adapt(args) as Args));
        } catch (error) {
          const failure = host.errorCodes.normalize(error, plugin, hookName);
          if (!contain) throw failure;
          contain(failure, args);
          return undefined;
        }
      });
    };
    // A synchronous tap runs through the same wrapper, so its errors name the plugin and hook too.
    const tap = (options: TapOptions, fn: (...args: Args) => Result) => tapPromise(options, async (...args) => fn(...args));
    return Object.freeze({ tap, tapPromise });
  };

  const hooks: PluginHooks = Object.freeze({
    compile: facade(host.hooks.compile as unknown as Tappable, 'compile'),
    policy: policyFacade(host, plugin, open, tapName),
    preflight: facade(host.hooks.preflight as unknown as Tappable, 'preflight', ([context]) => {
      const shared = context as PreflightContext;
      return [Object.freeze({ ...shared, report: (item: Diagnostic) => shared.report(host.errorCodes.attribute(item, plugin, 'preflight')) })];
    }),
    commit: facade(
      host.hooks.commit as unknown as Tappable,
      'commit',
      ([event]) => [event],
      (error, [, sink]) => (sink as CommitSink).fail(error),
    ),
    dispatch: Object.freeze({
      for: (kind: string) => {
        open(`tapped dispatch:${kind}`);
        if (host.ownerOf(kind) !== undefined) host.assertOwner(kind, plugin);
        else host.deferOwnerCheck(kind, plugin);
        return facade(host.hooks.dispatch.for(kind) as unknown as Tappable, `dispatch:${kind}`);
      },
    }),
  }) as PluginHooks;

  return Object.freeze({
    hostVersion: host.version,
    hooks,
    options,
    registerActionKind: (kind: ActionKind<any, any>) => {
      open(`registered action kind ${kind?.name}`);
      host.claim('kind', kind.name, kind, plugin);
      record.actionKinds.push(kind.name);
      hooks.dispatch.for(kind.name).tapPromise(plugin, (context) => kind.dispatch(context as never));
    },
    registerSecretResolver: (form: string, resolver: SecretResolver) => {
      open(`registered secret form ${form}`);
      host.claimSecretForm(form, plugin);
      record.secretForms.push(form);
      // A resolver runs a helper through the host's process service (its limits, timeout and tree kill), never its own spawn.
      const withProcess = (reference: SecretReference, context: SecretLookup) => resolver(reference, { ...context, process: context.process ?? dispatchProcessService(host, context.signal) });
      facade(host.hooks.secretResolver.for(form) as unknown as Tappable, `secret:${form}`).tapPromise(plugin, withProcess as never);
    },
    registerIsolation: (mode: IsolationMode) => {
      open(`registered isolation mode ${mode?.mode}`);
      host.claim('isolation', mode.mode, wrapIsolation(host, plugin, mode), plugin);
      record.isolationModes.push(mode.mode);
    },
    registerProvider: (provider: ModelProvider) => {
      open(`registered provider kind ${provider?.kind}`);
      host.claim('provider', provider.kind, wrapProvider(host, plugin, provider), plugin);
      record.providers.push(provider.kind);
    },
    registerToolKind: (tool: ToolKind) => {
      open(`registered tool kind ${tool?.kind}`);
      host.claim('tool', tool.kind, wrapToolKind(host, plugin, tool), plugin);
      record.toolKinds.push(tool.kind);
    },
    registerNetworkClient: (factory: NetworkClientFactory) => {
      open('registered the network client');
      host.claim('network', 'network', wrapNetwork(host, plugin, factory), plugin);
      record.network = true;
    },
    registerSpecSection: (section: SpecSection) => {
      open(`registered spec section ${section?.key}`);
      checkSection(plugin, section);
      host.claim('section', section.key, Object.freeze({ ...section }), plugin);
      record.specSections.push(section.key);
    },
    // Interceptors and propagation (docs/plugin-api.md#interceptors).
    registerInterceptor: (interceptor: Interceptor) => {
      open(`registered interceptor ${interceptor?.name}`);
      addInterceptor(host.interceptors, plugin, interceptor);
    },
    registerPropagator: (propagator: Propagator) => {
      open(`registered propagator ${propagator?.name}`);
      addPropagator(host.interceptors, plugin, propagator);
    },
    // Task bodies (issue 23 item 3)
    registerTaskBody: (body: TaskBody) => {
      open(`registered task body ${body?.kind}`);
      if (typeof body?.kind !== 'string' || typeof body.run !== 'function') throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${plugin} registers a task body without a kind or a run function`);
      if (body.action && body.action.name !== body.kind) throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${plugin} registers a task body for ${body.kind} whose own action kind is ${body.action.name}`);
      host.claimTaskBody(Object.freeze({ ...body }), plugin);
      record.taskBodies.push(body.kind);
    },
    // Consumers of the public documents: what an emitter or reporter throws names the plugin and `emitter:FORMAT`.
    registerMemoryStore: (store: MemoryStoreProvider) => {
      open(`registered memory store ${store?.provider}`);
      if (typeof store?.provider !== 'string' || !/^[a-z][a-z0-9_.-]*$/.test(store.provider) || typeof store.open !== 'function') {
        throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${plugin} registered a memory store without a lower-case provider name and an open function`);
      }
      host.claimMemoryStore(Object.freeze({ ...store }), plugin);
      record.memoryStores.push(store.provider);
    },
    registerPlanEmitter: (emitter: PlanEmitter) => {
      open(`registered plan emitter ${emitter?.format}`);
      checkFormat(plugin, 'plan emitter', emitter, 'emit');
      host.claimFormat('emitter', emitter.format, Object.freeze({ ...emitter, emit: (input: Parameters<PlanEmitter['emit']>[0]) => attributed(host, plugin, `emitter:${emitter.format}`, async () => emitter.emit(input)) }), plugin);
      record.planEmitters.push(emitter.format);
    },
    registerRunReporter: (reporter: RunReporter) => {
      open(`registered run reporter ${reporter?.format}`);
      checkFormat(plugin, 'run reporter', reporter, 'report');
      host.claimFormat('reporter', reporter.format, Object.freeze({ ...reporter, report: (input: Parameters<RunReporter['report']>[0]) => attributed(host, plugin, `reporter:${reporter.format}`, async () => reporter.report(input)) }), plugin);
      record.runReporters.push(reporter.format);
    },
  });
}

/** An interceptor wraps an effect, a dispatch or both; each goes to the end of its chain (the innermost so far). */
function addInterceptor(chains: InterceptorChains, plugin: string, interceptor: Interceptor): void {
  const { name, effect, dispatch } = interceptor ?? {};
  const refuse = (problem: string) => {
    throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${plugin} registers interceptor ${String(name)}: ${problem}`);
  };
  if (typeof name !== 'string' || name === '') refuse('an interceptor needs a name');
  if (effect === undefined && dispatch === undefined) refuse('it wraps neither effect nor dispatch');
  if ((effect !== undefined && typeof effect !== 'function') || (dispatch !== undefined && typeof dispatch !== 'function')) refuse('effect and dispatch must be functions');
  if (effect) chains.effect.push({ plugin, name, around: (input, next) => effect.call(interceptor, input, next) });
  if (dispatch) chains.dispatch.push({ plugin, name, around: (input, next) => dispatch.call(interceptor, input, next) });
}

/** An environment entry has one propagator: a name another one declared is refused, naming both plugins. */
function addPropagator(chains: InterceptorChains, plugin: string, propagator: Propagator): void {
  checkPropagator(plugin, propagator);
  for (const name of propagator.environment?.names ?? []) {
    const owner = chains.propagators.find((entry) => entry.propagator.environment?.names.includes(name));
    if (owner) throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `environment entry ${name} is propagated by plugin ${owner.plugin}; plugin ${plugin} cannot propagate it too`);
  }
  chains.propagators.push({ plugin, propagator: Object.freeze({ ...propagator }) });
}

/** A format is a short lower-case name (it becomes a command-line value), and the consumer's function is a function. */
function checkFormat(plugin: string, what: string, consumer: PlanEmitter | RunReporter, method: 'emit' | 'report'): void {
  const format = (consumer as { format?: unknown } | undefined)?.format;
  const problem =
    typeof format !== 'string' || !/^[a-z][a-z0-9-]{0,39}$/.test(format)
      ? 'a format is a lower-case letter, then up to 39 lower-case letters, digits and dashes'
      : typeof (consumer as unknown as Record<string, unknown>)[method] !== 'function'
        ? `${method} must be a function`
        : undefined;
  if (problem) throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${plugin} registers ${what} ${String(format)}: ${problem}`);
}

/**
 * A section's key is camelCase and not one of the core's own `spec` keys, and its schema accepts an absent section:
 * every plan must be able to read it.
 */
function checkSection(plugin: string, section: SpecSection): void {
  const refuse = (problem: string) => {
    throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${plugin} registers spec section ${String(section?.key)}: ${problem}`);
  };
  if (typeof section?.key !== 'string' || !/^[a-z][A-Za-z0-9]{0,63}$/.test(section.key)) refuse('a key is a lower-case letter, then up to 63 letters and digits');
  if (CORE_SPEC_KEYS.has(section.key)) refuse(`spec.${section.key} is agentctl's own section`);
  if (typeof section.schema?.safeParse !== 'function') refuse('schema must be a zod schema');
  if (!section.schema.safeParse(undefined).success) refuse('its schema must accept an absent section (give it a default)');
}

/** Runs `fn`, turning what it throws into an error that names the plugin and hook. */
async function attributed<T>(host: PluginRegistrar, plugin: string, hook: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw host.errorCodes.normalize(error, plugin, hook);
  }
}

function wrapProvider(host: PluginRegistrar, plugin: string, provider: ModelProvider): ModelProvider {
  const hook = `provider:${provider.kind}`;
  return Object.freeze({ ...provider, call: (request: ModelRequest, context: ProviderCallContext) => attributed(host, plugin, hook, () => provider.call(request, context)) });
}

function wrapToolKind(host: PluginRegistrar, plugin: string, tool: ToolKind): ToolKind {
  const hook = `tool:${tool.kind}`;
  return Object.freeze({ ...tool, run: (input: JsonValue, context: ToolContext) => attributed(host, plugin, hook, () => tool.run(input, context)) });
}

/** The factory's own errors (unusable settings) and the client's name the plugin; a NetworkFailure keeps its class. */
function wrapNetwork(host: PluginRegistrar, plugin: string, factory: NetworkClientFactory): NetworkClientFactory {
  const keep = (error: unknown) => (isNetworkFailure(error) ? error : host.errorCodes.normalize(error, plugin, 'network'));
  return (settings) => {
    let client: NetworkClient;
    try {
      client = factory(settings);
    } catch (error) {
      throw keep(error);
    }
    return Object.freeze({
      check: (url: string, signal: AbortSignal) => client.check(url, signal).catch((error: unknown) => Promise.reject(keep(error))),
      request: (request: HttpRequest) => client.request(request).catch((error: unknown) => Promise.reject(keep(error))),
    });
  };
}

/** Errors an isolation mode throws name its plugin, like those of any hook. */
function wrapIsolation(host: PluginRegistrar, plugin: string, mode: IsolationMode): IsolationMode {
  const hook = `isolation:${mode.mode}`;
  return Object.freeze({
    mode: mode.mode,
    description: mode.description,
    // The options block is data (a key and a schema) the host merges into process kinds' schemas when it is ready.
    ...(mode.options ? { options: mode.options } : {}),
    ...(mode.refuseMount
      ? {
          refuseMount: (mount: ProcessMount) => {
            try {
              return mode.refuseMount!(mount);
            } catch (error) {
              throw host.errorCodes.normalize(error, plugin, hook);
            }
          },
        }
      : {}),
    resolveCommand: (command: string) => {
      try {
        return mode.resolveCommand(command);
      } catch (error) {
        throw host.errorCodes.normalize(error, plugin, hook);
      }
    },
    run: async (spec: ProcessSpec, signal: AbortSignal) => {
      try {
        return await mode.run(spec, signal);
      } catch (error) {
        throw host.errorCodes.normalize(error, plugin, hook);
      }
    },
    ...(mode.prepare
      ? {
          prepare: async (options: IsolationOptions | undefined, signal: AbortSignal) => {
            try {
              return await mode.prepare!(options, signal);
            } catch (error) {
              throw host.errorCodes.normalize(error, plugin, hook);
            }
          },
        }
      : {}),
    ...(mode.hostReport
      ? {
          hostReport: () => {
            try {
              return mode.hostReport!();
            } catch (error) {
              throw host.errorCodes.normalize(error, plugin, hook);
            }
          },
        }
      : {}),
  });
}

/**
 * The policy hook's facade: a tap's answer becomes a vote on the ballot. `allow` (or nothing) is no vote; a throw or
 * a malformed answer is a denial; a denial's code must be a core code or one the plugin declared.
 */
function policyFacade(host: PluginRegistrar, plugin: string, open: (what: string) => void, tapName: (options: PolicyTapOptions) => string): PolicyHook {
  const tapPromise = (options: PolicyTapOptions, fn: (request: PolicyRequest) => Promise<PolicyVote | undefined>) => {
    open('tapped policy');
    const stageName = typeof options === 'string' ? 'default' : (options.stage ?? 'default');
    if (!Object.hasOwn(POLICY_STAGES, stageName)) {
      throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${plugin} taps policy at unknown stage "${String(stageName)}"; use one of ${Object.keys(POLICY_STAGES).join(', ')}`);
    }
    const name = tapName(options);
    const tap = { name, stage: POLICY_STAGES[stageName], plugin } as Tap & Record<string, unknown>;
    (host.hooks.policy as unknown as Tappable).tapPromise(tap, async (request: PolicyRequest, ballot: PolicyBallot) => {
      let answer: unknown;
      try {
        answer = await fn(request);
      } catch (error) {
        const failure = host.errorCodes.normalize(error, plugin, 'policy');
        ballot.cast(plugin, denial(plugin, `policy plugin ${plugin} failed and denies ${request.operation}: ${failure.message}`));
        return;
      }
      const vote = toVote(host, plugin, request, answer);
      if (vote) ballot.cast(plugin, vote);
    });
  };
  const tap = (options: PolicyTapOptions, fn: (request: PolicyRequest) => PolicyVote | undefined) => tapPromise(options, async (request) => fn(request));
  return Object.freeze({ tap, tapPromise });
}

/** A plugin's answer as a vote; `allow` and nothing are no vote. */
function toVote(host: PluginRegistrar, plugin: string, request: PolicyRequest, answer: unknown): PolicyVote | undefined {
  const vote = answer as { decision?: unknown; diagnostic?: { code?: unknown; message?: unknown }; reason?: unknown } | undefined;
  if (vote === undefined || vote === null || vote.decision === 'allow') return undefined;
  if (vote.decision === 'needs_approval' && typeof vote.reason === 'string' && vote.reason !== '') return { decision: 'needs_approval', reason: `${vote.reason} (plugin ${plugin})` };
  if (vote.decision === 'deny' && typeof vote.diagnostic?.code === 'string' && typeof vote.diagnostic.message === 'string') {
    const item = vote.diagnostic as PolicyVote & { code: string; message: string };
    if (host.errorCodes.allows(plugin, item.code)) return { decision: 'deny', diagnostic: { ...(vote.diagnostic as object), code: item.code, message: item.message, severity: 'error', plugin, hook: 'policy' } };
    return denial(plugin, `policy plugin ${plugin} denied ${request.operation} with undeclared code ${item.code}: ${item.message}`, 'AGENTCTL_E_PLUGIN');
  }
  return denial(plugin, `policy plugin ${plugin} returned an invalid vote for ${request.operation}; denied`);
}

function denial(plugin: string, message: string, code: 'AGENTCTL_E_POLICY_NO_VERDICT' | 'AGENTCTL_E_PLUGIN' = 'AGENTCTL_E_POLICY_NO_VERDICT'): PolicyVote {
  return { decision: 'deny', diagnostic: diagnostic(code, { message, plugin, hook: 'policy', help: `fix or remove plugin ${plugin}; a policy plugin that fails denies (fail closed)` }) };
}
