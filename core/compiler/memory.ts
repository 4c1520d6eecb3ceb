// Working memory at compile time: each task's write set (its kind's literal keys, or its declared `memoryWrites`),
// the keys its reads may name (declared in spec.memory.working, or written by a task it depends on), and, when tasks
// may run at once, that no two unordered tasks write the same key.
import type { CompiledAction, CompiledTask, JsonValue, TaskNamespace } from '@agentctl/sdk';
import type { Host } from '../host.js';
import type { Report } from './checks.js';
import type { PathSegment } from './source.js';
import { parseTemplate, templateStrings, TemplateError } from './templates.js';

export interface MemoryContext {
  readonly host: Host;
  readonly actions: Readonly<Record<string, CompiledAction>>;
  /** `spec.memory.working`: the keys every task may read. */
  readonly working: Readonly<Record<string, JsonValue>>;
  readonly maxConcurrency: number;
  readonly outputs: Readonly<Record<string, JsonValue>>;
  /** Where each compiled task was written. */
  readonly sources: ReadonlyMap<string, PathSegment[]>;
  readonly report: Report;
}

/**
 * The working-memory keys of a sub-workflow invocation's tasks are its own: `memory.KEY` and a kind's key `KEY` there
 * mean `INVOCATION__KEY` (the invocation's compiled id with `-` as `_`, as the reference names them). Empty at the top.
 */
export function memoryPrefixOf(namespace: TaskNamespace | undefined): string {
  return namespace ? `${namespace.prefix.slice(0, -2).replaceAll('-', '_')}__` : '';
}

/** The tasks (in compiled order) with their write sets resolved; problems go to `report`. */
export function compileMemory(context: MemoryContext, ordered: readonly CompiledTask[]): CompiledTask[] {
  const tasks = ordered.map((task) => withWriteSet(context, task));
  const ancestors = ancestry(tasks);
  const initial = new Set(Object.keys(context.working));
  const writes = new Map(tasks.map((task) => [task.id, task.memoryWrites ?? []]));
  for (const task of tasks) {
    const provided = (key: string) => initial.has(key) || [...ancestors(task.id)].some((id) => writes.get(id)?.includes(key));
    for (const { key, path } of readsOf(context, task)) {
      if (!provided(key)) context.report('AGENTCTL_E_MEMORY_KEY_UNKNOWN', path, `task ${task.id} reads working-memory key "${key}", which spec.memory.working does not declare and no task it needs writes`, 'declare the key in spec.memory.working, or add the task that writes it to needs');
    }
  }
  const written = new Set([...initial, ...tasks.flatMap((task) => task.memoryWrites ?? [])]);
  for (const template of templateStrings(context.outputs)) {
    for (const key of memoryKeys(template.text)) {
      if (!written.has(key)) context.report('AGENTCTL_E_MEMORY_KEY_UNKNOWN', ['spec', 'outputs', ...template.path], `spec.outputs reads working-memory key "${key}", which spec.memory.working does not declare and no task writes`);
    }
  }
  if (context.maxConcurrency > 1) checkConflicts(context, tasks, ancestors);
  return tasks;
}

const pathOf = (context: MemoryContext, task: CompiledTask): PathSegment[] => context.sources.get(task.id) ?? ['spec', 'tasks'];

/** The task's write set: its kind's literal keys, checked against what it declares. */
function withWriteSet(context: MemoryContext, task: CompiledTask): CompiledTask {
  const declared = task.memoryWrites;
  const action = task.control ? undefined : context.actions[task.action];
  const kind = action ? context.host.actionKind(action.kind) : undefined;
  const where = [...pathOf(context, task), 'memoryWrites'];
  const { memoryWrites: _declared, ...rest } = task;
  if (!kind?.memoryWrites) {
    if (declared !== undefined) context.report('AGENTCTL_E_MEMORY_WRITES_INVALID', where, `task ${task.id} declares memoryWrites, but ${action ? `its kind ${action.kind}` : 'it'} writes no working memory`, 'remove memoryWrites; only tasks whose kind writes working memory take it');
    return rest;
  }
  const inferred = kind.memoryWrites(action!.fields, task.with);
  // The compiled set holds the keys as the run's memory names them: a sub-workflow task's under its invocation's prefix.
  const prefix = memoryPrefixOf(task.namespace);
  const compiled = (keys: readonly string[]) => [...new Set(keys)].map((key) => prefix + key).sort();
  if (declared === undefined) {
    if (inferred.dynamic) context.report('AGENTCTL_E_MEMORY_WRITES_INVALID', where, `task ${task.id} writes a working-memory key given by a template, and does not declare memoryWrites`, 'list every key the task may write: memoryWrites: [KEY, ...]');
    return inferred.keys.length > 0 ? { ...rest, memoryWrites: compiled(inferred.keys) } : rest;
  }
  for (const key of inferred.keys) {
    if (!declared.includes(key)) context.report('AGENTCTL_E_MEMORY_WRITES_INVALID', where, `task ${task.id} writes working-memory key "${key}", which its memoryWrites (${declared.join(', ')}) does not list`, `add "${key}" to memoryWrites`);
  }
  return { ...rest, memoryWrites: compiled(declared) };
}

