// The second pass: checked task documents become the plan's tasks. Every construct compiles to ordinary durable tasks
// before anything runs, so no model output or run-time value can grow the graph:
// - foreach and matrix: one child per item or cell (`PARENT--0000-DIGEST`), then the parent as a pure aggregate;
// - loop: maxIterations iterations, each needing the one before and guarded by `while`, then the aggregate;
// - router: a pure task whose destinations run only when selected;
// - workflow:NAME: an input boundary (`INVOCATION--inputs-DIGEST`), the definition's tasks namespaced
//   `INVOCATION--LOCAL`, and the invocation id as the output boundary. Nested invocations flatten the same way.
import { createHash } from 'node:crypto';
import { canonicalJson, type CompiledTask, type ControlNode, type JsonValue, type TaskExpansion, type TaskNamespace } from '@agentctl/sdk';
import { flowAction, FLOW_PROFILE } from './flow-action.js';
import type { Report } from './checks.js';
import type { SubworkflowDocument } from './envelope.js';
import { formatPath, type PathSegment } from './source.js';
import { loopGuard, type CheckedTask } from './tasks.js';

/**
 * Bounds of the expansion, checked while it runs: a few lines of definitions that each invoke the next twice would
 * otherwise compile to millions of tasks (and gigabytes) before any other check could count them.
 */
export const EXPANSION_BOUNDS = {
  /** Sub-workflow invocations nested inside each other (an invocation at the top level is depth 1). */
  subworkflowDepth: 8,
  /** Compiled tasks of one plan: children, aggregates, boundaries and control tasks included. */
  tasks: 10_000,
} as const;

/** Stops the whole expansion once a bound is crossed; the diagnostic is already reported. */
class ExpansionStopped extends Error {}

/** A checked level: its documents in order, the ones that passed the first pass by id. */
export interface CheckedLevel {
  readonly order: readonly string[];
  readonly checked: ReadonlyMap<string, CheckedTask>;
}

export interface ExpansionInput {
  readonly top: CheckedLevel;
  readonly definitions: ReadonlyMap<string, { readonly level: CheckedLevel; readonly document: SubworkflowDocument }>;
  readonly report: Report;
}

export interface Expanded {
  readonly tasks: CompiledTask[];
  /** Where each compiled task was written: the document path of the task (or invocation) it came from. */
  readonly sources: ReadonlyMap<string, PathSegment[]>;
  readonly expansionItems: number;
  readonly loopIterations: number;
}

/** Where tasks are being compiled: at the top, or inside (nested) sub-workflow invocations. */
interface Frame {
  readonly prefix: string;
  readonly namespace?: TaskNamespace;
  /** Every task of an invocation needs its input boundary. */
  readonly boundary?: string;
  /** Definitions being expanded, outermost first: one seen again is a cycle. */
  readonly stack: readonly string[];
  /** The top-level document position the tasks are located at. */
  readonly index?: number;
  readonly path?: PathSegment[];
}

/** What one body (a child, or the task itself) is compiled with. */
interface Body {
  readonly id: string;
  readonly needs: readonly string[];
  readonly vars?: Record<string, JsonValue>;
  readonly bindings?: Record<string, string>;
  readonly when?: string;
  readonly expansion?: TaskExpansion;
}

const digest8 = (value: JsonValue) => createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 8);
const childId = (parent: string, index: number, binding: JsonValue) => `${parent}--${String(index).padStart(4, '0')}-${digest8(binding)}`;

