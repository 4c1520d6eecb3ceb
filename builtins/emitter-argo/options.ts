// The options of the argo emitter (`--emit-option KEY=VALUE`); the plan-dependent defaults (the name, the
// parallelism, the workflow path) are filled in by the emitter.
import { z } from '@agentctl/sdk';

const label = (max: number) => z.string().max(max).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be lower case letters, digits and "-", starting and ending with a letter or digit');
const subdomain = z.string().max(253).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, 'must be a DNS-1123 subdomain (lower case letters, digits, "-" and ".")');

export const argoOptions = z.strictObject({
  image: z.string().min(1).optional().describe('the agentctl image; default registry.example.com/agentctl:VERSION, to be replaced by yours (pin it by digest)'),
  namespace: label(63).optional().describe('metadata.namespace of the Workflow; default none (argo submit uses its current namespace)'),
  name: label(40).optional().describe('the prefix of the Workflow\'s generated name (NAME-xxxxx); default the workflow name as a DNS-1123 label'),
  workflowPath: z
    .string()
    .refine((path) => path.startsWith('/config/') && !path.endsWith('/') && !path.split('/').some((part) => part === '..' || part === '.'), 'must be a file under /config, e.g. /config/workflow.yaml')
    .optional()
    .describe('the workflow file inside the container; default /config/<file name of the workflow>'),
  configMap: subdomain.optional().describe('the ConfigMap mounted at /config; default NAME-config'),
  claim: subdomain.optional().describe('the PersistentVolumeClaim holding the stages\' state (subPath state at /state) and the workspace (subPath workspace at /workspace); default NAME-state'),
  workspaceReadOnly: z.boolean().default(false).describe('mount /workspace read-only (default false: the items\' tasks may write there, and gather sees what they wrote)'),
  parallelism: z.number().int().min(1).optional().describe('how many shard pods run at once; default the shard count'),
  retries: z.number().int().min(0).max(100).default(1).describe('how many times one shard is retried after exit 4 or another failure that running again may cure; default 1'),
  activeDeadlineSeconds: z.number().int().min(1).default(3600).describe('the time limit of the whole Workflow; default 3600'),
  ttlSecondsAfterFinished: z.number().int().min(0).default(86400).describe('remove the finished Workflow after this many seconds (ttlStrategy); default 86400'),
  serviceAccountName: subdomain.optional().describe('the pods\' service account (Argo\'s executor needs one that may patch pods, e.g. its own); default the namespace\'s default'),
  envFromSecret: subdomain.optional().describe('a Secret whose keys become the containers\' environment (envFrom), e.g. provider credentials; default none'),
});

export type ArgoOptions = z.output<typeof argoOptions>;
