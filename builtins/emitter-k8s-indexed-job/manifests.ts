// The three Jobs of a sharded plan: prepare (one pod), the shards (an Indexed Job, one completion per shard) and gather
// (one pod). Every pod runs agentctl's image under the image's run contract: user 65532, read-only root, no
// capability, the workflow from a ConfigMap at /config, the stages' ledgers on a claim at /state, a small /tmp.
import { NOT_RETRIED_EXIT_CODES, POD_SECURITY_CONTEXT, stageArguments, stageContainer, stageVolumes, type PodNames, type ShardedPlan, type StageArguments } from '@agentctl/sdk';
import type { KubernetesOptions } from './options.js';

const CONTAINER = 'agentctl';
/** The Indexed Job's completion index, as the downward API exposes it to the container. */
const INDEX_ANNOTATION = "metadata.annotations['batch.kubernetes.io/job-completion-index']";
/**
 * Exit codes that running the same shard again cannot cure, so its index fails at once (the SDK's
 * NOT_RETRIED_EXIT_CODES). Exit 4 (a task failed) and a pod failure of any other kind use the index's retries; a
 * disrupted pod (drained node, preemption) is replaced freely.
 */
export const FAIL_INDEX_EXIT_CODES = NOT_RETRIED_EXIT_CODES;

/** Every name the manifests use (the SDK's podNames, the plan-dependent defaults filled in) and the options. */
export interface Resolved extends PodNames {
  readonly options: KubernetesOptions;
}

export function stageCommands(plan: ShardedPlan, resolved: Resolved): StageArguments {
  return stageArguments(plan, { workflow: resolved.workflowPath, state: '/state', workspace: '/workspace', shardIndex: '$(JOB_COMPLETION_INDEX)' });
}

function podTemplate(resolved: Resolved, component: string, args: readonly string[], env: object[]) {
  const { options } = resolved;
  const { image, args: stageArgs, ...contract } = stageContainer(resolved, options, args);
  return {
    metadata: { labels: { 'app.kubernetes.io/name': 'agentctl', 'app.kubernetes.io/instance': resolved.name, 'app.kubernetes.io/component': component } },
    spec: {
      restartPolicy: 'Never',
      ...(options.serviceAccountName === undefined ? {} : { serviceAccountName: options.serviceAccountName }),
      automountServiceAccountToken: false,
      // SIGTERM cancels the run (exit 130, recorded cancelled); this leaves it time to record that.
      terminationGracePeriodSeconds: 30,
      securityContext: POD_SECURITY_CONTEXT,
      containers: [{ name: CONTAINER, image, args: stageArgs, ...(env.length > 0 ? { env } : {}), ...contract }],
      volumes: stageVolumes(resolved),
    },
  };
}

function metadata(plan: ShardedPlan, resolved: Resolved, component: string) {
  return {
    name: `${resolved.name}-${component}`,
    ...(resolved.options.namespace === undefined ? {} : { namespace: resolved.options.namespace }),
    labels: { 'app.kubernetes.io/name': 'agentctl', 'app.kubernetes.io/instance': resolved.name, 'app.kubernetes.io/component': component },
    annotations: { 'agentctl.dev/workflow': plan.workflowName, 'agentctl.dev/plan-digest': plan.planDigest },
  };
}

const deadlines = (options: KubernetesOptions) => ({ activeDeadlineSeconds: options.activeDeadlineSeconds, ttlSecondsAfterFinished: options.ttlSecondsAfterFinished });

/** Prepare or gather: one attempt (a second pod would start a new run), exit 3 named in the Job's failure. */
export function singleJob(plan: ShardedPlan, resolved: Resolved, stage: 'prepare' | 'gather', args: readonly string[]) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(plan, resolved, stage),
    spec: {
      backoffLimit: 0,
      ...deadlines(resolved.options),
      podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: CONTAINER, operator: 'In', values: [3] } }] },
      template: podTemplate(resolved, stage, args, []),
    },
  };
}

/**
 * The shards: one completion per shard, each index retried on its own, never for an exit retrying cannot cure. With a
 * podFailurePolicy, Kubernetes starts a replacement pod only once the failed one has terminated (podReplacementPolicy
 * Failed), so a shard's ledger never has two writers.
 */
export function shardsJob(plan: ShardedPlan, resolved: Resolved, args: readonly string[]) {
  const { options } = resolved;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(plan, resolved, 'shards'),
    spec: {
      completionMode: 'Indexed',
      completions: plan.shards,
      parallelism: resolved.parallelism,
      backoffLimitPerIndex: options.backoffLimitPerIndex,
      ...(options.maxFailedIndexes === undefined ? {} : { maxFailedIndexes: options.maxFailedIndexes }),
      ...deadlines(options),
      podFailurePolicy: {
        rules: [
          { action: 'FailIndex', onExitCodes: { containerName: CONTAINER, operator: 'In', values: FAIL_INDEX_EXIT_CODES } },
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        ],
      },
      template: podTemplate(resolved, 'shard', args, [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: INDEX_ANNOTATION } } }]),
    },
  };
}
