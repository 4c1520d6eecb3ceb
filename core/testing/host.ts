// The hosts of the test kit: the CLI's own composition (builtins, then the plugins under test), or a bare host holding
// only the plugins under test. Both are real hosts; tests see them through the narrow TestHost view, so the published
// declarations never name the core's classes.
import type { IsolationMode, ModelProvider, PluginDefinition, ToolKind } from '@agentctl/sdk';
import { composeHost } from '../cli/composition.js';

/** What a plugin registered, as `agentctl plugins list` shows it. */
export interface RegisteredPlugin {
  readonly name: string;
  readonly version: string;
  readonly hostRange: string;
  readonly description: string;
  /** `builtin`, or `path` for a plugin given to the test kit (registered as a pack). */
  readonly source: string;
  readonly actionKinds: readonly string[];
  readonly secretForms: readonly string[];
  readonly isolationModes: readonly string[];
  readonly providers: readonly string[];
  readonly toolKinds: readonly string[];
  readonly errorCodes: readonly string[];
}

/** A ready host as a test sees it: what is registered, and the registered contributions (wrapped as the host runs them). */
export interface TestHost {
  readonly version: string;
  plugins(): readonly RegisteredPlugin[];
  /** A registered provider kind, wrapped so that its errors name its plugin, as the host calls it. */
  provider(kind: string): ModelProvider | undefined;
  /** A registered tool kind, wrapped like a provider. */
  toolKind(kind: string): ToolKind | undefined;
  /** A registered isolation mode, wrapped like a provider. */
  isolationMode(mode: string): IsolationMode | undefined;
  hasSecretForm(form: string): boolean;
}

/**
 * A ready host with the builtins and `plugins`, registered after them as the CLI registers the config's packs: a kind
 * not named after its pack is refused (AGENTCTL_E_PACK_NAMESPACE), a kind a builtin owns too (AGENTCTL_E_PACK_CONFLICT),
 * and `api.options` is what the pack's optionsSchema makes of no options. Errors are thrown as the CLI reports them.
 */
export function createTestHost(plugins: readonly PluginDefinition[] = []): TestHost {
  return composeHost({ plugins, pluginsAsPacks: true });
}

/** A host with `plugins` registered as embedded plugins (`main(args, {plugins})`), not as packs: core's own tests. */
export function embeddedTestHost(plugins: readonly PluginDefinition[] = []): TestHost {
  return composeHost({ plugins });
}
