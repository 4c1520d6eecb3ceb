// The plugin API: what a plugin is, what its setup receives, and the helpers that define plugins and action kinds.
import type { z } from 'zod';
import type { ActionKind, DispatchContext } from './action-kind.js';
import type { PlanEmitter, RunReporter } from './consumers.js';
import type { CommitEvent, CompileContext, PreflightContext } from './hooks.js';
import type { Interceptor, Propagator } from './interceptors.js';
import type { IsolationMode } from './isolation.js';
import type { JsonValue } from './json.js';
import type { MemoryStoreProvider } from './long-term-memory.js';
import type { NetworkClientFactory } from './network.js';
import type { CompiledPlan } from './plan.js';
import type { PolicyRequest, PolicyStage, PolicyVote } from './policy.js';
import type { ModelProvider } from './provider.js';
import type { SecretResolver } from './secrets.js';
import type { SpecSection } from './spec-section.js';
import type { TaskBody } from './task-body.js';
import type { ToolKind } from './tools.js';

/** How a tap names itself; the plugin's name is used when only options without a name are given. */
export type TapOptions = string | { readonly name?: string };

/** What a plugin may do with a hook: add taps (synchronous or promise-returning). Calling hooks is the core's alone. */
export interface TapOnly<Args extends unknown[], Result> {
  tap(options: TapOptions, fn: (...args: Args) => Result): void;
  tapPromise(options: TapOptions, fn: (...args: Args) => Promise<Result>): void;
}

/** Options of a policy tap: a name, and one of the exported stage names (default `default`). */
export type PolicyTapOptions = string | { readonly name?: string; readonly stage?: PolicyStage };

/**
 * The policy hook as a plugin sees it. A tap returns a vote (`deny` or `needs_approval`) or nothing. An `allow` is
 * no verdict: the core's checks always run first, and the most restrictive of all answers wins. A tap that throws
 * denies the effect.
 */
export interface PolicyHook {
  tap(options: PolicyTapOptions, fn: (request: PolicyRequest) => PolicyVote | undefined): void;
  tapPromise(options: PolicyTapOptions, fn: (request: PolicyRequest) => Promise<PolicyVote | undefined>): void;
}

/** The hooks as a plugin sees them: tap sides only. */
export interface PluginHooks {
  /** Transform or reject the compiled plan. A throw rejects the workflow (exit 2). */
  readonly compile: TapOnly<[plan: CompiledPlan, context: CompileContext], CompiledPlan>;
  /** Tighten policy: deny, or require approval. */
  readonly policy: PolicyHook;
  /** Check prerequisites before any run state exists; `context.report` or a throw aborts. */
  readonly preflight: TapOnly<[context: PreflightContext], void>;
  /** Observe a fact after its durable commit; a throw is reported as a warning and never undoes the commit. */
  readonly commit: TapOnly<[event: CommitEvent], void>;
  /** Dispatch taps for an action kind this plugin owns; tapping another plugin's kind is refused at load. */
  readonly dispatch: { for(kind: string): TapOnly<[context: DispatchContext], JsonValue | undefined> };
}

/** Handed to a plugin's `setup`. Registration closes when the host is ready. */
export interface PluginApi {
  readonly hostVersion: string;
  readonly hooks: PluginHooks;
  /**
   * This plugin's options: what the project config gave it (`packs: [{name, options}]`), parsed by the plugin's
   * `optionsSchema` (so defaults are applied). `undefined` for a plugin without `optionsSchema`.
   */
  readonly options: unknown;
  /** Registers an action kind owned by this plugin; a kind has exactly one owner. */
  registerActionKind(kind: ActionKind<any, any>): void;
  /** Registers the resolver of one secret reference form (the reference's key, e.g. `env`). */
  registerSecretResolver(form: string, resolver: SecretResolver): void;
  /** Registers an isolation mode (e.g. `process`) that the host's process service runs processes with. */
  registerIsolation(mode: IsolationMode): void;
  /** Registers a model provider kind (e.g. `openai`), the `kind` of a `spec.providers` entry. */
  registerProvider(provider: ModelProvider): void;
  /** Registers a long-term memory store (e.g. `sqlite`), the `provider` of `spec.memory.longTerm`; one owner per name. */
  registerMemoryStore(store: MemoryStoreProvider): void;
  /** Registers a tool kind (e.g. `builtin.workspace.read`), the `kind` of a `spec.tools` entry. */
  registerToolKind(tool: ToolKind): void;
  /** Registers the factory of the HTTP client that enforces the network policy; there is exactly one. */
  registerNetworkClient(factory: NetworkClientFactory): void;
  /**
   * Registers a top-level `spec` section (e.g. `mcpServers`) owned by this plugin: the compiler parses it with the
   * section's schema and the compiled plan carries it in `sections`. A key of the core's own sections is refused.
   */
  registerSpecSection(section: SpecSection<any>): void;

