// The action kind of control tasks: the aggregate of a foreach, matrix or loop, a router, and the input and output
// boundaries of a sub-workflow invocation. Like the agent kind it is the core's own: the compiler gives each control
// task a synthetic action of this kind, so plan, policy preview and budgets see an ordinary task with no effects, and
// the task runner evaluates it (control.ts) instead of dispatching it.
import { z } from 'zod';
import { AgentctlError, type ActionKind, type CompiledAction, type ControlNode, type EffectProfile } from '@agentctl/sdk';

export const FLOW_KIND = 'flow';

/** A control task reads recorded values and writes none: it is pure. */
export const FLOW_PROFILE: EffectProfile = { effectClass: 'pure', risk: 'low', idempotency: 'pure' };

/** The synthetic action of each control type (action names cannot contain ":"). */
export const flowActionName = (type: ControlNode['type']) => `flow:${type}`;

export function flowAction(type: ControlNode['type']): CompiledAction {
  return { name: flowActionName(type), kind: FLOW_KIND, fields: {}, profile: FLOW_PROFILE };
}

export const flowKind: ActionKind = Object.freeze({
  name: FLOW_KIND,
  description: 'A control task (foreach/matrix/loop aggregate, router, sub-workflow boundary), evaluated by the core.',
  actionSchema: z.strictObject({}),
  inputSchema: z.json(),
  effect: FLOW_PROFILE,
  describe: () => ({ effects: [] }),
  dispatch: async () => {
    throw new AgentctlError('AGENTCTL_E_INTERNAL', 'control tasks are evaluated by the core, not dispatched');
  },
});
