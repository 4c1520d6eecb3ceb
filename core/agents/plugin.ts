// The agent task body as a plugin: registered from the composition root beside the builtins, like any plugin.
import { definePlugin, type TaskBody } from '@agentctl/sdk';
import { HOST_VERSION } from '../version.js';
import { agentBody } from './body.js';

export default definePlugin({
  name: 'builtin.agent',
  version: HOST_VERSION,
  hostRange: '*',
  description: 'Runs agent tasks (uses: agent:NAME) with the agent loop.',
  // The body reads the runner's attempt internals (CoreBodyContext): a superset of the SDK's context.
  setup: (api) => api.registerTaskBody(agentBody as TaskBody),
});
