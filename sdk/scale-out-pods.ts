// The image's run contract in Kubernetes terms, for emitters whose stages run as pods (Kubernetes Jobs, Argo
// Workflows): the option fields they share, the names that default from the plan, the container and the volumes.
// Every pod runs as 65532 with a read-only root and no capability; the workflow comes from a ConfigMap at /config, the
// stages' ledgers and the workspace from one claim (subPaths `state` and `workspace`), and /tmp is a small emptyDir.
import { z } from 'zod';
import type { ShardedPlan } from './scale-out.js';
import { dnsLabel } from './scale-out.js';

/** A DNS-1123 label of at most `max` characters: a namespace, a name prefix. */
const label = (max: number) => z.string().max(max).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be lower case letters, digits and "-", starting and ending with a letter or digit');

/** A DNS-1123 subdomain: a ConfigMap, claim, Secret or service account name. */
export const dnsSubdomain = z.string().max(253).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, 'must be a DNS-1123 subdomain (lower case letters, digits, "-" and ".")');

/**
 * The `--emit-option` fields every pod-based scale-out emitter takes, to spread into its own `z.strictObject`.
 * `what` names what the emitter writes (e.g. `the three Jobs`), `named` how NAME is used (e.g. `NAME-prepare, ...`).
 */
export function podStageOptions(what: string, named: string) {
  return {
    image: z.string().min(1).optional().describe('the agentctl image; default registry.example.com/agentctl:VERSION, to be replaced by yours (pin it by digest)'),
    namespace: label(63).optional().describe(`metadata.namespace of ${what}; default none (the current namespace of whoever applies them)`),
    name: label(40).optional().describe(`the prefix of ${what}' names (${named}); default the workflow name as a DNS-1123 label`),
    workflowPath: z
      .string()
      .refine((path) => path.startsWith('/config/') && !path.endsWith('/') && !path.split('/').some((part) => part === '..' || part === '.'), 'must be a file under /config, e.g. /config/workflow.yaml')
      .optional()
      .describe('the workflow file inside the container; default /config/<file name of the workflow>'),
    configMap: dnsSubdomain.optional().describe('the ConfigMap mounted at /config; default NAME-config'),
    claim: dnsSubdomain.optional().describe('the PersistentVolumeClaim holding the stages\' state (subPath state at /state) and the workspace (subPath workspace at /workspace); default NAME-state'),
    workspaceReadOnly: z.boolean().default(false).describe('mount /workspace read-only (default false: the items\' tasks may write there, and gather sees what they wrote)'),
    serviceAccountName: dnsSubdomain.optional().describe('the pods\' service account; default the namespace\'s default'),
    envFromSecret: dnsSubdomain.optional().describe('a Secret whose keys become the containers\' environment (envFrom), e.g. provider credentials; default none'),
  };
}

/** The option values of `podStageOptions` as an emitter receives them. */
export interface PodStageOptions {
  readonly image?: string | undefined;
  readonly name?: string | undefined;
  readonly workflowPath?: string | undefined;
  readonly configMap?: string | undefined;
  readonly claim?: string | undefined;
  readonly workspaceReadOnly: boolean;
  readonly envFromSecret?: string | undefined;
  readonly parallelism?: number | undefined;
}

/** The names a pod-based emitter writes, with the plan-dependent defaults filled in. */
export interface PodNames {
  readonly name: string;
  readonly image: string;
  readonly workflowPath: string;
  readonly configMap: string;
  readonly claim: string;
  readonly parallelism: number;
}

/** The workflow's file name, as the ConfigMap key and under /config (`workflow.yaml` when it came from standard input). */
const fileName = (file: string | undefined) => (file === undefined || file === '-' ? 'workflow.yaml' : file.split(/[\\/]/).pop()!);

/** The names of the emitted objects: the options where given, else defaults from the plan, the file and agentctl's version. */
export function podNames(plan: ShardedPlan, options: PodStageOptions, file: string | undefined, version: string): PodNames {
  const name = options.name ?? dnsLabel(plan.workflowName, 40);
  return {
    name,
    image: options.image ?? `registry.example.com/agentctl:${version}`,
    workflowPath: options.workflowPath ?? `/config/${fileName(file)}`,
    configMap: options.configMap ?? `${name}-config`,
    claim: options.claim ?? `${name}-state`,
    parallelism: options.parallelism ?? plan.shards,
  };
}

/**
 * Exit codes that running the same shard again cannot cure: 2 (usage or validation), 3 (paused for an approval, a
 * blocked reuse, an effect in doubt), 5 (the ledger) and 6 (a provider). Exit 4 (a task failed) may be retried.
 */
export const NOT_RETRIED_EXIT_CODES: readonly number[] = Object.freeze([2, 3, 5, 6]);

/** The pod-level security context of every stage pod: user and group 65532, the runtime's default seccomp profile. */
export const POD_SECURITY_CONTEXT = Object.freeze({ runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } });

/** A stage's container (without its name and environment): the image, its arguments, the contract's security and mounts. */
export function stageContainer(names: PodNames, options: PodStageOptions, args: readonly string[]) {
  return {
    image: names.image,
    args: [...args],
    ...(options.envFromSecret === undefined ? {} : { envFrom: [{ secretRef: { name: options.envFromSecret } }] }),
    securityContext: { readOnlyRootFilesystem: true, runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, capabilities: { drop: ['ALL'] }, allowPrivilegeEscalation: false },
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
    volumeMounts: [
      { name: 'config', mountPath: '/config', readOnly: true },
      { name: 'state', mountPath: '/workspace', subPath: 'workspace', ...(options.workspaceReadOnly ? { readOnly: true } : {}) },
      { name: 'state', mountPath: '/state', subPath: 'state' },
      { name: 'tmp', mountPath: '/tmp' },
    ],
  };
}

/** The volumes `stageContainer` mounts: the ConfigMap, the claim, and an in-memory /tmp. */
export function stageVolumes(names: PodNames) {
  return [
    { name: 'config', configMap: { name: names.configMap } },
    { name: 'state', persistentVolumeClaim: { claimName: names.claim } },
    { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
  ];
}
