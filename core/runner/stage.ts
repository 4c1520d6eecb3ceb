// The stage a scale-out run executes (prepare, shard I of N, gather): recorded with the run (`runs.stage_json`), it
// narrows the compiled plan the driver runs to the stage's tasks. The recorded plan stays the whole compiled plan.
import { AgentctlError, type CompiledPlan, type JsonValue } from '@agentctl/sdk';
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
  return { ...plan, tasks: plan.tasks.filter((task) => keep.has(task.id)), outputs: stage.stage === 'gather' ? plan.outputs : {} };
}

export const stageJson = (stage: RunStage): JsonValue => stage as unknown as JsonValue;