export function expandTasks(input: ExpansionInput): Expanded {
  const tasks: CompiledTask[] = [];
  const sources = new Map<string, PathSegment[]>();
  const counts = { expansionItems: 0, loopIterations: 0 };
  const emit = (task: CompiledTask, path: PathSegment[]) => {
    if (tasks.length >= EXPANSION_BOUNDS.tasks) {
      const written = formatPath(path);
      input.report('AGENTCTL_E_PLAN_TOO_LARGE', path, `the workflow compiles to more than ${EXPANSION_BOUNDS.tasks} tasks; the limit was crossed while expanding ${written}`, `compile fewer tasks: shorten foreach lists and matrix axes, or invoke sub-workflows fewer times (each invocation copies the definition's tasks)`);
      throw new ExpansionStopped();
    }
    tasks.push(task);
    if (!sources.has(task.id)) sources.set(task.id, path);
  };

  const expandLevel = (level: CheckedLevel, frame: Frame): void => {
    // Destinations carry their router, compiled: they run only when it selects them.
    const routes = new Map<string, { router: string; destination: string }>();
    for (const entry of level.checked.values()) {
      const route = entry.task.route;
      if (!entry.router || !route) continue;
      for (const local of [...route.cases.flatMap((item) => item.tasks), ...route.default]) routes.set(local, { router: frame.prefix + entry.task.id, destination: frame.prefix + local });
    }
    for (const id of new Set(level.order)) {
      const entry = level.checked.get(id);
      if (entry) expandTask(entry, frame, routes.get(id));
    }
  };

  const expandTask = (entry: CheckedTask, frame: Frame, route: { router: string; destination: string } | undefined): void => {
    const { task } = entry;
    const id = frame.prefix + task.id;
    const needs = [...task.needs.map((need) => frame.prefix + need), ...(frame.boundary ? [frame.boundary] : [])];
    const path = frame.path ?? entry.path;
    const index = frame.index ?? entry.index;
    const shared = {
      index,
      uses: task.uses,
      retry: task.retry,
      failure: task.failure,
      ...(task.timeoutSeconds === undefined ? {} : { timeoutSeconds: task.timeoutSeconds }),
      ...(frame.namespace ? { namespace: frame.namespace } : {}),
      ...(route ? { route } : {}),
      // The digests of the files under the task's vars: the plan stores their keys once, not in every task.
      ...(task.vars && task.varsFiles && task.varsFiles.length > 0 ? { varsFiles: task.varsFiles } : {}),
    };
    const control = (taskId: string, taskNeeds: readonly string[], node: ControlNode, extra: Partial<CompiledTask> = {}): CompiledTask => {
      const action = flowAction(node.type);
      return { ...shared, id: taskId, action: action.name, kind: action.kind, needs: [...taskNeeds], with: {}, profile: FLOW_PROFILE, control: node, ...(task.vars ? { vars: task.vars } : {}), ...extra };
    };

    // One body: the task itself, or one child of its expansion.
    const body = (spec: Body): void => {
      const vars = spec.vars ?? task.vars;
      const common = {
        ...shared,
        needs: [...spec.needs],
        ...(spec.when === undefined ? {} : { when: spec.when }),
        ...(vars ? { vars } : {}),
        ...(spec.bindings ? { bindings: spec.bindings } : {}),
        ...(spec.expansion ? { expansion: spec.expansion } : {}),
      };
      if (entry.workflow) {
        invoke(entry, spec, common, frame, path, index);
        return;
      }
      if (entry.router) {
        const routeSpec = task.route!;
        const node: ControlNode = {
          type: 'router',
          select: routeSpec.select,
          cases: routeSpec.cases.map((item) => ({ equals: item.equals as JsonValue, tasks: item.tasks.map((local) => frame.prefix + local) })),
          default: routeSpec.default.map((local) => frame.prefix + local),
        };
        emit(control(spec.id, spec.needs, node, common), path);
        return;
      }
      const action = entry.action!;
      emit(
        {
          ...common,
          id: spec.id,
          action: action.name,
          kind: action.kind,
          with: task.with as JsonValue,
          ...(task.outputSchema === undefined ? {} : { outputSchema: task.outputSchema as JsonValue }),
          // As declared: compileMemory resolves the task's write set from it and its kind's literal keys.
          ...(task.memoryWrites === undefined ? {} : { memoryWrites: task.memoryWrites }),
          profile: action.profile,
          ...(entry.compensate ? { compensate: entry.compensate } : {}),
        },
        path,
      );
    };

    const aggregate = (form: TaskExpansion['form'], children: string[], loop?: { while: string; maxIterations: number }) =>
      emit(control(id, [...needs, ...children], { type: 'aggregate', form, children, ...(loop ? { loop } : {}) }), path);

    if (task.foreach) {
      const { items, as } = task.foreach;
      const children = items.map((item, position) => {
        const binding = { [as]: item as JsonValue, foreachIndex: position };
        const child = childId(id, position, binding);
        body({ id: child, needs, vars: { ...task.vars, ...binding }, ...(task.when === undefined ? {} : { when: task.when }), expansion: { parent: id, form: 'foreach', index: position, binding: item as JsonValue } });
        return child;
      });
      counts.expansionItems += children.length;
      aggregate('foreach', children);
      return;
    }
    if (task.matrix) {
      const children = matrixCells(task.matrix.axes as Record<string, JsonValue[]>).map((cell, position) => {
        const binding = { matrix: cell, matrixIndex: position };
        const child = childId(id, position, binding);
        body({ id: child, needs, vars: { ...task.vars, ...binding }, ...(task.when === undefined ? {} : { when: task.when }), expansion: { parent: id, form: 'matrix', index: position, binding: cell } });
        return child;
      });
      counts.expansionItems += children.length;
      aggregate('matrix', children);
      return;
    }
    if (task.loop) {
      const guard = loopGuard(task.loop.while);
      const children: string[] = [];
      for (let iteration = 0; iteration < task.loop.maxIterations; iteration += 1) {
        const previous = children[iteration - 1];
        const child = childId(id, iteration, { loopIndex: iteration });
        body({
          id: child,
          needs: previous === undefined ? needs : [...needs, previous],
          vars: { ...task.vars, loopIndex: iteration, ...(previous === undefined ? { loopPrevious: task.loop.initial as JsonValue } : {}) },
          ...(previous === undefined ? {} : { bindings: { loopPrevious: previous } }),
          when: guard,
          expansion: { parent: id, form: 'loop', index: iteration, binding: iteration },
        });
        children.push(child);
      }
      counts.loopIterations += task.loop.maxIterations;
      aggregate('loop', children, { while: guard, maxIterations: task.loop.maxIterations });
      return;
    }
    body({ id, needs, ...(task.when === undefined ? {} : { when: task.when }) });
  };

  const invoke = (entry: CheckedTask, spec: Body, common: Partial<CompiledTask>, frame: Frame, path: PathSegment[], index: number): void => {
    const name = entry.workflow!;
    const definition = input.definitions.get(name);
    if (!definition) return;
    if (frame.stack.includes(name)) {
      input.report('AGENTCTL_E_SUBWORKFLOW_INVALID', [...entry.path, 'uses'], `sub-workflows invoke each other in a cycle: ${[...frame.stack, name].join(' → ')}`, 'a sub-workflow cannot invoke itself, directly or through another');
      return;
    }
    if (frame.stack.length >= EXPANSION_BOUNDS.subworkflowDepth) {
      input.report('AGENTCTL_E_SUBWORKFLOW_DEPTH', [...entry.path, 'uses'], `sub-workflow invocations nest more than ${EXPANSION_BOUNDS.subworkflowDepth} deep: ${[...frame.stack, name].join(' → ')}`, `invoke sub-workflows at most ${EXPANSION_BOUNDS.subworkflowDepth} levels deep: inline a level into the definition that invokes it`);
      throw new ExpansionStopped();
    }
    const { document } = definition;
    const boundary = `${spec.id}--inputs-${digest8(entry.task.with as JsonValue)}`;
    const inputNode: ControlNode = { type: 'boundary', role: 'input', workflow: name, version: document.version, schema: document.inputSchema as JsonValue, defaults: document.inputs as Record<string, JsonValue> };
    const action = flowAction('boundary');
    const boundaryTask = { ...common, id: boundary, action: action.name, kind: action.kind, with: entry.task.with as JsonValue, profile: FLOW_PROFILE, control: inputNode } as CompiledTask;
    emit(boundaryTask, path);
    const namespace: TaskNamespace = { prefix: `${spec.id}--`, inputs: boundary, workflow: name };
    const before = tasks.length;
    expandLevel(definition.level, { prefix: namespace.prefix, namespace, boundary, stack: [...frame.stack, name], index, path });
    const inner = tasks.slice(before).map((task) => task.id);
    const outputNode: ControlNode = { type: 'boundary', role: 'output', workflow: name, version: document.version, schema: document.outputSchema as JsonValue };
    const { when: _when, bindings: _bindings, ...rest } = common;
    emit(
      {
        ...rest,
        id: spec.id,
        action: action.name,
        kind: action.kind,
        needs: [boundary, ...inner],
        with: document.outputs as JsonValue,
        profile: FLOW_PROFILE,
        namespace,
        control: outputNode,
        ...(entry.task.outputSchema === undefined ? {} : { outputSchema: entry.task.outputSchema as JsonValue }),
      } as CompiledTask,
      path,
    );
  };

  try {
    expandLevel(input.top, { prefix: '', stack: [] });
  } catch (error) {
    if (!(error instanceof ExpansionStopped)) throw error;
    // A partial plan would only add spurious diagnostics (missing needs, counts): the bound is the problem.
    return { tasks: [], sources, expansionItems: 0, loopIterations: 0 };
  }
  return { tasks, sources, ...counts };
}

/** Cells of the Cartesian product: axes by name, each in its declared order, the first axis outermost. */
export function matrixCells(axes: Readonly<Record<string, readonly JsonValue[]>>): Record<string, JsonValue>[] {
  let cells: Record<string, JsonValue>[] = [{}];
  for (const name of Object.keys(axes).sort()) {
    cells = cells.flatMap((cell) => axes[name]!.map((value) => ({ ...cell, [name]: value })));
  }
  return Object.keys(axes).length === 0 ? [] : cells;
}
