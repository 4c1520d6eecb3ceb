// Control tasks, evaluated by the core from recorded values with no effect: the aggregate of a foreach, matrix or
// loop, a router's decision, and the typed boundaries of a sub-workflow invocation. Their outputs are ordinary task
// outputs, so resume, retry, repair and replay treat them like any other task.
import { isDeepStrictEqual } from 'node:util';
import { AgentctlError, jsonSchemaProblems, type CompiledTask, type ControlNode, type JsonValue } from '@agentctl/sdk';
import { renderString, renderValue, TemplateError, type TemplateScope } from '../compiler/templates.js';
import type { Store } from '../store/store.js';

export interface ControlRequest {
  readonly task: CompiledTask;
  readonly scope: TemplateScope;
  readonly store: Store;
  readonly runId: string;
}

/** The output of a control task; a broken contract throws an AgentctlError. */
export function evaluateControl({ task, scope, store, runId }: ControlRequest): JsonValue {
  const node = task.control!;
  switch (node.type) {
    case 'aggregate':
      return aggregate(task, node, scope, store, runId);
    case 'router':
      return decide(node, scope);
    case 'boundary':
      return boundary(task, node, scope);
  }
}

type Aggregate = Extract<ControlNode, { type: 'aggregate' }>;

/** `{items}` in child order, each with its state, output and error; a loop adds `iterations`. */
function aggregate(task: CompiledTask, node: Aggregate, scope: TemplateScope, store: Store, runId: string): JsonValue {
  const rows = new Map(store.taskRows(runId).map((row) => [String(row.task_id), row]));
  const items = node.children.map((child, index) => {
    const row = rows.get(child);
    const state = row ? String(row.state) : 'pending';
    const output = state === 'succeeded' ? (JSON.parse(String(row!.output_json ?? 'null')) as JsonValue) : null;
    const recorded = row?.error_json ? (JSON.parse(String(row.error_json)) as { code?: string; message?: string }) : undefined;
    const error = recorded ? { code: recorded.code ?? null, message: recorded.message ?? null } : null;
    return { index, taskId: child, state, output, error };
  });
  if (!node.loop) return { items };
  const iterations = items.filter((item) => item.state !== 'skipped').length;
  const last = items[items.length - 1];
  // Every iteration ran: the guard is asked once more, and a loop that would go on fails closed.
  if (iterations === node.loop.maxIterations && last?.state === 'succeeded') {
    const vars = { ...scope.vars, loopIndex: node.loop.maxIterations, loopPrevious: last.output };
    const more = renderString(node.loop.while, { ...scope, vars });
    if (more === true) {
      throw new AgentctlError('AGENTCTL_E_LOOP_LIMIT', `loop ${task.id}: the while condition is still true after ${node.loop.maxIterations} iterations (maxIterations)`, {
        help: 'raise loop.maxIterations (at most 64), or make the body reach the condition that ends the loop',
      });
    }
    if (typeof more !== 'boolean') throw new TemplateError(`loop.while must evaluate to a boolean, got ${JSON.stringify(more)}`);
  }
  return { iterations, items };
}

type Router = Extract<ControlNode, { type: 'router' }>;

/** The first case whose value equals the selected one (JSON identity: 1 is not "1"), else the default. */
function decide(node: Router, scope: TemplateScope): JsonValue {
  const selected = renderString(node.select, scope);
  const match = node.cases.find((entry) => isDeepStrictEqual(entry.equals, selected));
  return { selected, matched: match !== undefined, destinations: [...(match ? match.tasks : node.default)] };
}

/** Whether a router selected a destination, read from its recorded output. */
export function routeSkip(task: CompiledTask, routerOutput: JsonValue | undefined): JsonValue | undefined {
  if (!task.route) return undefined;
  const decision = (routerOutput ?? {}) as { selected?: JsonValue; destinations?: unknown };
  if (Array.isArray(decision.destinations) && decision.destinations.includes(task.route.destination)) return undefined;
  return { reason: 'not selected by its router', router: task.route.router, selected: decision.selected ?? null };
}

type Boundary = Extract<ControlNode, { type: 'boundary' }>;

/** The invocation's input over the definition's defaults, or its output map, checked against the definition's schema. */
function boundary(task: CompiledTask, node: Boundary, scope: TemplateScope): JsonValue {
  const rendered = renderValue(task.with, scope);
  const isObject = rendered !== null && typeof rendered === 'object' && !Array.isArray(rendered);
  const value = node.role === 'input' && isObject ? { ...node.defaults, ...(rendered as Record<string, JsonValue>) } : rendered;
  const problems = jsonSchemaProblems(node.schema, value);
  if (problems.length === 0) return value;
  const [code, what] = node.role === 'input' ? (['AGENTCTL_E_SUBWORKFLOW_INPUT_INVALID', 'input'] as const) : (['AGENTCTL_E_SUBWORKFLOW_OUTPUT_INVALID', 'output'] as const);
  throw new AgentctlError(code, `task ${task.id}: the ${what} of sub-workflow ${node.workflow}@${node.version} does not match its ${what}Schema: ${problems.join('; ')}`);
}
