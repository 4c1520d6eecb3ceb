// The stage a scale-out run executes (prepare, shard I of N, gather): recorded with the run (`runs.stage_json`), it
// narrows the compiled plan the driver runs to the stage's tasks. The recorded plan stays the whole compiled plan.
import { AgentctlError, type CompiledPlan, type JsonValue, type RunBudgets } from '@agentctl/sdk';
import type { DimensionUsage } from '../store/budget.js';
import { dimensionOf } from './budget.js';
import type { Row } from '../store/store.js';

export type StageName = 'prepare' | 'shard' | 'gather';

/** `runs.stage_json`: the stage, the fan-out it was cut at, the shard, and the tasks the run executes or reuses. */
export interface RunStage {
  readonly stage: StageName;
  /** The aggregate id of the foreach or matrix the plan was cut at. */
  readonly fanout: string;
  /** Shard I of N (a shard); N alone for a gather; null for prepare. */
  readonly shard: number | null;
  readonly shards: number | null;
  /** The fan-out items the run executes (a shard) or gathers (a gather); empty for prepare. */
  readonly items: readonly number[];
  readonly taskIds: readonly string[];
  /** The digest of the whole plan (as `plan` prints it): every stage of one scale-out run has the same. */
  readonly planDigest: string;
  /** The budgets this stage's run applies, when they are not the workflow's: a shard's share, the gather's remainder. */
  readonly budgets?: RunBudgets;
}

/** The recorded stage of a run, or null for an ordinary run. */
export function stageOf(run: Row): RunStage | null {
  const text = run.stage_json;
  if (text === null || text === undefined) return null;
  try {
    return JSON.parse(String(text)) as RunStage;
  } catch {
    throw new AgentctlError('AGENTCTL_E_DB_CORRUPT', `run ${String(run.id)}: runs.stage_json is not JSON`);
  }
}

/**
 * The plan a stage's run drives: only the stage's tasks, in plan order, and no `spec.outputs` before the gather (the
 * outputs read what only the gather has). Every task a stage keeps has its needs in the stage too.
 */
export function stagePlan(plan: CompiledPlan, stage: RunStage | null): CompiledPlan {
  if (stage === null) return plan;
  const keep = new Set(stage.taskIds);
  return { ...withStageBudgets(plan, stage), tasks: plan.tasks.filter((task) => keep.has(task.id)), outputs: stage.stage === 'gather' ? plan.outputs : {} };
}

/** The whole plan with the stage's budgets: what a stage's run records, so `inspect` shows the limits it ran under. */
export function withStageBudgets(plan: CompiledPlan, stage: RunStage | null): CompiledPlan {
  return stage?.budgets === undefined ? plan : { ...plan, runtime: { ...plan.runtime, budgets: stage.budgets } };
}

/** The counted budgets (every one but wall time) with `limit` of each replaced; wall time applies to each stage whole. */
function eachCounted(budgets: RunBudgets | undefined, limit: (value: number, dimension: string) => number): RunBudgets | undefined {
  if (budgets === undefined) return undefined;
  const entries = Object.entries(budgets).filter(([, value]) => value !== undefined) as [string, number][];
  return Object.fromEntries(entries.map(([field, value]) => [field, field === 'maxWallTimeSeconds' ? value : limit(value, dimensionOf(field))])) as RunBudgets;
}

/**
 * A shard's share of each counted budget: what prepare left of it, times the shard's items over all items (rounded
 * down, and at least 1 when the shard has items).
 */
export function shardBudgets(budgets: RunBudgets | undefined, prepareUsage: Readonly<Record<string, DimensionUsage>>, items: number, total: number): RunBudgets | undefined {
  return eachCounted(budgets, (limit, dimension) => {
    const left = Math.max(0, limit - (prepareUsage[dimension]?.used ?? 0));
    const share = Math.floor((left * items) / total);
    return items > 0 ? Math.max(1, share) : share;
  });
}

/** The gather's remainder of each counted budget: the limit less what the prepare and shard runs used. */
export function gatherBudgets(budgets: RunBudgets | undefined, usages: readonly Readonly<Record<string, DimensionUsage>>[]): RunBudgets | undefined {
  return eachCounted(budgets, (limit, dimension) => Math.max(0, limit - usages.reduce((sum, usage) => sum + (usage[dimension]?.used ?? 0), 0)));
}

export const stageJson = (stage: RunStage): JsonValue => stage as unknown as JsonValue;
