// The action kind of control tasks (the aggregate of a foreach, matrix or loop, a router, and the input and output
// boundaries of a sub-workflow invocation): the flow task body's own kind. The compiler gives each control task a
// synthetic action of this kind, so plan, policy preview and budgets see an ordinary task with no effects, and the
// flow body (body.ts) evaluates it instead of dispatching it.
import { z } from 'zod';
import { AgentctlError, type ActionKind } from '@agentctl/sdk';
import { FLOW_KIND, FLOW_PROFILE } from '../compiler/flow-action.js';

export const flowKind: ActionKind = Object.freeze({
  name: FLOW_KIND,
  description: 'A control task (foreach/matrix/loop aggregate, router, sub-workflow boundary), evaluated by the core.',
  actionSchema: z.strictObject({}),
  inputSchema: z.json(),
  effect: FLOW_PROFILE,
  describe: () => ({ effects: [] }),
  dispatch: async () => {
    throw new AgentctlError('AGENTCTL_E_INTERNAL', 'control tasks are evaluated by the flow task body, not dispatched');
  },
});
