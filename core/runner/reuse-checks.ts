// The reuse checks of a repair or retry plan: a source task is reused only when each is provably unchanged, and a
// task that runs again must not repeat an effect in doubt or one that is not safe to repeat.
import type { CompiledAction, CompiledPlan, CompiledTask, JsonValue } from '@agentctl/sdk';
import { inputSchemaOf } from '../action-shape.js';
import type { Host } from '../host.js';
import { renderValue, TemplateError } from '../compiler/templates.js';
import { fullTaskVars, taskScope } from './scope.js';
import type { ArtifactStore } from '../store/artifacts.js';
import type { parser } from '../store/inspection.js';
import { outputDigestOf } from '../store/lineage.js';
import type { Row } from '../store/store.js';
import type { Block, BlockName, Check } from './reuse-types.js';
import { canonicalJson, sha256 } from './effects.js';

const NON_MUTATING = new Set(['observe', 'pure']);
const REPEATABLE = new Set(['pure', 'idempotent', 'keyed']);

export interface SourceEffect {
  readonly id: string;
  readonly state: string;
  readonly effectClass: string;
  readonly idempotency: string;
  readonly operation: string;
  readonly reconciled: string | null;
}

export const inDoubt = (effect: SourceEffect) => (effect.state === 'started' || effect.state === 'uncertain') && effect.reconciled === null;

/**
 * A fresh task runs its effects again. One of its source effects still in doubt blocks until an operator reconciles
 * it; a mutating one that happened and is not safe to repeat blocks unless the operator passed --restart-successful.
 */
export function effectBlocks(taskId: string, effects: readonly SourceEffect[], acknowledged: boolean): Block[] {
  const blocks: Block[] = [];
  for (const effect of effects) {
    if (NON_MUTATING.has(effect.effectClass)) continue;
    if (inDoubt(effect)) {
      blocks.push({ block: 'unreconciled_effect', taskId, effectId: effect.id, message: `task ${taskId} would run again, but its effect ${effect.id} (${effect.operation}) is ${effect.state} in the source run and may have happened` });
    } else if (effect.reconciled !== 'compensated' && (effect.state === 'succeeded' || effect.reconciled === 'applied') && !REPEATABLE.has(effect.idempotency) && !acknowledged) {
      blocks.push({ block: 'non_idempotent_effect', taskId, effectId: effect.id, message: `task ${taskId} would run again, and its effect ${effect.id} (${effect.operation}, idempotency ${effect.idempotency}) already happened in the source run` });
    }
  }
  return blocks;
}

export interface CandidateContext {
  readonly host: Host;
  readonly plan: CompiledPlan;
  readonly sourcePlan: CompiledPlan;
  readonly task: CompiledTask;
  readonly row: Row;
  readonly outputs: Record<string, { output: JsonValue }>;
  /** The working memory the task's input is rendered against: what the source run's snapshot of it held. */
  readonly memory: Readonly<Record<string, JsonValue>>;
  readonly effects: readonly SourceEffect[];
  readonly artifacts: readonly { path: string; digest: string; size: number }[];
  readonly blobs: ArtifactStore;
  readonly parse: ReturnType<typeof parser>;
}

const digestOf = (value: unknown) => `sha256:${sha256(canonicalJson(JSON.parse(JSON.stringify(value ?? null)) as JsonValue))}`;

/** What defines a task's behaviour besides its needs and output contract (checked on their own): task and action. */
function fingerprint(plan: CompiledPlan, task: CompiledTask | undefined, action: CompiledAction | undefined): string {
  if (!task || !action) return 'absent';
  const { index: _index, needs: _needs, outputSchema: _outputSchema, varsFiles: _files, vars: _vars, ...rest } = task;
  // Vars with their files' keys restored: the same fingerprint whether the plan stored the files once or in each task.
  const vars = fullTaskVars(plan, task);
  const definition = vars === undefined ? rest : { ...rest, vars };
  return digestOf({ task: definition, action });
}

/** A task's definition fingerprint in the target plan and in the source run's plan (null where it has none). */
export function definitionFingerprints(plan: CompiledPlan, sourcePlan: CompiledPlan, taskId: string): { sourceFingerprint: string | null; targetFingerprint: string | null } {
  const of = (from: CompiledPlan) => {
    const task = from.tasks.find((candidate) => candidate.id === taskId);
    return task ? fingerprint(from, task, from.actions[task.action]) : null;
  };
  return { sourceFingerprint: of(sourcePlan), targetFingerprint: of(plan) };
}

