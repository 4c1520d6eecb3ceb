// The plugin host: owns the hooks, registers plugins through tap-only facades, and closes registration when ready.
import semver from 'semver';
import type { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, Tap } from 'tapable';
import type { ActionKind, SecretResolver } from './contracts.js';
import { AgentctlError, wrapPluginError } from './errors.js';
import { createHooks, type Hooks } from './hooks.js';
import { HOST_VERSION } from './version.js';

type AnyHook =
  | AsyncSeriesWaterfallHook<any, any>
  | AsyncSeriesBailHook<any, any>
  | AsyncParallelHook<any>
  | AsyncSeriesHook<any>;

type TapOptions = string | (Omit<Tap, 'name'> & { name?: string });

/** What a plugin may do with a hook: add taps (synchronous or promise-returning). Calling hooks is the core's alone. */
export interface TapOnly<Args extends unknown[], Result> {
  tap(options: TapOptions, fn: (...args: Args) => Result): void;
  tapPromise(options: TapOptions, fn: (...args: Args) => Promise<Result>): void;
}

type ArgsOf<H> = H extends { promise(...args: infer A): Promise<any> } ? A : never;
type ResultOf<H> = H extends AsyncSeriesBailHook<any, infer R> ? R : H extends AsyncSeriesWaterfallHook<infer A, any> ? A extends [infer First, ...unknown[]] ? First : never : void;

/** The tap-only facade of hook type H. */
export type TapOnlyHook<H> = TapOnly<ArgsOf<H>, ResultOf<H>>;

/** The hooks as a plugin sees them. */
export interface PluginHooks {
  readonly compile: TapOnlyHook<Hooks['compile']>;
  readonly policy: TapOnlyHook<Hooks['policy']>;
  readonly preflight: TapOnlyHook<Hooks['preflight']>;
  readonly commit: TapOnlyHook<Hooks['commit']>;
  readonly dispatch: { for(kind: string): TapOnlyHook<ReturnType<Hooks['dispatch']['for']>> };
}

/** Handed to a plugin's `setup`. */
export interface PluginApi {
  readonly hostVersion: string;
  readonly hooks: PluginHooks;
  registerActionKind(kind: ActionKind<any, any>): void;
  registerSecretResolver(form: string, resolver: SecretResolver): void;
}

/** A plugin: identity, supported host versions and a setup function. */
export interface PluginDefinition {
  readonly name: string;
  readonly version: string;
  readonly hostRange: string;
  readonly description?: string;
  setup(api: PluginApi): void;
}

/** A registered plugin, as `agentctl plugins list` shows it. */
export interface PluginRecord {
  readonly name: string;
  readonly version: string;
  readonly hostRange: string;
  readonly description: string;
  readonly actionKinds: string[];
  readonly secretForms: string[];
  readonly source: string;
}

const PLUGIN_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** The plugin host: one per process invocation; no global registries. */
export class Host {
  readonly hooks: Hooks = createHooks();
  readonly version = HOST_VERSION;
  readonly #plugins = new Map<string, PluginRecord>();
  readonly #kinds = new Map<string, { kind: ActionKind<any, any>; plugin: string }>();
  readonly #secretForms = new Map<string, string>();
  #ready = false;

  register(plugin: PluginDefinition, source = 'builtin'): void {
    if (this.#ready) {
      throw new AgentctlError('AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED', `plugin ${plugin.name} registered after the host was ready`);
    }
    validateIdentity(plugin);
    if (this.#plugins.has(plugin.name)) {
      throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `plugin ${plugin.name} is registered twice`);
    }
    if (!semver.satisfies(this.version, plugin.hostRange, { includePrerelease: true })) {
      throw new AgentctlError(
        'AGENTCTL_E_PLUGIN_HOST_RANGE',
        `plugin ${plugin.name}@${plugin.version} supports host ${plugin.hostRange}, this host is ${this.version}`,
      );
    }
    const record: PluginRecord = {
      name: plugin.name,
      version: plugin.version,
      hostRange: plugin.hostRange,
      description: plugin.description ?? '',
      actionKinds: [],
      secretForms: [],
      source,
    };
    this.#plugins.set(plugin.name, record);
    try {
      plugin.setup(this.#api(record));
    } catch (error) {
      this.#plugins.delete(plugin.name);
      throw wrapPluginError(error, plugin.name, 'setup');
    }
  }

