// The gather of a scale-out run: the prepare run and one succeeded shard run per shard index, checked to cover every
// item exactly once, and the derivation of the gather run that reuses all of their tasks (each from the run that
// holds it, by the reuse proofs of repair) and runs the gather stage fresh.
import { AgentctlError, type CompiledPlan, type PlanStages } from '@agentctl/sdk';
import type { Host } from '../host.js';
import type { ReusedTask } from '../store/lineage.js';
import type { Row, Store } from '../store/store.js';
import { planDerivation, type Derivation, type PlannedTask, type RepairPlan } from './derive-plan.js';
import type { Block } from './reuse-types.js';
import { stageOf, stagePlan, type RunStage } from './stage.js';

/** The runs a gather starts from: the prepare run and, in shard order, one shard run per index. */
export interface GatherRuns {
  readonly prepare: Row;
  readonly shards: readonly Row[];
  readonly count: number;
}

const invalidSource = (message: string) => new AgentctlError('AGENTCTL_E_STAGE_SOURCE_INVALID', message, { help: 'run `agentctl run FILE --stage prepare` with the same workflow, inputs and --fanout, then its shards, then gather' });
const incomplete = (message: string) => new AgentctlError('AGENTCTL_E_GATHER_INCOMPLETE', message, { help: 'run or retry the shard named (agentctl run FILE --shard I/N --from PREPARE_RUN), then gather again' });

/** The prepare run a shard run stands on: its source, followed through retries of the shard. */
export function preparedFrom(store: Store, run: Row): string | undefined {
  let current: Row | undefined = run;
  for (let hops = 0; current && stageOf(current)?.stage === 'shard' && hops < 10_000; hops += 1) current = current.source_run_id === null ? undefined : store.runRow(String(current.source_run_id));
  return current && stageOf(current)?.stage === 'prepare' ? String(current.id) : undefined;
}

/**
 * Finds the gather's runs in `store`: those `named` (run ids), or else the latest succeeded prepare run of the plan
 * and, per shard index, the latest succeeded shard run made from it. Refuses (exit 2) a missing, duplicated or
 * unsucceeded shard, shard runs of different counts, and a run that belongs to another plan.
 */
export function selectGatherRuns(store: Store, planDigest: string, fanout: string | undefined, named: readonly string[]): GatherRuns {
  const staged = store.stagedRuns().filter((run) => stageOf(run)!.planDigest === planDigest);
  let prepare: Row | undefined;
  let shards: Row[];
  if (named.length > 0) {
    const runs = [...new Set(named)].map((id) => store.existingRun(id));
    for (const run of runs) {
      const stage = stageOf(run);
      if (!stage || stage.stage === 'gather') throw invalidSource(`--from ${String(run.id)}: it is ${stage ? 'a gather run' : `an ordinary ${String(run.mode)} run`}, not a prepare or shard run`);
      if (stage.planDigest !== planDigest) throw invalidSource(`--from ${String(run.id)}: it ran another workflow or plan (plan ${stage.planDigest}, this one is ${planDigest})`);
    }
    const prepares = runs.filter((run) => stageOf(run)!.stage === 'prepare');
    if (prepares.length > 1) throw invalidSource(`--from names ${prepares.length} prepare runs (${prepares.map((run) => String(run.id)).join(', ')}); name one`);
    shards = runs.filter((run) => stageOf(run)!.stage === 'shard');
    prepare = prepares[0] ?? (shards[0] ? store.runRow(preparedFrom(store, shards[0]) ?? '') : undefined);
  } else {
    prepare = staged.filter((run) => stageOf(run)!.stage === 'prepare' && run.state === 'succeeded' && (fanout === undefined || stageOf(run)!.fanout === fanout)).at(-1);
    shards = [];
  }
  if (!prepare) throw invalidSource(`no succeeded prepare run of this plan (${planDigest}) is in the database`);
  const prepareStage = stageOf(prepare)!;
  if (prepare.state !== 'succeeded') throw invalidSource(`prepare run ${String(prepare.id)} is ${String(prepare.state)}; resume or retry it first`);
  if (fanout !== undefined && prepareStage.fanout !== fanout) throw invalidSource(`prepare run ${String(prepare.id)} was cut at fan-out ${prepareStage.fanout}, not ${fanout}`);
  const mine = (run: Row) => preparedFrom(store, run) === String(prepare!.id);
  if (named.length > 0) {
    const foreign = shards.find((run) => !mine(run));
    if (foreign) throw incomplete(`--from ${String(foreign.id)}: it is a shard of another prepare run than ${String(prepare.id)}`);
  } else {
    // The latest succeeded run of each shard index wins (a retried shard replaces the run it retried).
    const latest = new Map<string, Row>();
    for (const run of staged.filter((candidate) => stageOf(candidate)!.stage === 'shard' && candidate.state === 'succeeded' && mine(candidate))) latest.set(`${stageOf(run)!.shard}/${stageOf(run)!.shards}`, run);
    shards = [...latest.values()];
  }
  if (shards.length === 0) throw incomplete(`no succeeded shard run of prepare run ${String(prepare.id)} is in the database`);
  const counts = [...new Set(shards.map((run) => stageOf(run)!.shards))];
  if (counts.length > 1) throw incomplete(`the shard runs were made for different shard counts (${counts.join(', ')}): ${shards.map((run) => `${String(run.id)} is shard ${stageOf(run)!.shard}/${stageOf(run)!.shards}`).join(', ')}`);
  const count = counts[0]!;
  const byIndex = new Map<number, Row>();
  for (const run of shards) {
    const index = stageOf(run)!.shard!;
    if (byIndex.has(index)) throw incomplete(`shard ${index}/${count} is named twice (runs ${String(byIndex.get(index)!.id)} and ${String(run.id)}); name one run per shard`);
    if (run.state !== 'succeeded') throw incomplete(`shard ${index}/${count} (run ${String(run.id)}) is ${String(run.state)}; resume or retry it, then gather again`);
    byIndex.set(index, run);
  }
  for (let index = 0; index < count; index += 1) {
    if (byIndex.has(index)) continue;
    const failed = staged.filter((run) => stageOf(run)!.stage === 'shard' && stageOf(run)!.shard === index && stageOf(run)!.shards === count && mine(run)).at(-1);
    throw incomplete(`shard ${index}/${count} has no succeeded run${failed ? ` (run ${String(failed.id)} is ${String(failed.state)})` : ''}`);
  }
  return { prepare, shards: [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, run]) => run), count };
}