/**
 * A task's transitive needs, found when first asked for and kept: only readers of a key the initial memory lacks and
 * writers that share a key ask, so a long chain of tasks that never touch memory costs nothing here.
 */
function ancestry(tasks: readonly CompiledTask[]): (id: string) => ReadonlySet<string> {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const found = new Map<string, Set<string>>();
  return (id) => {
    let set = found.get(id);
    if (set) return set;
    set = new Set<string>();
    const pending = [...(byId.get(id)?.needs ?? [])];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      if (set.has(next)) continue;
      set.add(next);
      pending.push(...(byId.get(next)?.needs ?? []));
    }
    found.set(id, set);
    return set;
  };
}

/** The `memory.KEY` roots a template text reads (none when it does not parse: the template check reports that). */
function memoryKeys(text: string): string[] {
  try {
    return parseTemplate(text).segments.flatMap((segment) => ('expression' in segment && segment.expression.path[0] === 'memory' && segment.expression.path[1] !== undefined ? [segment.expression.path[1]] : []));
  } catch (error) {
    if (error instanceof TemplateError) return [];
    throw error;
  }
}

/** What a task reads of working memory: its templates' `memory.KEY` and its kind's literal read keys. */
function readsOf(context: MemoryContext, task: CompiledTask): { key: string; path: PathSegment[] }[] {
  const base = pathOf(context, task);
  const prefix = memoryPrefixOf(task.namespace);
  const reads: { key: string; path: PathSegment[] }[] = [];
  for (const template of templateStrings(task.with)) for (const key of memoryKeys(template.text)) reads.push({ key, path: [...base, 'with', ...template.path] });
  if (task.when !== undefined) for (const key of memoryKeys(task.when)) reads.push({ key, path: [...base, 'when'] });
  const control = task.control as { select?: string; loop?: { while: string } } | undefined;
  for (const text of [control?.select, control?.loop?.while]) if (text !== undefined) for (const key of memoryKeys(text)) reads.push({ key, path: base });
  const action = task.control ? undefined : context.actions[task.action];
  const kind = action ? context.host.actionKind(action.kind) : undefined;
  for (const key of kind?.memoryReads?.(action!.fields, task.with) ?? []) reads.push({ key, path: [...base, 'with', 'key'] });
  return reads.map((read) => ({ ...read, key: prefix + read.key }));
}

/** Two tasks neither of which depends on the other may run at once: they must write disjoint keys. */
function checkConflicts(context: MemoryContext, tasks: readonly CompiledTask[], ancestors: (id: string) => ReadonlySet<string>): void {
  const writers = tasks.filter((task) => (task.memoryWrites ?? []).length > 0);
  for (let left = 0; left < writers.length; left += 1) {
    for (let right = left + 1; right < writers.length; right += 1) {
      const [first, second] = [writers[left]!, writers[right]!];
      const shared = first.memoryWrites!.filter((key) => second.memoryWrites!.includes(key));
      if (shared.length === 0 || ancestors(second.id).has(first.id) || ancestors(first.id).has(second.id)) continue;
      context.report(
        'AGENTCTL_E_MEMORY_WRITE_CONFLICT',
        pathOf(context, second),
        `tasks ${first.id} and ${second.id} may run at once (maxConcurrency ${context.maxConcurrency}, neither needs the other) and both write working-memory key${shared.length > 1 ? 's' : ''} ${shared.map((key) => `"${key}"`).join(', ')}`,
        `order them with needs (e.g. add "${first.id}" to the needs of ${second.id}), or give them disjoint keys`,
      );
    }
  }
}