  /** Closes registration. Hooks stay tappable only through facades handed out before this point. */
  ready(): this {
    this.#ready = true;
    return this;
  }

  get isReady(): boolean {
    return this.#ready;
  }

  plugins(): PluginRecord[] {
    return [...this.#plugins.values()];
  }

  actionKind(name: string): ActionKind<any, any> | undefined {
    return this.#kinds.get(name)?.kind;
  }

  actionKinds(): ActionKind<any, any>[] {
    return [...this.#kinds.values()].map((entry) => entry.kind);
  }

  hasSecretForm(form: string): boolean {
    return this.#secretForms.has(form);
  }

  #api(record: PluginRecord): PluginApi {
    const guard = () => {
      if (this.#ready) throw new AgentctlError('AGENTCTL_E_PLUGIN_REGISTRATION_CLOSED', `plugin ${record.name} tapped a hook after the host was ready`);
    };
    const facade = <H extends AnyHook>(hook: H, hookName: string): TapOnlyHook<H> => {
      const tapPromise: TapOnlyHook<H>['tapPromise'] = (options, fn) => {
        guard();
        const tap = typeof options === 'string' ? { name: options } : { name: record.name, ...options };
        (hook as unknown as { tapPromise(tap: object, fn: (...args: unknown[]) => Promise<unknown>): void }).tapPromise(tap, async (...args: unknown[]) => {
          try {
            return await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
          } catch (error) {
            throw wrapPluginError(error, record.name, hookName);
          }
        });
      };
      // A synchronous tap runs through the same wrapper, so its errors name the plugin and hook too.
      const tap: TapOnlyHook<H>['tap'] = (options, fn) => tapPromise(options, async (...args) => (fn as (...a: unknown[]) => unknown)(...args) as never);
      return Object.freeze({ tap, tapPromise });
    };
    const hooks: PluginHooks = Object.freeze({
      compile: facade(this.hooks.compile, 'compile'),
      policy: facade(this.hooks.policy, 'policy'),
      preflight: facade(this.hooks.preflight, 'preflight'),
      commit: facade(this.hooks.commit, 'commit'),
      dispatch: Object.freeze({ for: (kind: string) => facade(this.hooks.dispatch.for(kind), `dispatch:${kind}`) }),
    });
    return Object.freeze({
      hostVersion: this.version,
      hooks,
      registerActionKind: (kind: ActionKind<any, any>) => {
        guard();
        if (this.#kinds.has(kind.name)) {
          throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `action kind ${kind.name} is provided by ${this.#kinds.get(kind.name)!.plugin} and ${record.name}`);
        }
        this.#kinds.set(kind.name, { kind, plugin: record.name });
        record.actionKinds.push(kind.name);
        hooks.dispatch.for(kind.name).tapPromise({ name: record.name }, (context) => kind.dispatch(context as never));
      },
      registerSecretResolver: (form: string, resolver: SecretResolver) => {
        guard();
        if (this.#secretForms.has(form)) {
          throw new AgentctlError('AGENTCTL_E_PLUGIN_DUPLICATE', `secret form ${form} is provided by ${this.#secretForms.get(form)} and ${record.name}`);
        }
        this.#secretForms.set(form, record.name);
        record.secretForms.push(form);
        facade(this.hooks.secretResolver.for(form), `secret:${form}`).tapPromise({ name: record.name }, resolver);
      },
    });
  }
}

function validateIdentity(plugin: PluginDefinition): void {
  const problems: string[] = [];
  if (typeof plugin.name !== 'string' || !PLUGIN_NAME.test(plugin.name)) problems.push('name must be an npm-style package name');
  if (typeof plugin.version !== 'string' || !semver.valid(plugin.version)) problems.push('version must be a semver version');
  if (typeof plugin.hostRange !== 'string' || !semver.validRange(plugin.hostRange)) problems.push('hostRange must be a semver range');
  if (typeof plugin.setup !== 'function') problems.push('setup must be a function');
  if (problems.length > 0) {
    throw new AgentctlError('AGENTCTL_E_PLUGIN_INVALID', `plugin ${String(plugin.name)} is invalid: ${problems.join('; ')}`);
  }
}
