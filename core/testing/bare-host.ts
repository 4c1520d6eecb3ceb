// A ready host holding only the plugins under test, for the testers of one contribution (a provider kind, a secret
// form). Internal to the kit: its type is the core's Host, which the published declarations never name.
import type { PluginDefinition } from '@agentctl/sdk';
import { Host } from '../host.js';

export function bareHost(plugins: readonly PluginDefinition[]): Host {
  const host = new Host();
  for (const plugin of plugins) host.register(plugin, 'local');
  return host.ready();
}
