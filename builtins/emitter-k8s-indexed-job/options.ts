// The options of the k8s-indexed-job emitter (`--emit-option KEY=VALUE`): the pod options every pod-based scale-out
// emitter shares (the SDK's podStageOptions) and the Jobs' own; the plan-dependent defaults are filled in by the emitter.
import { dnsSubdomain, podStageOptions, z } from '@agentctl/sdk';

const positive = z.number().int().min(1);

export const kubernetesOptions = z.strictObject({
  ...podStageOptions('the three Jobs', 'NAME-prepare, NAME-shards, NAME-gather'),
  serviceAccountName: dnsSubdomain.optional().describe('the pods\' service account; default the namespace\'s default (its token is never mounted)'),
  parallelism: positive.max(100000).optional().describe('how many shard pods run at once; default the shard count'),
  backoffLimitPerIndex: z.number().int().min(0).max(100).default(1).describe('how many times one shard is retried after exit 4, another failure or a disruption; default 1'),
  maxFailedIndexes: z.number().int().min(0).optional().describe('fail the shards Job once more shards than this have failed; default none (every shard gets its retries)'),
  activeDeadlineSeconds: positive.default(3600).describe('the time limit of each Job; default 3600'),
  ttlSecondsAfterFinished: z.number().int().min(0).default(86400).describe('remove each finished Job (and its pods) after this many seconds; default 86400'),
});

export type KubernetesOptions = z.output<typeof kubernetesOptions>;
