// A sharded plan as an Argo Workflow: `plan FILE --emit argo --shards N --out DIR` writes DIR/workflow.yaml, a DAG of
// prepare, N shards (withSequence) and gather.
import { definePlugin, generatedNotice, podNames, requireShardedPlan, type PlanEmitter } from '@agentctl/sdk';
import { stringify } from 'yaml';
import { argoOptions, type ArgoOptions } from './options.js';
import { argoWorkflow } from './workflow.js';

const FORMAT = 'argo';
const CODES = {
  noShards: 'BUILTIN_EMITTER_ARGO_E_NO_SHARDS',
  notShardable: 'BUILTIN_EMITTER_ARGO_E_NOT_SHARDABLE',
} as const;

/** The emitter; the default image is tagged with the running agentctl's version. */
const argoEmitter = (version: string): PlanEmitter<ArgoOptions> => ({
  format: FORMAT,
  description: 'an Argo Workflow of a sharded plan (needs --shards N): a DAG of prepare, the shards (withSequence) and gather',
  optionsSchema: argoOptions,
  emit({ plan: document, file, options }) {
    const plan = requireShardedPlan(document, FORMAT, CODES);
    const workflow = argoWorkflow(plan, { ...podNames(plan, options, file, version), options });
    const notice = [...generatedNotice(FORMAT, plan), 'Submit it with `argo submit workflow.yaml` (or kubectl create -f) once the ConfigMap and the claim exist.'];
    return [{ path: 'workflow.yaml', content: `${notice.map((line) => `# ${line}\n`).join('')}${stringify(workflow, { lineWidth: 0, aliasDuplicateObjects: false })}` }];
  },
});

export default definePlugin({
  name: 'builtin.emitter.argo',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Emits a sharded plan as an Argo Workflow: a DAG of prepare, the shards and gather.',
  errorCodes: {
    [CODES.noShards]: { exitCode: 2, description: 'The plan has no stages or no shard count: emit with --shards N.' },
    [CODES.notShardable]: { exitCode: 2, description: 'The workflow has no fan-out that can be split into shards; the message names the reason.' },
  },
  setup(api) {
    api.registerPlanEmitter(argoEmitter(api.hostVersion));
  },
});
