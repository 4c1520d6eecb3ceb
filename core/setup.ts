// Builds a ready host: builtin plugins, then the core's own taps, then registration closes.
import { builtinPlugins } from '../builtins/index.js';
import { Host, type PluginDefinition } from './host.js';
import { installPolicyEngine } from './policy/engine.js';

export interface HostOptions {
  /** Extra plugins (tests, packs) registered after the builtins. */
  readonly plugins?: readonly PluginDefinition[];
  /** Core taps that must be installed before registration closes (e.g. progress). */
  readonly configure?: (host: Host) => void;
}

export function createHost(options: HostOptions = {}): Host {
  const host = new Host();
  for (const plugin of builtinPlugins) host.register(plugin, 'builtin');
  for (const plugin of options.plugins ?? []) host.register(plugin, 'local');
  installPolicyEngine(host.hooks);
  options.configure?.(host);
  return host.ready();
}
