// What the scale-out emitter cases share: the fan-out workflow, its stages as the cut gives them, the emitters reached
// through the real host's registry as `plan --emit` reaches them, the stage command contract, and the Argo schema.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { composeHost } from '../../core/cli/composition.js';
import { ROOT } from '../support/cli.js';
import type { PodSpec } from '../support/ci-recipe-checks.js';
import { workflow } from './helpers.js';

/** A prepare task, a foreach of five items each needing it, and a task after the aggregate. */
export const FANOUT = workflow(
  {
    policy: { approval: 'never' },
    actions: { assign: { kind: 'builtin.assign' } },
    tasks: [
      { id: 'manifest', uses: 'action:assign', with: { items: ['a', 'b', 'c', 'd', 'e'] } },
      { id: 'work', uses: 'action:assign', needs: ['manifest'], foreach: { items: ['a', 'b', 'c', 'd', 'e'], as: 'item' }, with: { item: '${{ vars.item }}' } },
      { id: 'combine', uses: 'action:assign', needs: ['work'], with: { all: '${{ tasks.work.output }}' } },
    ],
  },
  'Fan.Out_Demo',
);
export const FORMATS = ['k8s-indexed-job', 'github-matrix', 'argo'] as const;
export type Format = (typeof FORMATS)[number];
export const PREFIX: Record<Format, string> = { 'k8s-indexed-job': 'BUILTIN_EMITTER_K8S_INDEXED_JOB_E_', 'github-matrix': 'BUILTIN_EMITTER_GITHUB_MATRIX_E_', argo: 'BUILTIN_EMITTER_ARGO_E_' };

/** The stages of FANOUT cut in `shards` shards: prepare the manifest, one item per child, gather the aggregate and combine. */
export function withStages(plan: any, shards: number | null): any {
  const children: string[] = plan.order.filter((id: string) => plan.tasks[id].expansion?.parent === 'work');
  const assignment = shards === null ? null : Array.from({ length: shards }, (_, shard) => ({ shard, items: children.map((_, index) => index).filter((index) => index % shards === shard), taskIds: children.filter((_, index) => index % shards === shard) }));
  return {
    ...plan,
    stages: { shardable: true, reason: null, fanout: { taskId: 'work', construct: 'foreach', items: children.length }, prepare: ['manifest'], items: children.map((id, index) => ({ index, taskIds: [id] })), gather: ['work', 'combine'], shards, assignment },
  };
}

export const notShardable = (plan: any) => ({ ...plan, stages: { shardable: false, reason: { code: 'single_item', message: 'the fan-out work has one item' }, fanout: null, prepare: [], items: [], gather: plan.order, shards: 3, assignment: null } });

/** What `plan FILE --emit FORMAT` does with a plan document: the registered emitter, its options parsed by its schema. */
export async function emit(format: Format, plan: unknown, options: Record<string, unknown> = {}, file = 'flows/wf.yaml'): Promise<Map<string, string>> {
  const emitter = composeHost().planEmitter(format)!;
  const files = await emitter.emit({ plan: plan as never, file, options: emitter.optionsSchema!.parse(options) });
  return new Map(files.map((entry) => [entry.path, String(entry.content)]));
}

/** The error an emitter throws (the host's wrapper gives it the plugin and the hook). */
export async function refusal(format: Format, plan: unknown, options: Record<string, unknown> = {}): Promise<any> {
  try {
    await emit(format, plan, options);
  } catch (error) {
    return error;
  }
  throw new Error(`${format} emitted the plan`);
}

export const CONTRACT = {
  prepare: ['run', '/config/wf.yaml', '--stage', 'prepare', '--fanout', 'work', '--db', '/state/prepare/runtime.db', '--workspace', '/workspace', '--output', 'json'],
  shard: (index: string, shards: number) => ['run', '/config/wf.yaml', '--shard', `${index}/${shards}`, '--from', '/state/prepare/runtime.db', '--db', `/state/shards/${index}/runtime.db`, '--workspace', '/workspace', '--output', 'json'],
  gather: (shards: number) => ['runs', 'gather', '/config/wf.yaml', ...Array.from({ length: shards }, (_, index) => ['--from', `/state/shards/${index}/runtime.db`]).flat(), '--db', '/state/gather/runtime.db', '--workspace', '/workspace', '--output', 'json'],
};

/** The mounts a pod gives the container: mount path → where it comes from. */
export function mountsOf(pod: PodSpec) {
  const container = pod.containers[0]!;
  return Object.fromEntries(container.volumeMounts.map((mount: any) => [mount.mountPath, { ...pod.volumes.find((volume) => volume.name === mount.name), subPath: mount.subPath, readOnly: mount.readOnly === true }]));
}

/** The Argo Workflow schema, vendored from Argo Workflows, with its objects closed as strict field validation closes them. */
export function argoValidator() {
  const schema = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/argo/workflow.schema.json'), 'utf8'));
  // kubectl's default (strict) field validation and `argo lint` refuse a field a type does not declare.
  const close = (value: any): any => {
    if (Array.isArray(value)) return value.map(close);
    if (value === null || typeof value !== 'object') return value;
    const closed = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(inner as object).map(([name, property]) => [name, close(property)])) : close(inner)]));
    return value.properties !== undefined && value.additionalProperties === undefined ? { ...closed, additionalProperties: false } : closed;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const validate = ajv.compile(close(schema));
  return (value: unknown) => (validate(value) ? [] : validate.errors!.map((error) => `${error.instancePath} ${error.message}${error.params && 'additionalProperty' in error.params ? ` (${error.params.additionalProperty})` : ''}`));
}

