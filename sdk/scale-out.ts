// What every emitter of a sharded plan needs: the plan's cut read and checked once, and the agentctl command line of
// each stage (prepare, one shard, gather) laid out on a job runner's folders. The command lines are the CLI's
// scale-out contract, so a Kubernetes Job, a GitHub Actions job and an Argo template run exactly the same commands.
import type { PlanDocument } from './consumers.js';
import { AgentctlError } from './errors.js';
import type { JsonValue } from './json.js';

/** A plan that `plan --shards N` cut for scale-out: what an emitter of the stages' jobs reads from it. */
export interface ShardedPlan {
  readonly workflowName: string;
  readonly planDigest: string;
  /** The aggregate task whose items are split across the shards (what `--fanout` names). */
  readonly fanout: string;
  /** How many items the fan-out has. */
  readonly items: number;
  /** How many shards, 1..256; shard `I` runs the items `i` with `i mod shards = I`. */
  readonly shards: number;
  /** The inputs the plan was made with (defaults and `--input` overrides): every stage must run with the same ones. */
  readonly inputs: Readonly<Record<string, JsonValue>>;
}

/**
 * Why a plan document cannot be emitted as stages: `no_shards` (no `stages`, or no shard count: `add --shards N`) or
 * `not_shardable` (no fan-out to cut; `code` is the plan's `stages.reason.code`, e.g. `no_fanout`, `single_item`).
 */
export interface StagesRefusal {
  readonly reason: 'no_shards' | 'not_shardable';
  readonly code: string | null;
  readonly message: string;
  readonly help: string;
}

/** The cut of a plan document, or why there is none. */
export type ShardedPlanResult = { readonly sharded: ShardedPlan } | { readonly refusal: StagesRefusal };

/** The largest shard count (`--shards N`). */
export const MAX_SHARDS = 256;

/** Reads the cut of a plan document for an emitter of the stages' jobs: the sharded plan, or why it cannot be one. */
export function shardedPlan(plan: PlanDocument, format: string): ShardedPlanResult {
  const stages = plan.stages;
  const again = `agentctl plan FILE --emit ${format} --shards N --out DIR`;
  if (stages === undefined) return { refusal: { reason: 'no_shards', code: null, message: `the plan of workflow ${plan.workflowName} has no stages: add --shards N`, help: `emit with a shard count: ${again}` } };
  if (!stages.shardable || stages.fanout === null) {
    const code = stages.reason?.code ?? null;
    const why = stages.reason ? `${stages.reason.code}: ${stages.reason.message}` : 'the plan has no fan-out to cut';
    return {
      refusal: {
        reason: 'not_shardable',
        code,
        message: `workflow ${plan.workflowName} cannot be split into shards (${why})`,
        help: 'a workflow is sharded at a foreach or matrix of two or more items whose tasks do not depend on each other (`agentctl plan FILE --stages` shows the cut); run it whole with `agentctl run` instead',
      },
    };
  }
  const shards = stages.shards;
  if (shards === null) return { refusal: { reason: 'no_shards', code: null, message: `the plan of workflow ${plan.workflowName} has stages but no shard count: add --shards N`, help: `emit with a shard count: ${again}` } };
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS) {
    return { refusal: { reason: 'no_shards', code: null, message: `the plan of workflow ${plan.workflowName} has ${shards} shards; a plan has 1 to ${MAX_SHARDS}`, help: `emit with a shard count from 1 to ${MAX_SHARDS}: ${again}` } };
  }
  return { sharded: { workflowName: plan.workflowName, planDigest: plan.planDigest, fanout: stages.fanout.taskId, items: stages.fanout.items, shards, inputs: plan.inputs } };
}

/** The error codes an emitter refuses with (its own, registered with its plugin): no shard count, or nothing to cut. */
export interface StagesRefusalCodes {
  readonly noShards: string;
  readonly notShardable: string;
}

