// Tasks of a workflow, from documents to compiled tasks, in two passes. The first checks each task document once where
// it is written (spec.tasks, and each spec.subworkflows definition): its `uses`, needs, templates, input and control
// constructs. The second expands the checked documents into the plan's tasks (expand.ts): foreach, matrix and loop
// children with their aggregate, routers, and sub-workflow invocations flattened into namespaced tasks.
import { canonicalJson, type CompiledAction, type CompiledCompensation, type EffectClass, type JsonValue } from '@agentctl/sdk';
import type { Host } from '../host.js';
import { checkInput, checkOutputSchema, checkTemplate, suggestion, workflowNames, type ReferenceScope, type Report } from './checks.js';
import type { SubworkflowDocument, TaskDocument } from './envelope.js';
import type { IndexedTask, WorkflowParts } from './partial.js';
import { readsUnreadable } from './sections.js';
import type { PathSegment } from './source.js';
import { templateStrings } from './templates.js';

/** The var names each construct binds in its children; a task's own vars may not use them. */
export function bindingNames(task: TaskDocument): string[] {
  if (task.foreach) return [task.foreach.as, 'foreachIndex'];
  if (task.matrix) return ['matrix', 'matrixIndex'];
  if (task.loop) return ['loopIndex', 'loopPrevious'];
  return [];
}

