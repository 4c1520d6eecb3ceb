// The cut of a compiled plan for scale-out: the tasks every shard needs first (prepare), the items of one
// foreach/matrix with the tasks that depend only on their item, and everything else (gather). Pure: plan in, cut out.
import { MAX_SHARDS, type CompiledPlan, type CompiledTask, type PlanStages } from '@agentctl/sdk';

/** Why a plan cannot be split (`reason.code` of an unshardable cut). */
export type UnshardableCode = 'no_fanout' | 'single_item' | 'items_depend_on_each_other' | 'fanout_not_found';

/** The largest number of shards a plan is split into (`--shards`, `--shard I/N`): the SDK's, which emitters check too. */
export { MAX_SHARDS };

export interface CutOptions {
  /** The aggregate id of the expansion to cut (`--fanout TASK`); absent: the one with the most items. */
  readonly fanout?: string;
  /** The shard count (`--shards N`): adds the assignment of items to shards. */
  readonly shards?: number;
}

interface Expansion {
  readonly aggregate: string;
  readonly construct: 'foreach' | 'matrix';
  /** How many items it has (a child that invokes a sub-workflow is several tasks of one item). */
  readonly items: number;
}

/** Every foreach and matrix expansion of the plan, in the plan order of their first child (loops are never cut). */
export function expansionsOf(plan: CompiledPlan): Expansion[] {
  const found = new Map<string, { construct: 'foreach' | 'matrix'; indices: Set<number> }>();
  for (const task of plan.tasks) {
    const expansion = task.expansion;
    if (!expansion || expansion.form === 'loop') continue;
    const entry = found.get(expansion.parent) ?? { construct: expansion.form, indices: new Set<number>() };
    entry.indices.add(expansion.index);
    found.set(expansion.parent, entry);
  }
  return [...found].map(([aggregate, entry]) => ({ aggregate, construct: entry.construct, items: entry.indices.size }));
}

/** What a task waits for: its needs and the tasks its run-time bindings read. */
const upstreamOf = (task: CompiledTask): string[] => [...task.needs, ...Object.values(task.bindings ?? {})];

/** The stages of `plan`, cut at the chosen expansion; an unshardable plan says why in `reason`. */
export function cutPlan(plan: CompiledPlan, options: CutOptions = {}): PlanStages {
  const expansions = expansionsOf(plan);
  const refuse = (code: UnshardableCode, message: string): PlanStages => ({
    shardable: false,
    reason: { code, message },
    fanout: null,
    prepare: [],
    items: [],
    gather: plan.tasks.map((task) => task.id),
    shards: options.shards ?? null,
    assignment: null,
  });
  let chosen: Expansion | undefined;
  if (options.fanout !== undefined) {
    chosen = expansions.find((expansion) => expansion.aggregate === options.fanout);
    if (!chosen) {
      const names = expansions.map((expansion) => expansion.aggregate);
      return refuse('fanout_not_found', `task ${options.fanout} is not the aggregate of a foreach or matrix${names.length > 0 ? ` (this plan has: ${names.join(', ')})` : ' (this plan has none)'}`);
    }
  } else {
    // The most items wins; a tie goes to the first in plan order (the sort is stable).
    chosen = [...expansions].sort((a, b) => b.items - a.items)[0];
    if (!chosen) return refuse('no_fanout', `workflow ${plan.name} has no foreach or matrix to split`);
  }
  if (chosen.items < 2) return refuse('single_item', `${chosen.construct} ${chosen.aggregate} has ${chosen.items} item(s): there is nothing to split`);
  const aggregate = chosen.aggregate;
  const itemOfChild = (task: CompiledTask) => (task.expansion?.parent === aggregate ? task.expansion.index : undefined);

  // The items each task depends on, itself included (plan order is topological: needs are seen first).
  const reached = new Map<string, Set<number>>();
  for (const task of plan.tasks) {
    const items = new Set<number>();
    const own = itemOfChild(task);
    if (own !== undefined) items.add(own);
    for (const id of upstreamOf(task)) for (const item of reached.get(id) ?? []) items.add(item);
    if (own !== undefined && items.size > 1) {
      const other = [...items].find((item) => item !== own)!;
      return refuse('items_depend_on_each_other', `item ${own} of ${chosen.construct} ${aggregate} waits for item ${other} (task ${task.id}): its items cannot run apart`);
    }
    reached.set(task.id, items);
  }
  // Prepare: what the children wait for, transitively, that depends on no item.
  const prepare = new Set<string>();
  const pending = plan.tasks.filter((task) => itemOfChild(task) !== undefined).flatMap(upstreamOf);
  const byId = new Map(plan.tasks.map((task) => [task.id, task]));
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (prepare.has(id) || (reached.get(id)?.size ?? 0) > 0) continue;
    prepare.add(id);
    const task = byId.get(id);
    if (task) pending.push(...upstreamOf(task));
  }
  // An item: its children, and each task that waits only for that item's tasks and prepare.
  const itemOf = new Map<string, number>();
  for (const task of plan.tasks) {
    const own = itemOfChild(task);
    if (own !== undefined) {
      itemOf.set(task.id, own);
      continue;
    }
    const items = reached.get(task.id)!;
    if (items.size !== 1 || task.id === aggregate) continue;
    const item = [...items][0]!;
    if (upstreamOf(task).every((id) => prepare.has(id) || itemOf.get(id) === item)) itemOf.set(task.id, item);
  }
  const items = Array.from({ length: chosen.items }, (_, index) => ({ index, taskIds: plan.tasks.filter((task) => itemOf.get(task.id) === index).map((task) => task.id) }));
  const order = plan.tasks.map((task) => task.id);
  const shards = options.shards ?? null;
  return {
    shardable: true,
    reason: null,
    fanout: { taskId: aggregate, construct: chosen.construct, items: chosen.items },
    prepare: order.filter((id) => prepare.has(id)),
    items,
    gather: order.filter((id) => !prepare.has(id) && !itemOf.has(id)),
    shards,
    assignment: shards === null ? null : assign(items, shards),
  };
}

/** Item `i` goes to shard `i mod N`; a shard may get none. */
export function assign(items: PlanStages['items'], shards: number): NonNullable<PlanStages['assignment']> {
  return Array.from({ length: shards }, (_, shard) => {
    const mine = items.filter((item) => item.index % shards === shard);
    return { shard, items: mine.map((item) => item.index), taskIds: mine.flatMap((item) => item.taskIds) };
  });
}

/** The tasks one stage's run executes or reuses: prepare; prepare and shard I's items; or every task (gather). */
export function stageTaskIds(plan: CompiledPlan, stages: PlanStages, stage: 'prepare' | 'shard' | 'gather', shard?: { index: number; count: number }): string[] {
  if (stage === 'gather') return plan.tasks.map((task) => task.id);
  const keep = new Set(stages.prepare);
  if (stage === 'shard') for (const item of stages.items) if (item.index % shard!.count === shard!.index) for (const id of item.taskIds) keep.add(id);
  return plan.tasks.filter((task) => keep.has(task.id)).map((task) => task.id);
}
