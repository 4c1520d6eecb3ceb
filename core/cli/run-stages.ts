// The stages of a scale-out run from the command line: `run --stage prepare`, `run --shard I/N --from RUN`. Which
// stage the options ask for, the stage each run records, and the prepare run a shard starts from.
import { AgentctlError, type CompiledPlan, type PlanStages } from '@agentctl/sdk';
import type { Host } from '../host.js';
import { stageTaskIds } from '../compiler/stages.js';
import { planDocument } from '../plan-document.js';
import { stageOf, stagePlan, type RunStage } from '../runner/stage.js';
import type { Row, Store } from '../store/store.js';
import { fanoutOf, shardableStages, shardOf } from './stage-options.js';

export interface StageArgs {
  stage?: unknown;
  shard?: unknown;
  from?: unknown;
  fanout?: unknown;
}

/** What the stage options ask for: an ordinary run, the prepare stage, or one shard started from a prepare run. */
export type Staging =
  | { readonly kind: 'whole' }
  | { readonly kind: 'prepare'; readonly fanout: string | undefined }
  | { readonly kind: 'shard'; readonly shard: { index: number; count: number }; readonly from: string; readonly fanout: string | undefined };

/** The --stage, --shard, --from and --fanout options of `run`. */
export function runStageOptions<T>(yargs: import('yargs').Argv<T>) {
  return yargs
    .option('stage', { type: 'string', describe: 'run one stage of a scale-out run: prepare (the tasks the fan-out items need)' })
    .option('shard', { type: 'string', describe: 'I/N: run the fan-out items of shard I (item i goes to shard i mod N), reusing the prepare run named by --from' })
    .option('from', { type: 'string', describe: 'with --shard: the prepare run: its id in --db, or the ledger file the prepare stage wrote (imported into --db, created when missing)' })
    .option('fanout', { type: 'string', describe: 'with --stage or --shard: the foreach/matrix task to cut at (default: the one with the most items)' });
}

/** The stage options, checked before anything is compiled or opened. */
export function stagingOf(argv: StageArgs): Staging {
  const usage = (message: string, help = 'see agentctl run --help and docs/cli.md#run---stage-prepare') => new AgentctlError('AGENTCTL_E_USAGE', message, { help });
  const fanout = fanoutOf(argv.fanout);
  if (argv.stage !== undefined && argv.shard !== undefined) throw usage('--stage and --shard cannot be combined: a run is the prepare stage or one shard', 'run --stage prepare first, then each --shard I/N --from PREPARE_RUN');
  if (argv.stage !== undefined) {
    const stage = Array.isArray(argv.stage) ? argv.stage.join(',') : String(argv.stage);
    if (stage !== 'prepare') throw usage(`--stage ${JSON.stringify(stage)} is not a stage run takes: only --stage prepare`, 'a shard is --shard I/N --from PREPARE_RUN; the gather is agentctl runs gather FILE');
    if (argv.from !== undefined) throw usage('--from belongs to --shard: the prepare stage starts from nothing');
    return { kind: 'prepare', fanout };
  }
  if (argv.shard !== undefined) {
    const shard = shardOf(argv.shard);
    if (argv.from === undefined || Array.isArray(argv.from) || String(argv.from).trim() === '') throw usage('--shard needs --from PREPARE_RUN: the prepare run whose tasks the shard reuses');
    return { kind: 'shard', shard, from: String(argv.from).trim(), fanout };
  }
  if (fanout !== undefined || argv.from !== undefined) throw usage(`--${fanout !== undefined ? 'fanout' : 'from'} is given without --stage or --shard`);
  return { kind: 'whole' };
}

/** A stage of `plan` as its run records it, and the plan narrowed to it. */
export interface StagedPlan {
  readonly stage: RunStage;
  readonly plan: CompiledPlan;
}

/** The cut the options ask for (refused when the plan cannot be split) and the digest of the whole plan. */
function cut(host: Host, plan: CompiledPlan, fanout: string | undefined): { stages: PlanStages; planDigest: string } {
  return { stages: shardableStages(plan, fanout), planDigest: planDocument(host, plan).planDigest };
}

/** The prepare stage of `plan`. */
export function prepareStage(host: Host, plan: CompiledPlan, fanout: string | undefined): StagedPlan {
  const { stages, planDigest } = cut(host, plan, fanout);
  const stage: RunStage = { stage: 'prepare', fanout: stages.fanout!.taskId, shard: null, shards: null, items: [], taskIds: stageTaskIds(plan, stages, 'prepare'), planDigest };
  return { stage, plan: stagePlan(plan, stage) };
}

/** Shard I of N of `plan`, with the roots of its derivation (its items' tasks) and the prepare tasks it reuses. */
export function shardStage(host: Host, plan: CompiledPlan, shard: { index: number; count: number }, fanout: string | undefined): StagedPlan & { readonly itemTasks: readonly string[]; readonly total: number } {
  const { stages, planDigest } = cut(host, plan, fanout);
  const items = stages.items.filter((item) => item.index % shard.count === shard.index);
  const stage: RunStage = { stage: 'shard', fanout: stages.fanout!.taskId, shard: shard.index, shards: shard.count, items: items.map((item) => item.index), taskIds: stageTaskIds(plan, stages, 'shard', shard), planDigest };
  return { stage, plan: stagePlan(plan, stage), itemTasks: items.flatMap((item) => item.taskIds), total: stages.items.length };
}

/**
 * The prepare run a shard starts from, checked against the shard's own cut: a succeeded prepare run of the same
 * workflow, plan and fan-out. (A ledger file given as --from is imported into --db before this step.)
 */
export function findPrepareRun(store: Store, from: string, expected: RunStage): Row {
  const run = store.existingRun(from);
  const stage = stageOf(run);
  const refuse = (why: string) => new AgentctlError('AGENTCTL_E_STAGE_SOURCE_INVALID', `--from ${from}: ${why}`, { help: 'name the run `agentctl run FILE --stage prepare` made, of the same workflow, inputs and --fanout' });
  if (stage?.stage !== 'prepare') throw refuse(`run ${from} is not a prepare run (${stage ? `it is a ${stage.stage} run` : `it is an ordinary ${String(run.mode)} run`})`);
  if (stage.planDigest !== expected.planDigest) throw refuse(`run ${from} ran another workflow or plan (plan ${stage.planDigest}, this one is ${expected.planDigest})`);
  if (stage.fanout !== expected.fanout) throw refuse(`run ${from} was cut at fan-out ${stage.fanout}, this shard at ${expected.fanout}`);
  if (run.state !== 'succeeded') throw refuse(`run ${from} is ${String(run.state)}; a shard starts from a succeeded prepare run (resume or retry it first)`);
  return run;
}
