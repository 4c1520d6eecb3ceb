// A sharded plan as Kubernetes Jobs: `plan FILE --emit k8s-indexed-job --shards N --out DIR` writes a Job for prepare,
// an Indexed Job of N completions for the shards, a Job for gather, and a README saying how to apply them.
import { AgentctlError, definePlugin, generatedNotice, podNames, requireShardedPlan, type PlanEmitter, type ShardedPlan } from '@agentctl/sdk';
import { stringify } from 'yaml';
import { guide } from './guide.js';
import { shardsJob, singleJob, stageCommands, type Resolved } from './manifests.js';
import { kubernetesOptions, type KubernetesOptions } from './options.js';

const FORMAT = 'k8s-indexed-job';
const CODES = {
  noShards: 'BUILTIN_EMITTER_K8S_INDEXED_JOB_E_NO_SHARDS',
  notShardable: 'BUILTIN_EMITTER_K8S_INDEXED_JOB_E_NOT_SHARDABLE',
  options: 'BUILTIN_EMITTER_K8S_INDEXED_JOB_E_OPTIONS',
} as const;

function resolve(plan: ShardedPlan, options: KubernetesOptions, file: string | undefined, version: string): Resolved {
  if (options.maxFailedIndexes !== undefined && options.maxFailedIndexes > plan.shards) {
    throw new AgentctlError(CODES.options, `--emit-option maxFailedIndexes=${options.maxFailedIndexes} is more than the ${plan.shards} shards`, { help: `give at most ${plan.shards}, or leave it out` });
  }
  return { ...podNames(plan, options, file, version), options };
}

const yamlFile = (plan: ShardedPlan, comment: string, document: object) =>
  `${[...generatedNotice(FORMAT, plan), comment].map((line) => `# ${line}\n`).join('')}${stringify(document, { lineWidth: 0, aliasDuplicateObjects: false })}`;

/** The emitter; the default image is tagged with the running agentctl's version. */
const kubernetesEmitter = (version: string): PlanEmitter<KubernetesOptions> => ({
  format: FORMAT,
  description: 'Kubernetes Jobs of a sharded plan (needs --shards N): prepare, an Indexed Job of the shards, gather, and a README',
  optionsSchema: kubernetesOptions,
  emit({ plan: document, file, options }) {
    const plan = requireShardedPlan(document, FORMAT, CODES);
    const resolved = resolve(plan, options, file, version);
    const commands = stageCommands(plan, resolved);
    return [
      { path: '00-prepare-job.yaml', content: yamlFile(plan, 'Step 1 of 3: the tasks every item needs. See README.md.', singleJob(plan, resolved, 'prepare', commands.prepare)) },
      { path: '10-shards-job.yaml', content: yamlFile(plan, 'Step 2 of 3, after prepare completed: one completion per shard. See README.md.', shardsJob(plan, resolved, commands.shard)) },
      { path: '20-gather-job.yaml', content: yamlFile(plan, 'Step 3 of 3, after every shard completed: one run of the whole workflow. See README.md.', singleJob(plan, resolved, 'gather', commands.gather)) },
      { path: 'README.md', content: guide(plan, resolved, file === undefined || file === '-' ? 'workflow.yaml' : file) },
    ];
  },
});

export default definePlugin({
  name: 'builtin.emitter.k8s-indexed-job',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Emits a sharded plan as Kubernetes Jobs: prepare, an Indexed Job of the shards, gather.',
  errorCodes: {
    [CODES.noShards]: { exitCode: 2, description: 'The plan has no stages or no shard count: emit with --shards N.' },
    [CODES.notShardable]: { exitCode: 2, description: 'The workflow has no fan-out that can be split into shards; the message names the reason.' },
    [CODES.options]: { exitCode: 2, description: 'An --emit-option does not fit the plan (maxFailedIndexes above the shard count).' },
  },
  setup(api) {
    api.registerPlanEmitter(kubernetesEmitter(api.hostVersion));
  },
});
