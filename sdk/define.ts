// One-contribution plugins: each helper wraps one provider kind, secret form, isolation mode or tool kind into a
// PluginDefinition, as defineActionKind does for an action kind. The registration goes through the same PluginApi
// call a hand-written `setup` would make, so the host's ownership and identity checks apply unchanged.
import type { IsolationMode } from './isolation.js';
import type { PluginApi, PluginDefinition } from './plugin.js';
import type { ModelProvider } from './provider.js';
import type { SecretResolver } from './secrets.js';
import type { ToolKind } from './tools.js';

/** The plugin identity a one-contribution definition carries beside what it contributes. */
export interface ContributionIdentity {
  /** A semver version. */
  readonly version: string;
  /** The semver range of agentctl versions it supports. */
  readonly hostRange: string;
  /** Plugin name; defaults to the contribution's key (the provider kind, secret form, isolation mode or tool kind). */
  readonly plugin?: string;
  /** The plugin's own error codes (see PluginDefinition.errorCodes). */
  readonly errorCodes?: PluginDefinition['errorCodes'];
  /** Extra registration that belongs with the contribution, e.g. a preflight tap. */
  setup?(api: PluginApi): void;
}

/** A model provider kind plus the plugin identity that registers it. */
export interface ProviderDefinition extends ModelProvider, ContributionIdentity {}

/** A secret reference form (the reference's one key, e.g. `vault`) and the resolver of its values. */
export interface SecretResolverDefinition extends ContributionIdentity {
  /** The reference's key: `{vault: ...}` is form `vault`. */
  readonly form: string;
  readonly description: string;
  /** Resolves one reference of this form; throws an AgentctlError (e.g. AGENTCTL_E_SECRET_MISSING) when it cannot. */
  readonly resolve: SecretResolver;
}

/** An isolation mode plus the plugin identity that registers it. */
export interface IsolationDefinition extends IsolationMode, ContributionIdentity {}

/** A tool kind plus the plugin identity that registers it. */
export interface ToolDefinition extends ToolKind, ContributionIdentity {}

/** The secret form a defineSecretResolver plugin registers, for tests that call the resolver directly. */
export interface SecretResolverContribution {
  readonly form: string;
  readonly resolve: SecretResolver;
}

const IDENTITY_KEYS = ['version', 'hostRange', 'plugin', 'errorCodes', 'setup'] as const;

/** Splits a definition into the frozen contribution and the plugin that registers it. */
function wrap<Definition extends ContributionIdentity & { readonly description?: string }, Contribution>(
  definition: Definition,
  key: string,
  contribution: Contribution,
  register: (api: PluginApi, contribution: Contribution) => void,
): PluginDefinition {
  const { version, hostRange, plugin, setup, errorCodes } = definition;
  return {
    name: plugin ?? key,
    version,
    hostRange,
    description: definition.description,
    ...(errorCodes ? { errorCodes } : {}),
    setup(api: PluginApi) {
      register(api, contribution);
      setup?.(api);
    },
  };
}

/** The contribution's own fields: the definition without the plugin identity. */
function contributionOf<T extends object>(definition: T & ContributionIdentity): T {
  const rest = { ...definition } as Record<string, unknown>;
  for (const key of IDENTITY_KEYS) delete rest[key];
  return Object.freeze(rest) as T;
}

/** Declares a model provider kind (the `kind` of a `spec.providers` entry) as a plugin of its own. */
export function defineProvider(definition: ProviderDefinition): PluginDefinition & { readonly provider: ModelProvider } {
  const provider = contributionOf<ModelProvider>(definition);
  return Object.freeze({ ...wrap(definition, definition.kind, provider, (api, value) => api.registerProvider(value)), provider });
}

/** Declares the resolver of one secret reference form as a plugin of its own. */
export function defineSecretResolver(definition: SecretResolverDefinition): PluginDefinition & { readonly secretResolver: SecretResolverContribution } {
  const secretResolver: SecretResolverContribution = Object.freeze({ form: definition.form, resolve: definition.resolve });
  return Object.freeze({ ...wrap(definition, definition.form, secretResolver, (api, value) => api.registerSecretResolver(value.form, value.resolve)), secretResolver });
}

/** Declares an isolation mode (the `isolation` of a process action) as a plugin of its own. */
export function defineIsolation(definition: IsolationDefinition): PluginDefinition & { readonly isolation: IsolationMode } {
  const isolation = contributionOf<IsolationMode>(definition);
  return Object.freeze({ ...wrap(definition, definition.mode, isolation, (api, value) => api.registerIsolation(value)), isolation });
}

/** Declares a tool kind (the `kind` of a `spec.tools` entry) as a plugin of its own. */
export function defineTool(definition: ToolDefinition): PluginDefinition & { readonly tool: ToolKind } {
  const tool = contributionOf<ToolKind>(definition);
  return Object.freeze({ ...wrap(definition, definition.kind, tool, (api, value) => api.registerToolKind(value)), tool });
}
