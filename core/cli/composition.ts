// The composition root: the one module that names the builtin plugins. Every command builds its host here, and so
// does the test kit; packs from the project config will be added here too.
import { builtinPlugins } from '../../builtins/index.js';
import type { PluginDefinition } from '../../sdk/index.js';
import type { Host } from '../host.js';
import { createHost, type HostOptions } from '../setup.js';

export interface CompositionOptions extends HostOptions {
  /** Plugins registered after the builtins (tests, local plugins). */
  readonly plugins?: readonly PluginDefinition[];
}

/** The host every command uses: the builtins, then any extra plugins. */
export function composeHost(options: CompositionOptions = {}): Host {
  return createHost(
    [...builtinPlugins.map((plugin) => ({ plugin, source: 'builtin' })), ...(options.plugins ?? []).map((plugin) => ({ plugin, source: 'local' }))],
    options.configure ? { configure: options.configure } : {},
  );
}

/** How a command builds its host; the CLI entry binds the extra plugins once. */
export type Compose = (options?: HostOptions) => Host;

/** A Compose that always adds `plugins` after the builtins. */
export function composer(plugins: readonly PluginDefinition[] = []): Compose {
  return (options = {}) => composeHost({ ...options, plugins });
}
