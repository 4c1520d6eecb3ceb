// The options of the k8s-indexed-job emitter (`--emit-option KEY=VALUE`); defaults that depend on the plan (the name,
// the parallelism, the workflow path) are filled in by the emitter.
import { z } from '@agentctl/sdk';

/** A DNS-1123 label: what Kubernetes accepts as a namespace, a Job name prefix or a volume name. */
const label = (max: number) => z.string().max(max).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be lower case letters, digits and "-", starting and ending with a letter or digit');
/** A DNS-1123 subdomain: a ConfigMap, claim, Secret or service account name. */
const subdomain = z.string().max(253).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, 'must be a DNS-1123 subdomain (lower case letters, digits, "-" and ".")');
const positive = z.number().int().min(1);

export const kubernetesOptions = z.strictObject({
  image: z.string().min(1).optional().describe('the agentctl image; default registry.example.com/agentctl:VERSION, to be replaced by yours (pin it by digest)'),
  namespace: label(63).optional().describe('metadata.namespace of the three Jobs; default none (kubectl applies them to its current namespace)'),
  name: label(40).optional().describe('the prefix of the Jobs\' names (NAME-prepare, NAME-shards, NAME-gather); default the workflow name as a DNS-1123 label'),
  workflowPath: z
    .string()
    .refine((path) => path.startsWith('/config/') && !path.endsWith('/') && !path.split('/').some((part) => part === '..' || part === '.'), 'must be a file under /config, e.g. /config/workflow.yaml')
    .optional()
    .describe('the workflow file inside the container; default /config/<file name of the workflow>'),
  configMap: subdomain.optional().describe('the ConfigMap mounted at /config; default NAME-config'),
  claim: subdomain.optional().describe('the PersistentVolumeClaim holding the stages\' state (subPath state at /state) and the workspace (subPath workspace at /workspace); default NAME-state'),
  workspaceReadOnly: z.boolean().default(false).describe('mount /workspace read-only (default false: the items\' tasks may write there, and gather sees what they wrote)'),
  parallelism: positive.max(100000).optional().describe('how many shard pods run at once; default the shard count'),
  backoffLimitPerIndex: z.number().int().min(0).max(100).default(1).describe('how many times one shard is retried after exit 4, another failure or a disruption; default 1'),
  maxFailedIndexes: z.number().int().min(0).optional().describe('fail the shards Job once more shards than this have failed; default none (every shard gets its retries)'),
  activeDeadlineSeconds: positive.default(3600).describe('the time limit of each Job; default 3600'),
  ttlSecondsAfterFinished: z.number().int().min(0).default(86400).describe('remove each finished Job (and its pods) after this many seconds; default 86400'),
  serviceAccountName: subdomain.optional().describe('the pods\' service account; default the namespace\'s default (its token is never mounted)'),
  envFromSecret: subdomain.optional().describe('a Secret whose keys become the containers\' environment (envFrom), e.g. provider credentials; default none'),
});

export type KubernetesOptions = z.output<typeof kubernetesOptions>;
