// The plugin host: owns the hooks and the keyed registries (action kinds, secret forms, isolation modes), registers
// plugins through tap-only facades, enforces one owner per key, and closes registration when ready.
import semver from 'semver';
import { AgentctlError, type ActionKind, type IsolationMode, type ModelProvider, type NetworkClientFactory, type PluginApi, type PluginDefinition, type ToolKind } from '../sdk/index.js';
import { AGENT_KIND, agentKind } from './agents/kind.js';
import { FLOW_KIND, flowKind } from './flow/kind.js';
import { createHooks, type Hooks } from './hooks.js';
import { pluginApi, type PluginRecord, type PluginRegistrar } from './plugin-api.js';
import { ErrorCodeRegistry } from './plugin-errors.js';
import { createProcessService } from './process-service.js';
import { HOST_VERSION } from './version.js';

/** The kinds that are agentctl's own: agent tasks and control tasks. */
const CORE_KINDS: ReadonlyMap<string, ActionKind<any, any>> = new Map<string, ActionKind<any, any>>([
  [AGENT_KIND, agentKind],
  [FLOW_KIND, flowKind],
]);

/** The keyed registries; each key has exactly one owning plugin. */
export type Registry = 'kind' | 'isolation' | 'provider' | 'tool' | 'network';
const REGISTRY_NAMES: Record<Registry, string> = { kind: 'action kind', isolation: 'isolation mode', provider: 'provider kind', tool: 'tool kind', network: 'the network client' };

/** One owner per key: what a plugin registered, by key. */
export type { PluginRecord };

export interface Owned<T> {
  readonly value: T;
  readonly plugin: string;
}

const PLUGIN_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

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
  /** Dispatch taps for kinds not registered yet when tapped: checked against the owner at `ready()`. */
  readonly #dispatchTaps: { kind: string; plugin: string }[] = [];
  #ready = false;

  register(plugin: PluginDefinition, source = 'builtin'): void {
    this.assertOpen(`plugin ${plugin?.name} registered after the host was ready`);
    validateIdentity(plugin);
    if (this.#plugins.has(plugin.name)) {
      throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `plugin ${plugin.name} is registered twice`);
    }
    if (!semver.satisfies(this.version, plugin.hostRange, { includePrerelease: true })) {
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
      network: false,
      errorCodes: Object.keys(plugin.errorCodes ?? {}),
    };
    this.#plugins.set(plugin.name, record);
    try {
      plugin.setup(this.#api(record));
    } catch (error) {
      this.#plugins.delete(plugin.name);
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
    for (const { kind, plugin } of this.#dispatchTaps) this.assertOwner(kind, plugin);
    this.#ready = true;
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

  /** A registered kind, or one of the core's own kinds, `agent` and `flow` (which no plugin can register or dispatch). */
  actionKind(name: string): ActionKind<any, any> | undefined {
    return this.#kinds.get(name)?.value ?? CORE_KINDS.get(name);
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

  /** The factory of the HTTP client under the network policy; undefined when no plugin registered one. */
  networkClientFactory(): NetworkClientFactory | undefined {
    return this.#network.get('network')?.value;
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
    if (registry === 'kind' && CORE_KINDS.has(key)) throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `action kind ${key} is agentctl's own (${key === AGENT_KIND ? 'uses: agent:NAME' : 'control tasks'}); plugin ${plugin} cannot register it`);
    const maps = { kind: this.#kinds, isolation: this.#isolation, provider: this.#providers, tool: this.#toolKinds, network: this.#network };
    const map = maps[registry] as Map<string, Owned<T>>;
    const existing = map.get(key);
    if (existing) {
      const what = REGISTRY_NAMES[registry];
      throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `${what} ${key} is owned by plugin ${existing.plugin}; plugin ${plugin} cannot register it too`);
    }
    map.set(key, { value, plugin });
  }

  claimSecretForm(form: string, plugin: string): void {
    const owner = this.#secretForms.get(form);
    if (owner) throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `secret form ${form} is owned by plugin ${owner}; plugin ${plugin} cannot register it too`);
    this.#secretForms.set(form, plugin);
  }

  /** Remembers a dispatch tap made before its kind was registered, to check at `ready()`. */
  deferOwnerCheck(kind: string, plugin: string): void {
    this.#dispatchTaps.push({ kind, plugin });
  }

  #api(record: PluginRecord): PluginApi {
    return pluginApi(this, record);
  }
}

function validateIdentity(plugin: PluginDefinition): void {
  const problems: string[] = [];
  if (typeof plugin !== 'object' || plugin === null) throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', 'a plugin must be an object made with definePlugin');
  if (typeof plugin.name !== 'string' || !PLUGIN_NAME.test(plugin.name)) problems.push('name must be an npm-style package name');
  if (typeof plugin.version !== 'string' || !semver.valid(plugin.version)) problems.push('version must be a semver version');
  if (typeof plugin.hostRange !== 'string' || !semver.validRange(plugin.hostRange)) problems.push('hostRange must be a semver range');
  if (typeof plugin.setup !== 'function') problems.push('setup must be a function');
  if (problems.length > 0) {
    throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${String(plugin.name)} is invalid: ${problems.join('; ')}`);
  }
}
