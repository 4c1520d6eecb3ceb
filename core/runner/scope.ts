// What a task's templates see: the run's inputs and vars, the task's own vars and bindings, and the outputs of the
// tasks it needs (a compensation task: the source tasks its declaration reads). A sub-workflow's tasks see their
// invocation's input boundary as `inputs` and their siblings by local id; templates can only read tasks in needs (the compiler checks), so those are all a scope has to map.
import type { CompiledPlan, CompiledTask, JsonValue } from '@agentctl/sdk';
import type { TemplateScope } from '../compiler/templates.js';
import { filesVars } from '../compiler/vars-files.js';
import { memoryPrefixOf } from '../compiler/memory.js';

export type Outputs = Readonly<Record<string, { readonly output: JsonValue }>>;

/** Per plan: the vars each list of variable files gives (`` for spec.vars' own files). */
const fromFiles = new WeakMap<CompiledPlan, Map<string, Readonly<Record<string, JsonValue>>>>();

function filesOf(plan: CompiledPlan, digests: readonly string[]): Readonly<Record<string, JsonValue>> {
  let cache = fromFiles.get(plan);
  if (!cache) fromFiles.set(plan, (cache = new Map()));
  const key = digests.join(',');
  let vars = cache.get(key);
  if (!vars) cache.set(key, (vars = filesVars(plan.capturedVars?.contents, digests)));
  return vars;
}

/** spec.vars as the run sees them: the plan's variable files (stored once, by digest) under its own vars. */
export function planVars(plan: CompiledPlan): Readonly<Record<string, JsonValue>> {
  if (!plan.varsFiles || plan.varsFiles.length === 0) return plan.vars;
  let cache = fromFiles.get(plan);
  if (!cache) fromFiles.set(plan, (cache = new Map()));
  let vars = cache.get('');
  if (!vars) cache.set('', (vars = { ...filesOf(plan, plan.varsFiles), ...plan.vars }));
  return vars;
}

/** A task's vars with its variable files' keys restored: what plans held before files were stored once. */
export function fullTaskVars(plan: CompiledPlan, task: CompiledTask): Readonly<Record<string, JsonValue>> | undefined {
  return task.varsFiles ? { ...filesOf(plan, task.varsFiles), ...task.vars } : task.vars;
}

/** `memory` is the task's working-memory snapshot (empty where nothing runs, e.g. a plan preview). */
export function taskScope(plan: CompiledPlan, task: CompiledTask, given: Outputs, memory: Readonly<Record<string, JsonValue>> = {}): TemplateScope {
  const outputs = compensationOutputs(task, given);
  let vars = planVars(plan);
  if (task.vars || task.bindings || task.varsFiles) {
    vars = { ...vars, ...(task.varsFiles ? filesOf(plan, task.varsFiles) : {}), ...task.vars };
    for (const [name, source] of Object.entries(task.bindings ?? {})) {
      if (Object.hasOwn(outputs, source)) (vars as Record<string, JsonValue>)[name] = outputs[source]!.output;
    }
  }
  const namespace = task.namespace;
  if (!namespace) return { inputs: plan.inputs, vars, memory, tasks: outputs };
  const tasks: Record<string, { output: JsonValue }> = {};
  for (const need of task.compensates?.reads ?? task.needs) {
    if (need.startsWith(namespace.prefix) && Object.hasOwn(outputs, need)) tasks[need.slice(namespace.prefix.length)] = outputs[need]!;
  }
  // A boundary's own input is rendered in the invoking scope: its namespace is the caller's, handled above.
  const boundary = Object.hasOwn(outputs, namespace.inputs) ? outputs[namespace.inputs]!.output : {};
  const inputs = boundary !== null && typeof boundary === 'object' && !Array.isArray(boundary) ? (boundary as Record<string, JsonValue>) : {};
  // An invocation's tasks see its own keys of working memory, by their local names.
  const prefix = memoryPrefixOf(namespace);
  const local = Object.fromEntries(Object.entries(memory).flatMap(([key, value]) => (key.startsWith(prefix) ? [[key.slice(prefix.length), value]] : [])));
  return { inputs, vars, memory: local, tasks };
}

/**
 * A compensation task renders its declaration in the source run's scope (the source outputs are in `outputs`): it
 * reads what the source task read, and names the source task by the id written in its document.
 */
function compensationOutputs(task: CompiledTask, outputs: Outputs): Outputs {
  const target = task.compensates;
  if (!target || !Object.hasOwn(outputs, target.taskId)) return outputs;
  const self = (task.namespace?.prefix ?? '') + target.self;
  return { ...outputs, [self]: outputs[target.taskId]! };
}
