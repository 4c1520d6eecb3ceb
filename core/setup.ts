// Builds a ready host from an explicit plugin list. The list is composed in one place (core/cli/composition.ts).
import { Host } from './host.js';
import type { PluginDefinition } from '@agentctl/sdk';

/** A plugin and where it came from (`builtin`, `local`, or a pack source: `npm`, `path`), as `plugins list` shows it. */
export interface HostPlugin {
  readonly plugin: PluginDefinition;
  readonly source: string;
  /** A pack's options, parsed by its optionsSchema: the plugin's `api.options`. */
  readonly options?: unknown;
}

export interface HostOptions {
  /** Core observers that must be installed before registration closes (e.g. progress). */
  readonly configure?: (host: Host) => void;
}

/** Registers `plugins` in order, then closes registration. There is no default list. */
export function createHost(plugins: readonly HostPlugin[], options: HostOptions = {}): Host {
  const host = new Host();
  for (const { plugin, source, options: pluginOptions } of plugins) host.register(plugin, source, pluginOptions);
  options.configure?.(host);
  return host.ready();
}
