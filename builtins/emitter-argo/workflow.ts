// The Argo Workflow of a sharded plan: a DAG of prepare, a shard template fanned out over N indexes (withSequence),
// and gather. Every container runs agentctl's image under the image's run contract, with the same mounts and the same
// commands as the Kubernetes Jobs.
import { NOT_RETRIED_EXIT_CODES, POD_SECURITY_CONTEXT, stageArguments, stageContainer, stageVolumes, type PodNames, type ShardedPlan } from '@agentctl/sdk';
import type { ArgoOptions } from './options.js';

/** The emitted names (the SDK's podNames) and the options. */
export interface Resolved extends PodNames {
  readonly options: ArgoOptions;
}

export function argoWorkflow(plan: ShardedPlan, resolved: Resolved): object {
  const { options } = resolved;
  const commands = stageArguments(plan, { workflow: resolved.workflowPath, state: '/state', workspace: '/workspace', shardIndex: '{{inputs.parameters.index}}' });
  const labels = { 'app.kubernetes.io/name': 'agentctl', 'app.kubernetes.io/instance': resolved.name };
  const template = (name: string, args: readonly string[], extra: object = {}) => ({ name, metadata: { labels: { ...labels, 'app.kubernetes.io/component': name } }, ...extra, container: stageContainer(resolved, resolved.options, args) });
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
      securityContext: POD_SECURITY_CONTEXT,
      volumes: stageVolumes(resolved),
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
          retryStrategy: { limit: String(options.retries), retryPolicy: 'Always', expression: `asInt(lastRetry.exitCode) not in [${NOT_RETRIED_EXIT_CODES.join(', ')}]` },
        }),
        template('gather', commands.gather),
      ],
    },
  };
}
