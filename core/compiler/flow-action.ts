// The synthetic action the compiler gives each control task (a foreach, matrix or loop aggregate, a router, a
// sub-workflow boundary). The flow task body (core/flow/) evaluates those tasks; its kind is only a key here.
import type { CompiledAction, ControlNode, EffectProfile } from '@agentctl/sdk';

/** The kind of a control task's synthetic action: the key of the flow task body. */
export const FLOW_KIND = 'flow';

/** A control task reads recorded values and writes none: it is pure. */
export const FLOW_PROFILE: EffectProfile = { effectClass: 'pure', risk: 'low', idempotency: 'pure' };

/** The synthetic action of each control type (action names cannot contain ":"). */
export const flowActionName = (type: ControlNode['type']) => `flow:${type}`;

export function flowAction(type: ControlNode['type']): CompiledAction {
  return { name: flowActionName(type), kind: FLOW_KIND, fields: {}, profile: FLOW_PROFILE };
}