export interface GatherRequest {
  readonly host: Host;
  readonly store: Store;
  /** The whole compiled plan. */
  readonly plan: CompiledPlan;
  readonly stages: PlanStages;
  readonly runs: GatherRuns;
}

/** The derivation of the gather run; each item's tasks come from the one shard run that executed them. */
export async function planGather(request: GatherRequest): Promise<Derivation> {
  const { host, store, plan, stages, runs } = request;
  const scoped = (taskIds: readonly string[]): CompiledPlan => stagePlan(plan, { taskIds } as RunStage);
  const items = runs.shards.flatMap((run) => stageOf(run)!.items);
  const seen = new Set<number>();
  for (const item of items) {
    if (seen.has(item)) throw incomplete(`item ${item} ran in more than one shard run`);
    seen.add(item);
  }
  const missing = stages.items.map((item) => item.index).filter((index) => !seen.has(index));
  if (missing.length > 0) throw incomplete(`item(s) ${missing.join(', ')} ran in no shard run`);

  const judged = new Map<string, { task: PlannedTask; reused?: ReusedTask }>();
  const blocks: Block[] = [];
  const take = (derivation: Derivation, keep: ReadonlySet<string>, sourceRunId: string) => {
    const reusedOf = new Map(derivation.reused.map((task) => [task.taskId, task]));
    for (const task of derivation.plan.tasks.filter((candidate) => keep.has(candidate.taskId))) {
      // A task of an earlier stage that failed there is never run again here: the item ran, and ended failed.
      if (task.disposition === 'fresh' && task.sourceState !== 'skipped') throw incomplete(`task ${task.taskId} is ${task.sourceState ?? 'missing'} in run ${sourceRunId}: the gather runs no task of an earlier stage again; retry that run first`);
      const reused = reusedOf.get(task.taskId);
      judged.set(task.taskId, { task, ...(reused ? { reused: { ...reused, sourceRunId } } : {}) });
    }
    for (const block of derivation.plan.blocks) if (keep.has(block.taskId) && !blocks.some((known) => known.block === block.block && known.taskId === block.taskId)) blocks.push(block);
  };
  const derive = (taskIds: readonly string[], source: Row) => planDerivation({ host, store, plan: scoped(taskIds), source, mode: 'gather', from: [], failed: false, restartSuccessful: false });
  take(await derive(stages.prepare, runs.prepare), new Set(stages.prepare), String(runs.prepare.id));
  for (const run of runs.shards) {
    const stage = stageOf(run)!;
    const own = new Set(stages.items.filter((item) => stage.items.includes(item.index)).flatMap((item) => item.taskIds));
    take(await derive(stage.taskIds, run), own, String(run.id));
  }
  const tasks: PlannedTask[] = [];
  const reused: ReusedTask[] = [];
  for (const task of plan.tasks) {
    const found = judged.get(task.id);
    if (!found) {
      tasks.push({ taskId: task.id, disposition: 'fresh', reason: 'gather_stage', sourceState: null, sourceFingerprint: null, targetFingerprint: null });
      continue;
    }
    tasks.push(found.task);
    if (found.reused) reused.push(found.reused);
  }
  const prepare = runs.prepare;
  const shardRunIds = runs.shards.map((run) => String(run.id));
  const header = { mode: 'gather' as const, sourceRunId: String(prepare.id), workflow: plan.name, sourceDigest: String(prepare.workflow_digest), targetDigest: plan.digest, roots: [], removed: [], added: [] };
  const gatherPlan: RepairPlan & { shardRunIds: string[] } = { ...header, compatible: blocks.length === 0, tasks, blocks, shardRunIds };
  return { plan: gatherPlan, reused };
}