  // Interceptors and propagation (docs/plugin-api.md#interceptors).
  /**
   * Registers wrappers around each effect's perform and each dispatch of an action kind. Interceptors run in plugin
   * registration order, the first registered outermost; each must return what its `next` returned.
   */
  registerInterceptor(interceptor: Interceptor): void;
  /**
   * Registers a propagator: environment entries (declared by name) for the processes tasks start, and headers for the
   * HTTP requests they make. A name another propagator declares is refused; what the workflow or the request sets wins.
   */
  registerPropagator(propagator: Propagator): void;
  // Task bodies (issue 23 item 3)
  /**
   * Registers the body that runs tasks of one kind (e.g. an agent loop, or a task that asks a person): a kind has at
   * most one body, and its kind is one this plugin registers or the body's own `action`. Without a body, a task runs
   * through its action kind's dispatch.
   */
  registerTaskBody(body: TaskBody): void;
  // Consumers of the public documents (plan emitters, run reporters)
  /** Registers a plan emitter, the format `agentctl plan FILE --emit FORMAT --out DIR` names; one owner per format. */
  registerPlanEmitter(emitter: PlanEmitter<any>): void;
  /** Registers a run reporter, the format `agentctl report RUN --format FORMAT` names; one owner per format. */
  registerRunReporter(reporter: RunReporter): void;
}

/** Exit codes a plugin's own error codes may map to: usage 2, policy 3, run failed 4, persistence 5, remote 6. */
export type PluginExitCode = 2 | 3 | 4 | 5 | 6;

/** The declaration of one of a plugin's own error codes. */
export interface ErrorCodeDeclaration {
  readonly exitCode: PluginExitCode;
  /** One line: what the code means. */
  readonly description: string;
}

/** A plugin: identity, supported host versions, its own error codes and a setup function. */
export interface PluginDefinition {
  /** An npm-style package name. */
  readonly name: string;
  /** A semver version. */
  readonly version: string;
  /** The semver range of agentctl versions it supports. */
  readonly hostRange: string;
  readonly description?: string;
  /**
   * The plugin's own error codes, each starting with `errorCodePrefix(name)`. A code the plugin raises without
   * declaring it is reported as AGENTCTL_E_PLUGIN. Core codes (AGENTCTL_E_*) need no declaration.
   */
  readonly errorCodes?: Readonly<Record<string, ErrorCodeDeclaration>>;
  /**
   * The zod schema of the options a project config may give this plugin when it is loaded as a pack. The host
   * parses the configured options (`undefined` when none are given) with it before `setup`, refuses the pack when
   * they do not match (AGENTCTL_E_PACK_OPTIONS), and hands the parsed value to `setup` as `api.options`. A pack
   * without a schema takes no options.
   */
  readonly optionsSchema?: z.ZodType;
  setup(api: PluginApi): void;
}

/** The prefix of a plugin's own error codes: its name in upper case, other characters as `_`, then `_E_`. */
export function errorCodePrefix(pluginName: string): string {
  return `${pluginName.replace(/^@/, '').replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}_E_`;
}

/** Declares a plugin. The host checks the identity, the host range and the error codes when it is registered. */
export function definePlugin(definition: PluginDefinition): PluginDefinition {
  return Object.freeze({ ...definition });
}

/** An action kind plus the plugin identity that registers it. */
export interface ActionKindDefinition<ActionSchema extends z.ZodType, InputSchema extends z.ZodType> extends ActionKind<ActionSchema, InputSchema> {
  readonly version: string;
  readonly hostRange: string;
  /**
   * Plugin name; defaults to the kind's namespace, the part of its name before the last dot (`mypack` for
   * `mypack.upper`), which is the name a pack's kinds must start with. A kind without a dot names the plugin whole.
   */
  readonly plugin?: string;
  readonly errorCodes?: PluginDefinition['errorCodes'];
  /** Extra registration, e.g. policy taps that belong with this kind. */
  setup?(api: PluginApi): void;
}

/** The namespace of a kind name: what comes before its last dot (the whole name when it has none). */
const kindNamespace = (kind: string): string => (kind.includes('.') ? kind.slice(0, kind.lastIndexOf('.')) : kind);

/**
 * Declares an action kind as a plugin of its own. The kind's schemas are zod schemas: TypeScript types are inferred
 * from them, and `agentctl schema` publishes them.
 */
export function defineActionKind<ActionSchema extends z.ZodType, InputSchema extends z.ZodType>(
  definition: ActionKindDefinition<ActionSchema, InputSchema>,
): PluginDefinition & { readonly kind: ActionKind<ActionSchema, InputSchema> } {
  const { version, hostRange, plugin, setup, errorCodes, ...kind } = definition;
  const frozenKind = Object.freeze(kind) as ActionKind<ActionSchema, InputSchema>;
  return Object.freeze({
    name: plugin ?? kindNamespace(definition.name),
    version,
    hostRange,
    description: definition.description,
    ...(errorCodes ? { errorCodes } : {}),
    kind: frozenKind,
    setup(api: PluginApi) {
      api.registerActionKind(frozenKind);
      setup?.(api);
    },
  });
}
