// The plugin host: owns the hooks and the keyed registries (action kinds, secret forms, isolation modes), registers
// plugins through tap-only facades, enforces one owner per key, and closes registration when ready.
import semverSatisfies from 'semver/functions/satisfies.js';
import validVersion from 'semver/functions/valid.js';
import validRange from 'semver/ranges/valid.js';
import { AgentctlError, diagnostic, errorMessage, isAgentctlError, type ActionKind, type HttpRequest, type IsolationMode, type MemoryStoreProvider, type ModelProvider, type NetworkClientFactory, type PlanEmitter, type PluginDefinition, type RunReporter, type SpecSection, type TaskBody, type ToolKind } from '@agentctl/sdk';
import { createHooks, createInterceptorChains, type Hooks } from './hooks.js';
import { composeInterception, NO_INTERCEPTION, type Interception } from './interceptors.js';
import { pluginApi, type PluginRecord, type PluginRegistrar } from './plugin-api.js';
import { ErrorCodeRegistry } from './plugin-errors.js';
import { createProcessService } from './process-service.js';
import { withIsolationOptions } from './isolation-options.js';
import { HOST_VERSION } from './version.js';

/**
 * The prefixes a pack's action kinds may use: its plugin name, and that name without an npm scope and the
 * conventional `agentctl-pack-` prefix (`@acme/agentctl-pack-deploy` → `deploy`, so its kinds are `deploy.NAME`).
 */
