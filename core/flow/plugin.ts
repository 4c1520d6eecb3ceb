// The flow task body as a plugin: registered from the composition root beside the builtins, like any plugin.
import { definePlugin, type TaskBody } from '@agentctl/sdk';
import { HOST_VERSION } from '../version.js';
import { flowBody } from './body.js';

export default definePlugin({
  name: 'builtin.flow',
  version: HOST_VERSION,
  hostRange: '*',
  description: 'Evaluates control tasks (foreach, matrix and loop aggregates, routers, sub-workflow boundaries).',
  // The body reads the task's scope and ledger (CoreBodyContext): a superset of the SDK's context.
  setup: (api) => api.registerTaskBody(flowBody as TaskBody),
});
