// builtin.network: the HTTP client every provider and HTTP action goes through, enforcing spec.policy.network.
import { definePlugin } from '@agentctl/sdk';
import { createNetworkClient } from './client.js';

export default definePlugin({
  name: 'builtin.network',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'HTTP under the network policy: allowlisted hosts, schemes and ports, DNS pinned, no private addresses, no redirects.',
  setup(api) {
    api.registerNetworkClient((settings) => createNetworkClient(settings));
  },
});
