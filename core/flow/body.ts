// The flow task body: evaluates a control task from recorded values (runner/control.ts). It is pure: no deadline,
// effect, budget or retry, and its recorded input digest is the plain one.
import type { JsonValue } from '@agentctl/sdk';
import { FLOW_KIND } from '../compiler/flow-action.js';
import { evaluateControl } from '../runner/control.js';
import type { CoreBodyContext, CoreTaskBody } from '../runner/task-body.js';
import { flowKind } from './kind.js';

export const flowBody: CoreTaskBody = Object.freeze({
  kind: FLOW_KIND,
  description: 'Evaluates control tasks: foreach/matrix/loop aggregates, routers, sub-workflow boundaries.',
  action: flowKind,
  pure: true,
  run: async ({ task, scope, store, run }: CoreBodyContext): Promise<JsonValue> => evaluateControl({ task, scope, store, runId: run.id }),
});
