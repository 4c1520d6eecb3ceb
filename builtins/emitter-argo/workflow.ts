// The Argo Workflow of a sharded plan: a DAG of prepare, a shard template fanned out over N indexes (withSequence),
// and gather. Every container runs agentctl's image under the image's run contract, with the same mounts and the same
// commands as the Kubernetes Jobs.
import { stageArguments, type ShardedPlan } from '@agentctl/sdk';
import type { ArgoOptions } from './options.js';

export interface Resolved {
  readonly name: string;
  readonly image: string;
  readonly workflowPath: string;
  readonly configMap: string;
  readonly claim: string;
  readonly parallelism: number;
  readonly options: ArgoOptions;
}

/** Exit codes that running the same shard again cannot cure: 2 (invalid), 3 (paused or blocked), 5 (ledger), 6 (provider). */
const NOT_RETRIED = [2, 3, 5, 6];

function container(resolved: Resolved, args: readonly string[]) {
  const { options } = resolved;
  return {
    image: resolved.image,
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

export function argoWorkflow(plan: ShardedPlan, resolved: Resolved): object {
  const { options } = resolved;
  const commands = stageArguments(plan, { workflow: resolved.workflowPath, state: '/state', workspace: '/workspace', shardIndex: '{{inputs.parameters.index}}' });
  const labels = { 'app.kubernetes.io/name': 'agentctl', 'app.kubernetes.io/instance': resolved.name };
  const template = (name: string, args: readonly string[], extra: object = {}) => ({ name, metadata: { labels: { ...labels, 'app.kubernetes.io/component': name } }, ...extra, container: container(resolved, args) });
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Workflow',
    metadata: {
      generateName: `${resolved.name}-`,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      labels,
      annotations: { 'agentctl.dev/workflow': plan.workflowName, 'agentctl.dev/plan-digest': plan.planDigest },
    },
    spec: {
      entrypoint: 'stages',
      ...(options.serviceAccountName === undefined ? {} : { serviceAccountName: options.serviceAccountName }),
      activeDeadlineSeconds: options.activeDeadlineSeconds,
      ttlStrategy: { secondsAfterCompletion: options.ttlSecondsAfterFinished },
      securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
      volumes: [
        { name: 'config', configMap: { name: resolved.configMap } },
        { name: 'state', persistentVolumeClaim: { claimName: resolved.claim } },
        { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
      ],
      templates: [
        {
          name: 'stages',
          parallelism: resolved.parallelism,
          dag: {
            tasks: [
              { name: 'prepare', template: 'prepare' },
              { name: 'shard', template: 'shard', dependencies: ['prepare'], withSequence: { count: String(plan.shards) }, arguments: { parameters: [{ name: 'index', value: '{{item}}' }] } },
              { name: 'gather', template: 'gather', dependencies: ['shard'] },
            ],
          },
        },
        template('prepare', commands.prepare),
        template('shard', commands.shard, {
          inputs: { parameters: [{ name: 'index' }] },
          // Exit 4 (a task failed) and a lost pod are retried; what running the shard again cannot cure is not.
          retryStrategy: { limit: String(options.retries), retryPolicy: 'Always', expression: `asInt(lastRetry.exitCode) not in [${NOT_RETRIED.join(', ')}]` },
        }),
        template('gather', commands.gather),
      ],
    },
  };
}