/** Every reuse check of one candidate, in a fixed order. All are run, so the plan names every difference. */
export async function reuseChecks(context: CandidateContext): Promise<Check[]> {
  const { plan, sourcePlan, task, row } = context;
  const before = sourcePlan.tasks.find((candidate) => candidate.id === task.id);
  const checks: Check[] = [];
  const add = (check: BlockName, passed: boolean, detail: string) => checks.push({ check, passed, detail });

  const [now, then] = [fingerprint(plan, task, plan.actions[task.action]), fingerprint(sourcePlan, before, before && sourcePlan.actions[before.action])];
  add('definition_fingerprint_mismatch', now === then, now === then ? `task and action definition ${now}` : `the task or its action changed (${then} then, ${now} now)`);

  const recorded = (context.parse('tasks', 'input_json', row, `task ${task.id}`) ?? {}) as { digest?: string };
  const resolved = resolvedInputDigest(context);
  const inputSame = resolved.digest !== undefined && resolved.digest === recorded.digest;
  // A recorded input that held a secret value has a keyed digest, which only the secret's value could reproduce.
  const keyed = recorded.digest?.startsWith('hmac-') ? 'the recorded input held a secret value, so its digest cannot be recomputed without resolving it' : undefined;
  add('resolved_input_digest_mismatch', inputSame, inputSame ? `resolved input ${resolved.digest}` : keyed ?? resolved.problem ?? `the resolved input changed (${recorded.digest ?? 'none recorded'} then, ${resolved.digest} now)`);

  const [needsNow, needsThen] = [[...task.needs].sort().join(', '), before ? [...before.needs].sort().join(', ') : 'absent'];
  add('dependency_set_mismatch', needsNow === needsThen, needsNow === needsThen ? `needs [${needsNow}]` : `needs changed ([${needsThen}] then, [${needsNow}] now)`);

  const [contractNow, contractThen] = [digestOf(task.outputSchema), digestOf(before?.outputSchema)];
  add('output_contract_mismatch', contractNow === contractThen, contractNow === contractThen ? `outputSchema ${contractNow}` : 'the outputSchema changed');

  const text = String(row.output_json ?? 'null');
  const stored = row.output_digest === null || row.output_digest === undefined ? undefined : String(row.output_digest);
  const actual = outputDigestOf(text);
  add('output_digest_mismatch', stored === undefined || stored === actual, stored === undefined ? `output ${actual} (no digest was recorded; this one is recorded with the reuse)` : stored === actual ? `output ${actual}` : `the stored output no longer hashes to the digest recorded with it (${stored})`);

  const damaged: string[] = [];
  for (const artifact of context.artifacts) {
    const found = await context.blobs.check(artifact.digest, artifact.size);
    if (found.status !== 'ok') damaged.push(`${artifact.path} (${artifact.digest} is ${found.status})`);
  }
  add('artifact_integrity', damaged.length === 0, damaged.length === 0 ? `${context.artifacts.length} artifact(s) verified` : `artifact bytes do not verify: ${damaged.join(', ')}`);

  const doubtful = context.effects.filter(inDoubt);
  add('unreconciled_effect', doubtful.length === 0, doubtful.length === 0 ? 'no effect in doubt' : `effects in doubt: ${doubtful.map((effect) => `${effect.id} (${effect.operation}, ${effect.state})`).join(', ')}`);

  // A compensated effect was undone on purpose: the result the task stands on no longer exists.
  const undone = context.effects.filter((effect) => effect.reconciled === 'compensated');
  add('compensated_effect', undone.length === 0, undone.length === 0 ? 'no effect compensated' : `effects compensated since: ${undone.map((effect) => `${effect.id} (${effect.operation})`).join(', ')}; name the task in --from (with --restart-successful) to run it again`);
  return checks;
}

/** The target task's `with`, rendered as dispatch would (inputs, vars, memory, reused outputs) and parsed by its kind. */
function resolvedInputDigest(context: CandidateContext): { digest?: string; problem?: string } {
  const { plan, task } = context;
  const kind = context.host.actionKind(plan.actions[task.action]!.kind)!;
  try {
    const parsed = inputSchemaOf(kind, plan.actions[task.action]!.fields, plan.sections).safeParse(renderValue(task.with, taskScope(plan, task, context.outputs, context.memory)));
    if (!parsed.success) return { problem: `the input does not match ${kind.name} now` };
    return { digest: `sha256:${sha256(canonicalJson(parsed.data as JsonValue))}` };
  } catch (error) {
    if (error instanceof TemplateError) return { problem: `the input cannot be rendered now: ${error.message}` };
    throw error;
  }
}