export function packNamespaces(plugin: string): string[] {
  const short = plugin.replace(/^@[^/]+\//, '').replace(/^agentctl-pack-/, '');
  return short === plugin || short === '' ? [plugin] : [plugin, short];
}

/** What to write when a pack's kind is not named after it: the kind's new name, or the pack's name that fits the kind. */
function namespaceHelp(short: string, kind: string): string {
  const rename = `write the kind's name as '${short}.${kind.split('.').at(-1)}' (the pack's name, a dot, then the kind's own name)`;
  const namespace = kind.slice(0, kind.lastIndexOf('.'));
  if (!kind.includes('.') || !PLUGIN_NAME.test(namespace)) return rename;
  return `${rename}, or name the pack after the kind: plugin: '${namespace}' in defineActionKind (name: '${namespace}' in definePlugin)`;
}

/** The keyed registries; each key has exactly one owning plugin. */
export type Registry = 'kind' | 'isolation' | 'provider' | 'tool' | 'network' | 'section';
const REGISTRY_NAMES: Record<Registry, string> = { kind: 'action kind', isolation: 'isolation mode', provider: 'provider kind', tool: 'tool kind', network: 'the network client', section: 'spec section' };

/** One owner per key: what a plugin registered, by key. */
export type { PluginRecord };

/** One tap of a hook, as `plugins order` shows it. */
export interface HookTap {
  readonly hook: string;
  readonly plugin: string;
  readonly name: string;
  readonly stage: number;
}

export interface Owned<T> {
  readonly value: T;
  readonly plugin: string;
}

/** Sources of plugins loaded from the project config: their kinds are namespaced and their failures are PACK codes. */
const PACK_SOURCES = new Set(['npm', 'path']);
export const isPackSource = (source: string): boolean => PACK_SOURCES.has(source);

export const PLUGIN_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** The plugin host: one per process invocation; no global registries. */
export class Host implements PluginRegistrar {
  readonly hooks: Hooks = createHooks();
  readonly version = HOST_VERSION;
  readonly errorCodes = new ErrorCodeRegistry();
  readonly #plugins = new Map<string, PluginRecord>();
  readonly #kinds = new Map<string, Owned<ActionKind<any, any>>>();
  readonly #secretForms = new Map<string, string>();
  readonly #isolation = new Map<string, Owned<IsolationMode>>();
  readonly #providers = new Map<string, Owned<ModelProvider>>();
  readonly #toolKinds = new Map<string, Owned<ToolKind>>();
  readonly #network = new Map<string, Owned<NetworkClientFactory>>();
  readonly #sections = new Map<string, Owned<SpecSection>>();
  /** Dispatch taps for kinds not registered yet when tapped: checked against the owner at `ready()`. */
  readonly #dispatchTaps: { kind: string; plugin: string }[] = [];
  /** Task bodies by kind (see the "Task bodies" section below). */
  readonly #bodies = new Map<string, Owned<TaskBody>>();
  #ready = false;

  /** Registers a plugin; `options` (a pack's, parsed by its optionsSchema) become its `api.options`. */
  register(plugin: PluginDefinition, source = 'builtin', options?: unknown): void {
    this.assertOpen(`plugin ${plugin?.name} registered after the host was ready`);
    validateIdentity(plugin);
    if (this.#plugins.has(plugin.name)) {
      throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `plugin ${plugin.name} is registered twice`);
    }
    if (!semverSatisfies(this.version, plugin.hostRange, { includePrerelease: true })) {
      throw new AgentctlError('AGENTCTL_E_PLUGIN_HOST_RANGE', `plugin ${plugin.name}@${plugin.version} supports host ${plugin.hostRange}, this host is ${this.version}`);
    }
    this.errorCodes.declare(plugin.name, plugin.errorCodes);
    const record: PluginRecord = {
      name: plugin.name,
      version: plugin.version,
      hostRange: plugin.hostRange,
      description: plugin.description ?? '',
      source,
      actionKinds: [],
      secretForms: [],
      isolationModes: [],
      providers: [],
      toolKinds: [],
      specSections: [],
      taskBodies: [],
      planEmitters: [],
      runReporters: [],
      memoryStores: [],
      network: false,
      errorCodes: Object.keys(plugin.errorCodes ?? {}),
    };
    this.#plugins.set(plugin.name, record);
    try {
      plugin.setup(pluginApi(this, record, options));
    } catch (error) {
      this.#plugins.delete(plugin.name);
      if (isPackSource(source)) throw packSetupFailure(plugin.name, error);
      const failure = this.errorCodes.normalize(error, plugin.name, 'setup');
      if (failure.code !== 'AGENTCTL_E_PLUGIN_FAILED') throw failure;
      // An unexpected throw at load is a configuration problem (exit 2), not a failed run.
      throw new AgentctlError('AGENTCTL_E_PLUGIN_SETUP', `plugin ${plugin.name} failed to set up: ${failure.message}`, {
        cause: error,
        diagnostics: failure.diagnostics.map((item) => ({ ...item, code: 'AGENTCTL_E_PLUGIN_SETUP', help: `fix or remove plugin ${plugin.name}` })),
      });
    }
  }

  /** Closes registration after checking that every dispatch tap belongs to its kind's owner. */
  ready(): this {
    // Once: the kinds' schemas gained the modes' option blocks, and a second pass would find them taken.
    if (this.#ready) return this;
    for (const { kind, plugin } of this.#dispatchTaps) this.assertOwner(kind, plugin);
    for (const [kind, { value, plugin }] of this.#bodies) if (!value.action) this.#assertBodyOwner(kind, plugin);
    // Isolation options: process kinds take the options block of every registered mode (isolation-options.ts).
    const modes = [...this.#isolation.values()].map((entry) => entry.value);
    for (const [name, entry] of this.#kinds) this.#kinds.set(name, { ...entry, value: withIsolationOptions(entry.value, modes) });
    this.#ready = true;
    this.#interception = composeInterception(this.interceptors, this.errorCodes);
    return this;
  }

  get isReady(): boolean {
    return this.#ready;
  }

  assertOpen(message: string): void {
    if (this.#ready) throw new AgentctlError('AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED', message);
  }

  plugins(): PluginRecord[] {
    return [...this.#plugins.values()];
  }

  /**
   * The taps of every hook in the order the hook calls them (tapable orders by stage, then by registration), with
   * the plugin that made each; keyed hooks are listed per key (`dispatch:KIND`, `secret:FORM`).
   */
  taps(): HookTap[] {
    const list = (hook: string, taps: readonly Record<string, unknown>[]) =>
      taps.map((tap) => ({ hook, plugin: String(tap.plugin ?? ''), name: String(tap.name), stage: Number(tap.stage ?? 0) }));
    const keyed = (prefix: string, map: unknown) =>
      [...((map as { _map: Map<string, { taps: Record<string, unknown>[] }> })._map ?? new Map()).entries()].flatMap(([key, hook]) => list(`${prefix}:${key}`, hook.taps));
    const { compile, policy, preflight, commit, dispatch, secretResolver } = this.hooks;
    return [
      ...list('compile', compile.taps as never),
      ...list('policy', policy.taps as never),
      ...list('preflight', preflight.taps as never),
      ...keyed('dispatch', dispatch),
      ...list('commit', commit.taps as never),
      ...keyed('secret', secretResolver),
    ];
  }

  /** A registered kind, or a task body's own kind (e.g. `agent`, which only the compiler writes). */
  actionKind(name: string): ActionKind<any, any> | undefined {
    return this.#kinds.get(name)?.value ?? this.#bodies.get(name)?.value.action;
  }

  /** A kind a workflow may name in `spec.actions`: a registered action kind, never a body's own. */
  declaredActionKind(name: string): ActionKind<any, any> | undefined {
    return this.#kinds.get(name)?.value;
  }

  /** The plugin that owns an action kind. */
  ownerOf(kind: string): string | undefined {
    return this.#kinds.get(kind)?.plugin;
  }

  actionKinds(): ActionKind<any, any>[] {
    return [...this.#kinds.values()].map((entry) => entry.value);
  }

  hasSecretForm(form: string): boolean {
    return this.#secretForms.has(form);
  }

  isolationMode(mode: string): IsolationMode | undefined {
    return this.#isolation.get(mode)?.value;
  }

  isolationModes(): string[] {
    return [...this.#isolation.keys()];
  }

  provider(kind: string): ModelProvider | undefined {
    return this.#providers.get(kind)?.value;
  }

  providers(): string[] {
    return [...this.#providers.keys()];
  }

  toolKind(kind: string): ToolKind | undefined {
    return this.#toolKinds.get(kind)?.value;
  }

  toolKinds(): string[] {
    return [...this.#toolKinds.keys()];
  }

  /** The plugin-owned `spec` sections (e.g. `mcpServers`), in registration order. */
  specSections(): SpecSection[] {
    return [...this.#sections.values()].map((entry) => entry.value);
  }

  specSection(key: string): SpecSection | undefined {
    return this.#sections.get(key)?.value;
  }

  /** The factory of the HTTP client under the network policy; undefined when no plugin registered one. */
  networkClientFactory(): NetworkClientFactory | undefined {
    const factory = this.#network.get('network')?.value;
    return factory && propagating(factory, this.#interception);
  }

  // Interceptors and propagation (docs/plugin-api.md#interceptors): plugins add to the chains until ready, when
  // they are composed once; the runner calls the composition.
  readonly interceptors = createInterceptorChains();
  #interception: Interception = NO_INTERCEPTION;

  /** The composed interceptor chains and propagation; empty until the host is ready. */
  get interception(): Interception {
    return this.#interception;
  }

  /** The process service handed to kinds: the registered isolation modes behind one interface. */
  readonly process = createProcessService(this);

  /** Throws unless `plugin` owns `kind` (a dispatch tap for another plugin's kind, or for no plugin's kind). */
  assertOwner(kind: string, plugin: string): void {
    const owner = this.#kinds.get(kind)?.plugin;
    if (owner === plugin) return;
    throw new AgentctlError(
      'AGENTCTL_E_PLUGIN_NOT_OWNER',
      owner ? `plugin ${plugin} tapped dispatch for ${kind}, which plugin ${owner} owns` : `plugin ${plugin} tapped dispatch for ${kind}, which no plugin registers`,
      { help: 'a plugin dispatches only the action kinds it registers; use the policy hook to restrict another kind' },
    );
  }

  /** Registers `value` under `key` for `plugin`; a second owner is refused naming both. */
  claim<T>(registry: Registry, key: string, value: T, plugin: string): void {
    const body = registry === 'kind' ? this.#bodies.get(key) : undefined;
    if (body?.value.action) this.#refuseSecondOwner('action kind', key, body.plugin, plugin);
    const maps = { kind: this.#kinds, isolation: this.#isolation, provider: this.#providers, tool: this.#toolKinds, network: this.#network, section: this.#sections };
    const map = maps[registry] as Map<string, Owned<T>>;
    const existing = map.get(key);
    if (existing) this.#refuseSecondOwner(REGISTRY_NAMES[registry], key, existing.plugin, plugin);
    if (registry === 'kind' && this.#isPack(plugin) && !packNamespaces(plugin).some((namespace) => key.startsWith(`${namespace}.`) && key.length > namespace.length + 1)) {
      const short = packNamespaces(plugin).at(-1)!;
      const message = `pack ${plugin} registers action kind ${key}; a pack's action kinds are named ${short}.NAME${short === plugin ? '' : ` (or ${plugin}.NAME)`}`;
      throw new AgentctlError('AGENTCTL_E_PACK_NAMESPACE', message, {
        diagnostics: [diagnostic('AGENTCTL_E_PACK_NAMESPACE', { message, plugin, hook: 'setup', help: namespaceHelp(short, key) })],
      });
    }
    map.set(key, { value, plugin });
  }

  claimSecretForm(form: string, plugin: string): void {
    const owner = this.#secretForms.get(form);
    if (owner) this.#refuseSecondOwner('secret form', form, owner, plugin);
    this.#secretForms.set(form, plugin);
  }

  /** A key has one owner: a pack that claims a taken key is refused with a pack code naming both plugins. */
  #refuseSecondOwner(what: string, key: string, owner: string, plugin: string): never {
    const message = `${what} ${key} is owned by plugin ${owner}; plugin ${plugin} cannot register it too`;
    if (!this.#isPack(plugin)) throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', message);
    throw new AgentctlError('AGENTCTL_E_PACK_CONFLICT', message, {
      diagnostics: [diagnostic('AGENTCTL_E_PACK_CONFLICT', { message, plugin, hook: 'setup', help: `remove pack ${plugin} or ${owner} from the config, or rename the ${what} in one of them` })],
    });
  }

  // Consumers of the public documents: plan emitters and run reporters, each keyed by its format.
  readonly #planEmitters = new Map<string, Owned<PlanEmitter>>();
  readonly #runReporters = new Map<string, Owned<RunReporter>>();

  /** Registers a plan emitter or run reporter under its format; a second owner is refused naming both. */
  claimFormat(registry: 'emitter' | 'reporter', format: string, value: PlanEmitter | RunReporter, plugin: string): void {
    const map = (registry === 'emitter' ? this.#planEmitters : this.#runReporters) as Map<string, Owned<PlanEmitter | RunReporter>>;
    const existing = map.get(format);
    if (existing) this.#refuseSecondOwner(registry === 'emitter' ? 'plan emitter' : 'run reporter', format, existing.plugin, plugin);
    map.set(format, { value, plugin });
  }

  planEmitter(format: string): PlanEmitter | undefined {
    return this.#planEmitters.get(format)?.value;
  }

  /** The formats `plan --emit` knows, sorted. */
  planEmitters(): string[] {
    return [...this.#planEmitters.keys()].sort();
  }

  runReporter(format: string): RunReporter | undefined {
    return this.#runReporters.get(format)?.value;
  }

  /** The formats `report --format` knows, sorted. */
  runReporters(): string[] {
    return [...this.#runReporters.keys()].sort();
  }

  // Long-term memory stores, keyed by the `provider` name `spec.memory.longTerm` gives.
  readonly #memoryStores = new Map<string, Owned<MemoryStoreProvider>>();

  /** Registers a memory store provider for `plugin`; a second owner of the name is refused naming both. */
  claimMemoryStore(store: MemoryStoreProvider, plugin: string): void {
    const existing = this.#memoryStores.get(store.provider);
    if (existing) this.#refuseSecondOwner('memory store', store.provider, existing.plugin, plugin);
    this.#memoryStores.set(store.provider, { value: store, plugin });
  }

  memoryStore(provider: string): MemoryStoreProvider | undefined {
    return this.#memoryStores.get(provider)?.value;
  }

  /** The registered memory store providers, sorted. */
  memoryStores(): string[] {
    return [...this.#memoryStores.keys()].sort();
  }

  /** Remembers a dispatch tap made before its kind was registered, to check at `ready()`. */
  deferOwnerCheck(kind: string, plugin: string): void {
    this.#dispatchTaps.push({ kind, plugin });
  }

  // Task bodies (issue 23 item 3): one body per kind; its kind is its plugin's action kind or the body's own.
  /** The body registered for `kind`; undefined means the default body (the kind's dispatch). */
  taskBody(kind: string): TaskBody | undefined {
    return this.#bodies.get(kind)?.value;
  }

  /** Registers `body` for `plugin`: a second body, or a body's own kind that another plugin registers, is refused. */
  claimTaskBody(body: TaskBody, plugin: string): void {
    const existing = this.#bodies.get(body.kind);
    if (existing) this.#refuseSecondOwner('task body', body.kind, existing.plugin, plugin);
    const kindOwner = this.#kinds.get(body.kind)?.plugin;
    if (body.action && kindOwner) this.#refuseSecondOwner('action kind', body.kind, kindOwner, plugin);
    if (!body.action && kindOwner !== undefined) this.#assertBodyOwner(body.kind, plugin);
    this.#bodies.set(body.kind, { value: body, plugin });
  }

  /** A body without its own kind runs an action kind its plugin registers (checked again at `ready()`). */
  #assertBodyOwner(kind: string, plugin: string): void {
    const owner = this.#kinds.get(kind)?.plugin;
    if (owner === plugin) return;
    throw new AgentctlError(
      'AGENTCTL_E_PLUGIN_NOT_OWNER',
      owner ? `plugin ${plugin} registers a task body for ${kind}, which plugin ${owner} owns` : `plugin ${plugin} registers a task body for ${kind}, which no plugin registers`,
      { help: 'a plugin registers bodies only for the action kinds it registers, or gives the body its own action kind' },
    );
  }

  /** The plugin's source, for the rules that apply to packs only. */
  #isPack(plugin: string): boolean {
    return isPackSource(this.#plugins.get(plugin)?.source ?? 'builtin');
  }
}

/** The client's requests get the propagators' headers; without a propagator, the factory is returned as it is. */
function propagating(factory: NetworkClientFactory, interception: Interception): NetworkClientFactory {
  const propagation = interception.propagation;
  if (!propagation) return factory;
  return (settings) => {
    const client = factory(settings);
    return Object.freeze({ check: client.check, request: (request: HttpRequest) => client.request(propagation.request(request)) });
  };
}

/** What a pack's setup threw, as AGENTCTL_E_PACK_SETUP; a conflict or namespace refusal keeps its own code. */
function packSetupFailure(plugin: string, error: unknown): AgentctlError {
  if (isAgentctlError(error) && String(error.code).startsWith('AGENTCTL_E_PACK_')) return error;
  const cause = isAgentctlError(error) ? `${error.code}: ${error.message}` : errorMessage(error);
  return new AgentctlError('AGENTCTL_E_PACK_SETUP', `pack ${plugin} failed to register: ${cause}`, {
    cause: error,
    diagnostics: [diagnostic('AGENTCTL_E_PACK_SETUP', { message: `pack ${plugin} failed to register: ${cause}`, plugin, hook: 'setup', help: `fix or remove pack ${plugin}; its setup must only register` })],
  });
}

function validateIdentity(plugin: PluginDefinition): void {
  const problems: string[] = [];
  if (typeof plugin !== 'object' || plugin === null) throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', 'a plugin must be an object made with definePlugin');
  if (typeof plugin.name !== 'string' || !PLUGIN_NAME.test(plugin.name)) problems.push('name must be an npm-style package name');
  if (typeof plugin.version !== 'string' || !validVersion(plugin.version)) problems.push('version must be a semver version');
  if (typeof plugin.hostRange !== 'string' || !validRange(plugin.hostRange)) problems.push('hostRange must be a semver range');
  if (typeof plugin.setup !== 'function') problems.push('setup must be a function');
  if (problems.length > 0) {
    throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${String(plugin.name)} is invalid: ${problems.join('; ')}`);
  }
}