/** The cut of a plan document for an emitter, or the emitter's own error (exit 2 by its codes) saying why there is none. */
export function requireShardedPlan(plan: PlanDocument, format: string, codes: StagesRefusalCodes): ShardedPlan {
  const cut = shardedPlan(plan, format);
  if ('sharded' in cut) return cut.sharded;
  throw new AgentctlError(cut.refusal.reason === 'no_shards' ? codes.noShards : codes.notShardable, `--emit ${format}: ${cut.refusal.message}`, { help: cut.refusal.help });
}

/** Where a job runner puts what the stage commands name. */
export interface StageLayout {
  /** The workflow file as the commands see it, e.g. `/config/workflow.yaml`. */
  readonly workflow: string;
  /** The folder of the stages' ledgers: `STATE/prepare/runtime.db`, `STATE/shards/I/runtime.db`, `STATE/gather/runtime.db`. */
  readonly state: string;
  /** `--workspace` of every command, when the commands name one. */
  readonly workspace?: string;
  /** How the runner spells the shard's index inside an argument: `$(JOB_COMPLETION_INDEX)`, `${{ matrix.shard }}`, ... */
  readonly shardIndex: string;
}

/** The arguments after `agentctl` of each stage's command. */
export interface StageArguments {
  /** `run WF --stage prepare --fanout TASK --db STATE/prepare/runtime.db ...` */
  readonly prepare: readonly string[];
  /** `run WF --shard INDEX/N --from STATE/prepare/runtime.db --db STATE/shards/INDEX/runtime.db ...` */
  readonly shard: readonly string[];
  /** `runs gather WF --from STATE/shards/0/runtime.db ... --db STATE/gather/runtime.db ...` (one `--from` per shard) */
  readonly gather: readonly string[];
}

/** The ledger file of a stage under the state folder: `prepare`, `gather` or `shards/INDEX`. */
export function stageLedger(state: string, stage: string): string {
  return `${state.replace(/\/+$/, '')}/${stage}/runtime.db`;
}

/**
 * The command line of each stage of a sharded plan, laid out on a runner's folders. The plan's inputs, when it has any,
 * go to every stage as `--inputs JSON`: a shard reuses prepare's tasks only when they were given the same inputs.
 */
export function stageArguments(plan: ShardedPlan, layout: StageLayout): StageArguments {
  const inputs = Object.keys(plan.inputs).length === 0 ? [] : ['--inputs', JSON.stringify(plan.inputs)];
  const tail = [...(layout.workspace === undefined ? [] : ['--workspace', layout.workspace]), ...inputs, '--output', 'json'];
  const shardLedgers = Array.from({ length: plan.shards }, (_, index) => ['--from', stageLedger(layout.state, `shards/${index}`)]).flat();
  return {
    prepare: ['run', layout.workflow, '--stage', 'prepare', '--fanout', plan.fanout, '--db', stageLedger(layout.state, 'prepare'), ...tail],
    shard: ['run', layout.workflow, '--shard', `${layout.shardIndex}/${plan.shards}`, '--from', stageLedger(layout.state, 'prepare'), '--db', stageLedger(layout.state, `shards/${layout.shardIndex}`), ...tail],
    gather: ['runs', 'gather', layout.workflow, ...shardLedgers, '--db', stageLedger(layout.state, 'gather'), ...tail],
  };
}

/**
 * A name for the jobs of a workflow that Kubernetes accepts as a DNS-1123 label, at most `max` characters: lower case
 * letters, digits and `-`, starting and ending with a letter or digit (`agentctl` when nothing of the name is left).
 */
export function dnsLabel(name: string, max = 63): string {
  const label = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+/, '').slice(0, max).replace(/-+$/, '');
  return label === '' ? 'agentctl' : label;
}

/** The lines an emitted file begins with (without comment marks): which command wrote it, from which plan. */
export function generatedNotice(format: string, plan: ShardedPlan): string[] {
  return [
    `Generated by \`agentctl plan --emit ${format}\` from workflow ${plan.workflowName}, plan ${plan.planDigest}.`,
    `${plan.items} items of ${plan.fanout} in ${plan.shards} shard${plan.shards === 1 ? '' : 's'}. Emit again after changing the workflow rather than editing this file.`,
  ];
}