/** The loop guard may say `loop.output` for `vars.loopPrevious`. */
export const loopGuard = (text: string) => text.replace(/\$\{\{(\s*(?:not\s+)?)loop\.output(?=[\s.}=!<>])/g, '$${{$1vars.loopPrevious');

/** One graph of task documents: the workflow's own tasks, or one sub-workflow definition's. */
export interface Level {
  readonly path: PathSegment[];
  readonly tasks: readonly IndexedTask[];
  readonly ids: ReadonlySet<string>;
  readonly names: Pick<ReferenceScope, 'inputs' | 'inputsDeclared' | 'vars'>;
}

/** A task document after the first pass: what its `uses` names, when that resolved. */
export interface CheckedTask {
  readonly task: TaskDocument;
  readonly index: number;
  readonly path: PathSegment[];
  /** The action of `action:` and `agent:` tasks. */
  readonly action?: CompiledAction;
  /** The definition of `workflow:` tasks. */
  readonly workflow?: string;
  readonly router: boolean;
  /** The task's compiled `compensate`, copied to every task its document compiles to. */
  readonly compensate?: CompiledCompensation;
}

export interface TaskContext {
  readonly host: Host;
  readonly parts: WorkflowParts;
  readonly actions: Readonly<Record<string, CompiledAction>>;
  readonly report: Report;
}

/** The levels of a workflow: its own tasks first, then each sub-workflow definition. */
export function levelsOf(parts: WorkflowParts): { top: Level; definitions: Map<string, Level> } {
  const { envelope } = parts;
  const top: Level = { path: ['spec', 'tasks'], tasks: parts.tasks, ids: parts.ids, names: workflowNames(envelope) };
  const definitions = new Map<string, Level>();
  for (const [name, definition] of Object.entries(envelope.spec.subworkflows)) {
    definitions.set(name, {
      path: ['spec', 'subworkflows', name, 'tasks'],
      tasks: definition.tasks.map((task, index) => ({ task, index })),
      ids: new Set(definition.tasks.map((task) => task.id)),
      names: { inputs: definitionInputs(definition), inputsDeclared: `the inputSchema or inputs of sub-workflow ${name}`, vars: new Set(Object.keys(envelope.spec.vars)) },
    });
  }
  return { top, definitions };
}

/** Inputs a sub-workflow's templates may read: its schema's properties and its defaults. */
function definitionInputs(definition: SubworkflowDocument): Set<string> {
  const properties = definition.inputSchema.properties;
  const declared = properties !== null && typeof properties === 'object' && !Array.isArray(properties) ? Object.keys(properties) : [];
  return new Set([...declared, ...Object.keys(definition.inputs)]);
}

/** The first pass over one level: every problem is reported, and the tasks that can be expanded are returned. */
export function checkLevel(context: TaskContext, level: Level): Map<string, CheckedTask> {
  const { report } = context;
  const checked = new Map<string, CheckedTask>();
  const byId = new Map(level.tasks.map((entry) => [entry.task.id, entry.task]));
  const seen = new Set<string>();
  for (const { task, index } of level.tasks) {
    const path = [...level.path, index];
    const duplicate = seen.has(task.id);
    if (duplicate) report('AGENTCTL_E_DUPLICATE_TASK', [...path, 'id'], `task id "${task.id}" is used twice`);
    seen.add(task.id);
    const resolved = resolveUses(context, task, path);
    const needs = checkNeeds(task, level, path, report);
    const bindings = bindingNames(task);
    checkConstructs(task, path, bindings, report);
    const scope: ReferenceScope = { ...level.names, vars: new Set([...level.names.vars, ...Object.keys(task.vars ?? {}), ...bindings]), needs, taskIds: level.ids, owner: `task ${task.id}` };
    const templates = [...templateStrings(task.with)];
    for (const template of templates) checkTemplate(template.text, [...path, 'with', ...template.path], scope, report);
    if (resolved.action && !readsUnreadable(context.host, resolved.action.kind, context.parts.unreadableSections)) {
      checkInput(context.host, resolved.action, task.with, templates.map((template) => template.path), [...path, 'with'], report, context.parts.sections);
    }
    if (task.memoryWrites !== undefined && (task.uses === 'router' || task.uses.startsWith('workflow:'))) {
      report('AGENTCTL_E_MEMORY_WRITES_INVALID', [...path, 'memoryWrites'], `task ${task.id} ${task.uses === 'router' ? 'is a router' : `invokes ${task.uses}`} and writes no working memory of its own`, 'declare memoryWrites on the tasks that write');
    }
    const compensate = compileCompensate(context, task, path, scope);
    if (task.outputSchema !== undefined) checkOutputSchema(task.outputSchema as JsonValue, [...path, 'outputSchema'], report);
    wholeTemplate(task.when, [...path, 'when'], scope, 'when', report);
    if (task.loop) wholeTemplate(loopGuard(task.loop.while), [...path, 'loop', 'while'], scope, 'loop.while', report);
    if (task.route) {
      wholeTemplate(task.route.select, [...path, 'route', 'select'], scope, 'route.select', report);
      checkRoute(task, level.ids, byId, path, report);
    }
    // The rest of a duplicate is still checked; only the first of two equal ids is compiled.
    if (resolved.ok && !duplicate) checked.set(task.id, { task, index, path, router: task.uses === 'router', ...(resolved.action ? { action: resolved.action } : {}), ...(resolved.workflow ? { workflow: resolved.workflow } : {}), ...(compensate ? { compensate } : {}) });
  }
  return checked;
}

function resolveUses({ parts, actions, report }: TaskContext, task: TaskDocument, path: PathSegment[]): { ok: boolean; action?: CompiledAction; workflow?: string } {
  const spec = parts.envelope.spec;
  if (task.uses === 'router') {
    if (!task.route) report('AGENTCTL_E_ROUTER_INVALID', [...path, 'uses'], `task ${task.id} uses router but has no route`, 'add route: {select, cases, default}');
    return { ok: task.route !== undefined };
  }
  if (task.route) report('AGENTCTL_E_ROUTER_INVALID', [...path, 'route'], `task ${task.id} has a route but uses ${task.uses}`, 'only uses: router takes route');
  const [form, name] = task.uses.split(':') as [string, string];
  if (form === 'workflow') {
    if (Object.hasOwn(spec.subworkflows, name)) return { ok: true, workflow: name };
    report('AGENTCTL_E_UNKNOWN_ACTION', [...path, 'uses'], `task ${task.id} uses sub-workflow "${name}", which is not declared in spec.subworkflows`, suggestion(name, Object.keys(spec.subworkflows), 'declared sub-workflows', 'workflow:'));
    return { ok: false };
  }
  if (form === 'agent') {
    if (!Object.hasOwn(spec.agents, name)) report('AGENTCTL_E_UNKNOWN_ACTION', [...path, 'uses'], `task ${task.id} uses agent "${name}", which is not declared in spec.agents`, suggestion(name, Object.keys(spec.agents), 'declared agents', 'agent:'));
  } else if (!Object.hasOwn(spec.actions, name)) {
    report('AGENTCTL_E_UNKNOWN_ACTION', [...path, 'uses'], `task ${task.id} uses action "${name}", which is not declared in spec.actions`, suggestion(name, Object.keys(spec.actions), 'declared actions', 'action:'));
  }
  const key = form === 'agent' ? `agent:${name}` : name;
  const action = Object.hasOwn(actions, key) ? actions[key] : undefined;
  return action ? { ok: true, action } : { ok: false };
}

/** Effect classes that change nothing: an action of one of them cannot undo anything. */
const NO_CHANGE: ReadonlySet<EffectClass> = new Set(['pure', 'internal_state', 'observe']);

/**
 * A task's `compensate`: an effectful declared action whose `with` may read what the task's own `with` reads, and
 * the task's own output. Routers and sub-workflow invocations have no effects of their own to undo.
 */
function compileCompensate({ host, parts, actions, report }: TaskContext, task: TaskDocument, path: PathSegment[], scope: ReferenceScope): CompiledCompensation | undefined {
  const declared = task.compensate;
  if (!declared) return undefined;
  const where = [...path, 'compensate'];
  if (task.uses === 'router' || task.uses.startsWith('workflow:')) {
    const router = task.uses === 'router';
    report('AGENTCTL_E_COMPENSATION_INVALID', where, `task ${task.id} ${router ? 'is a router' : `invokes ${task.uses}`} and performs no effect of its own to compensate`, router ? 'declare compensate on the tasks the router selects' : 'declare compensate on the tasks of the sub-workflow');
    return undefined;
  }
  const name = declared.uses.slice('action:'.length);
  const declaredActions = parts.envelope.spec.actions;
  if (!Object.hasOwn(declaredActions, name)) {
    report('AGENTCTL_E_UNKNOWN_ACTION', [...where, 'uses'], `task ${task.id}'s compensate uses action "${name}", which is not declared in spec.actions`, suggestion(name, Object.keys(declaredActions), 'declared actions', 'action:'));
    return undefined;
  }
  const templates = [...templateStrings(declared.with)];
  const readable: ReferenceScope = { ...scope, needs: new Set([...scope.needs, task.id]), owner: `task ${task.id}'s compensate` };
  for (const template of templates) checkTemplate(template.text, [...where, 'with', ...template.path], readable, report);
  // An action whose own fields failed is reported where it is declared.
  const action = Object.hasOwn(actions, name) ? actions[name]! : undefined;
  if (!action) return undefined;
  if (NO_CHANGE.has(action.profile.effectClass)) {
    report('AGENTCTL_E_COMPENSATION_INVALID', [...where, 'uses'], `task ${task.id}'s compensate uses action ${name} (${action.kind}), whose effects are ${action.profile.effectClass}: it cannot undo anything`, 'name an action that changes what the task changed, e.g. a builtin.write or a process');
    return undefined;
  }
  checkInput(host, action, declared.with, templates.map((template) => template.path), [...where, 'with'], report);
  return { uses: declared.uses, action: action.name, kind: action.kind, with: declared.with as JsonValue, retry: declared.retry, ...(declared.timeoutSeconds === undefined ? {} : { timeoutSeconds: declared.timeoutSeconds }) };
}

function checkNeeds(task: TaskDocument, level: Level, path: PathSegment[], report: Report): Set<string> {
  const needs = new Set<string>();
  task.needs.forEach((need, needIndex) => {
    if (!level.ids.has(need)) report('AGENTCTL_E_UNKNOWN_DEPENDENCY', [...path, 'needs', needIndex], `task ${task.id} needs "${need}", which is not a task`, suggestion(need, level.ids, 'declared task ids'));
    else if (needs.has(need)) report('AGENTCTL_E_SCHEMA', [...path, 'needs', needIndex], `task ${task.id} lists "${need}" twice in needs`);
    needs.add(need);
  });
  return needs;
}

/** foreach, matrix, loop and route exclude each other (loop also excludes when); bindings cannot shadow task vars. */
function checkConstructs(task: TaskDocument, path: PathSegment[], bindings: readonly string[], report: Report): void {
  const present = (['foreach', 'matrix', 'loop', 'route'] as const).filter((field) => task[field] !== undefined);
  if (present.length > 1) report('AGENTCTL_E_EXPANSION_INVALID', [...path, present[1]!], `task ${task.id} combines ${present.join(' and ')}; a task takes at most one of foreach, matrix, loop and route`);
  if (task.loop && task.when !== undefined) report('AGENTCTL_E_EXPANSION_INVALID', [...path, 'when'], `task ${task.id} combines loop and when; the loop's while guard decides each iteration`);
  for (const name of bindings) {
    if (task.vars && Object.hasOwn(task.vars, name)) report('AGENTCTL_E_EXPANSION_INVALID', [...path, 'vars', name], `task ${task.id} declares var "${name}", which its ${present[0]} binds in each child`, 'rename the var');
  }
  if (task.foreach && task.foreach.items.length > task.foreach.maxItems) {
    report('AGENTCTL_E_EXPANSION_LIMIT', [...path, 'foreach', 'items'], `task ${task.id} has ${task.foreach.items.length} foreach items, more than its maxItems (${task.foreach.maxItems})`, 'raise foreach.maxItems (at most 256) or shorten the list');
  }
  if (task.matrix) {
    const size = Object.values(task.matrix.axes).reduce((product, values) => product * values.length, 1);
    if (size > task.matrix.maxItems) report('AGENTCTL_E_EXPANSION_LIMIT', [...path, 'matrix', 'axes'], `task ${task.id}'s matrix has ${size} cells, more than its maxItems (${task.matrix.maxItems})`, 'raise matrix.maxItems (at most 256) or remove axis values');
  }
  if (task.uses === 'router' && !isEmptyObject(task.with)) report('AGENTCTL_E_ROUTER_INVALID', [...path, 'with'], `router ${task.id} takes no with; its value is route.select`);
}

const isEmptyObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;

function wholeTemplate(text: string | undefined, path: PathSegment[], scope: ReferenceScope, what: string, report: Report): void {
  if (text === undefined) return;
  const parsed = checkTemplate(text, path, scope, report);
  if (parsed && !parsed.whole) report('AGENTCTL_E_TEMPLATE_SYNTAX', path, `${what} must be exactly one template, e.g. "\${{ inputs.enabled }}"`);
}

/** Destinations exist, are listed once, depend directly on the router; case values are distinct. */
function checkRoute(task: TaskDocument, ids: ReadonlySet<string>, byId: ReadonlyMap<string, TaskDocument>, path: PathSegment[], report: Report): void {
  const route = task.route!;
  const seen = new Set<string>();
  const values = new Set<string>();
  const destinations: [string, PathSegment[]][] = [
    ...route.cases.flatMap((entry, caseIndex) => entry.tasks.map((id, position): [string, PathSegment[]] => [id, [...path, 'route', 'cases', caseIndex, 'tasks', position]])),
    ...route.default.map((id, position): [string, PathSegment[]] => [id, [...path, 'route', 'default', position]]),
  ];
  route.cases.forEach((entry, caseIndex) => {
    const key = canonicalJson(entry.equals);
    if (values.has(key)) report('AGENTCTL_E_ROUTER_INVALID', [...path, 'route', 'cases', caseIndex, 'equals'], `router ${task.id} has two cases equal to ${key}`);
    values.add(key);
  });
  for (const [id, where] of destinations) {
    // A destination that failed its own schema is in ids but not in byId: its needs cannot be judged.
    const destination = byId.get(id);
    if (!ids.has(id)) report('AGENTCTL_E_ROUTER_INVALID', where, `router ${task.id} routes to "${id}", which is not a task`, suggestion(id, ids, 'declared task ids'));
    else if (id === task.id) report('AGENTCTL_E_ROUTER_INVALID', where, `router ${task.id} routes to itself`);
    else if (seen.has(id)) report('AGENTCTL_E_ROUTER_INVALID', where, `router ${task.id} lists "${id}" as a destination twice`, 'a destination belongs to one case (or the default)');
    else if (destination && !destination.needs.includes(task.id)) report('AGENTCTL_E_ROUTER_INVALID', where, `router ${task.id} routes to "${id}", which does not list ${task.id} in needs`, `add "${task.id}" to the needs of ${id}: a destination depends directly on its router`);
    seen.add(id);
  }
}

/** Checks a definition's own fields: its schemas and the templates of its output map. */
export function checkDefinition(name: string, definition: SubworkflowDocument, level: Level, report: Report): void {
  const path: PathSegment[] = ['spec', 'subworkflows', name];
  checkOutputSchema(definition.inputSchema as JsonValue, [...path, 'inputSchema'], report);
  checkOutputSchema(definition.outputSchema as JsonValue, [...path, 'outputSchema'], report);
  const scope: ReferenceScope = { ...level.names, needs: level.ids, taskIds: level.ids, owner: `sub-workflow ${name}'s outputs` };
  for (const template of templateStrings(definition.outputs)) checkTemplate(template.text, [...path, 'outputs', ...template.path], scope, report);
}
