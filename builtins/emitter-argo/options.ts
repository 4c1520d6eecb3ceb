// The options of the argo emitter (`--emit-option KEY=VALUE`): the pod options every pod-based scale-out emitter
// shares (the SDK's podStageOptions) and Argo's own; the plan-dependent defaults are filled in by the emitter.
import { dnsSubdomain, podStageOptions, z } from '@agentctl/sdk';

export const argoOptions = z.strictObject({
  ...podStageOptions('the Workflow', 'NAME-xxxxx, generated'),
  serviceAccountName: dnsSubdomain.optional().describe('the pods\' service account (Argo\'s executor needs one that may patch pods, e.g. its own); default the namespace\'s default'),
  parallelism: z.number().int().min(1).optional().describe('how many shard pods run at once; default the shard count'),
  retries: z.number().int().min(0).max(100).default(1).describe('how many times one shard is retried after exit 4 or another failure that running again may cure; default 1'),
  activeDeadlineSeconds: z.number().int().min(1).default(3600).describe('the time limit of the whole Workflow; default 3600'),
  ttlSecondsAfterFinished: z.number().int().min(0).default(86400).describe('remove the finished Workflow after this many seconds (ttlStrategy); default 86400'),
});

export type ArgoOptions = z.output<typeof argoOptions>;
