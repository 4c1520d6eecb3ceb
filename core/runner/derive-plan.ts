// The reuse plan of a derived run (retry, repair, fork): which tasks of a finished run can be reused in a new run of a
// (possibly corrected) workflow, and which run fresh. Read-only: it opens nothing for writing, so `--plan` is safe.
import { AgentctlError, type CompiledAction, type CompiledPlan, type CompiledTask, type JsonValue } from '../../sdk/index.js';
import type { Host } from '../host.js';
import { renderValue, TemplateError } from '../compiler/templates.js';
import { ArtifactStore } from '../store/artifacts.js';
import { parser } from '../store/inspection.js';
import { outputDigestOf, type ReusedTask } from '../store/lineage.js';
import type { Row, Store } from '../store/store.js';
import { canonicalJson, sha256 } from './effects.js';

export type DeriveMode = 'retry' | 'repair' | 'fork';

/** Why a plan cannot be carried out. Stable snake_case names: scripts match on them. */
export type BlockName =
  | 'repair_root_missing'
  | 'successful_root_requires_acknowledgement'
  | 'definition_fingerprint_mismatch'
  | 'resolved_input_digest_mismatch'
  | 'dependency_set_mismatch'
  | 'output_contract_mismatch'
  | 'output_digest_mismatch'
  | 'artifact_integrity'
  | 'new_task_outside_repair_closure'
  | 'unreconciled_effect'
  | 'non_idempotent_effect';

export interface Block {
  readonly block: BlockName;
  readonly taskId: string;
  readonly message: string;
  readonly effectId?: string;
}

/** One reuse check of a candidate task: whether it passed, and what it compared. */
export interface Check {
  readonly check: string;
  readonly passed: boolean;
  readonly detail: string;
}

export interface PlannedTask {
  readonly taskId: string;
  /** `blocked`: a reuse candidate that failed a check (the plan is then not carried out). */
  readonly disposition: 'reused' | 'fresh' | 'blocked';
  readonly reason: string;
  readonly checks?: readonly Check[];
}

/** What `retry|repair --plan` prints (kind `RepairPlan`) and what the derived run is built from. */
export interface RepairPlan {
  readonly mode: DeriveMode;
  readonly sourceRunId: string;
  readonly workflow: string;
  readonly sourceDigest: string;
  readonly targetDigest: string;
  readonly roots: readonly string[];
  readonly compatible: boolean;
  readonly tasks: readonly PlannedTask[];
  /** Tasks of the source run that the target workflow no longer has: reported, never a block. */
  readonly removed: readonly string[];
  /** Tasks of the target workflow that the source run did not have. */
  readonly added: readonly string[];
  readonly blocks: readonly Block[];
}

export interface DerivationRequest {
  readonly host: Host;
  readonly store: Store;
  readonly plan: CompiledPlan;
  readonly source: Row;
  readonly mode: DeriveMode;
  /** `--from` tasks; empty with `failed`. */
  readonly from: readonly string[];
  readonly failed: boolean;
  /** The operator accepts that succeeded work (a succeeded root, a non-idempotent effect) is done again. */
  readonly restartSuccessful: boolean;
}

/** The plan plus, per reused task, what the derived run materializes. */
export interface Derivation {
  readonly plan: RepairPlan;
  readonly reused: readonly ReusedTask[];
}

const NON_MUTATING = new Set(['observe', 'pure']);
const REPEATABLE = new Set(['pure', 'idempotent', 'keyed']);

export async function planDerivation(request: DerivationRequest): Promise<Derivation> {
  const { store, plan, source, mode } = request;
  const sourceRunId = String(source.id);
  const parse = parser(sourceRunId);
  const sourcePlan = parse('runs', 'plan_json', source) as unknown as CompiledPlan;
  const rows = new Map(store.taskRows(sourceRunId).map((row) => [String(row.task_id), row]));
  const target = new Map(plan.tasks.map((task) => [task.id, task]));
  const removed = [...rows.keys()].filter((id) => !target.has(id));
  const added = plan.tasks.filter((task) => !rows.has(task.id)).map((task) => task.id);
  const blocks: Block[] = [];
  const roots = chooseRoots(request, rows, target, blocks);
  const header = { mode, sourceRunId, workflow: plan.name, sourceDigest: String(source.workflow_digest), targetDigest: plan.digest, roots, removed, added };

  if (mode === 'fork') {
    const tasks = plan.tasks.map((task) => ({ taskId: task.id, disposition: 'fresh' as const, reason: 'fork' }));
    return { plan: { ...header, compatible: true, tasks, blocks: [] }, reused: [] };
  }
  const closure = descendants(plan.tasks, roots);
  const effects = effectsByTask(store, sourceRunId);
  const artifacts = artifactsByTask(store, sourceRunId);
  const blobs = ArtifactStore.beside(store.path);
  const outputs: Record<string, { output: JsonValue }> = {};
  const fresh = new Set<string>();
  const blocked = new Set<string>();
  const tasks: PlannedTask[] = [];
  const reused: ReusedTask[] = [];

  for (const task of plan.tasks) {
    const row = rows.get(task.id);
    const freshBecause = closure.has(task.id)
      ? !row ? 'new_task' : roots.includes(task.id) ? 'root' : 'descendant_of_root'
      : !row ? undefined : String(row.state) !== 'succeeded' ? 'not_succeeded_in_source' : task.needs.some((need) => fresh.has(need)) ? 'needs_fresh_task' : undefined;
    if (freshBecause) {
      fresh.add(task.id);
      tasks.push({ taskId: task.id, disposition: 'fresh', reason: freshBecause });
      if (row) blocks.push(...effectBlocks(task.id, effects.get(task.id) ?? [], request.restartSuccessful));
      continue;
    }
    // Judged once what it needs is settled: the block of the task it needs already says what to fix.
    if (task.needs.some((need) => blocked.has(need))) {
      blocked.add(task.id);
      tasks.push({ taskId: task.id, disposition: 'blocked', reason: 'needs_blocked_task' });
      continue;
    }
    if (!row) {
      blocked.add(task.id);
      blocks.push({ block: 'new_task_outside_repair_closure', taskId: task.id, message: `task ${task.id} is new but no --from task leads to it, so nothing says it should run` });
      tasks.push({ taskId: task.id, disposition: 'blocked', reason: 'new_task_outside_repair_closure' });
      continue;
    }
    const context = { host: request.host, plan, sourcePlan, task, row, outputs, effects: effects.get(task.id) ?? [], artifacts: artifacts.get(task.id) ?? [], blobs, parse };
    const checks = await reuseChecks(context);
    const failedChecks = checks.filter((check) => !check.passed);
    for (const check of failedChecks) blocks.push({ block: check.check as BlockName, taskId: task.id, message: `task ${task.id} cannot be reused: ${check.detail}` });
    if (failedChecks.length > 0) {
      blocked.add(task.id);
      tasks.push({ taskId: task.id, disposition: 'blocked', reason: failedChecks[0]!.check, checks });
      continue;
    }
    const output = parse('tasks', 'output_json', row, `task ${task.id}`);
    outputs[task.id] = { output };
    tasks.push({ taskId: task.id, disposition: 'reused', reason: 'unchanged', checks });
    reused.push({
      taskId: task.id,
      input: parse('tasks', 'input_json', row, `task ${task.id}`),
      output,
      artifacts: context.artifacts,
      checks: checks as unknown as JsonValue,
      sourceEffectIds: context.effects.filter((effect) => effect.state === 'succeeded' || effect.reconciled === 'applied').map((effect) => effect.id),
    });
  }
  return { plan: { ...header, compatible: blocks.length === 0, tasks, blocks }, reused };
}

/** The roots: `--failed` takes the source's failed tasks, `--from` the named ones (checked against both workflows). */
function chooseRoots(request: DerivationRequest, rows: Map<string, Row>, target: Map<string, CompiledTask>, blocks: Block[]): string[] {
  if (request.mode === 'fork') return [];
  if (request.failed) {
    const failed = [...rows.values()].filter((row) => row.state === 'failed').map((row) => String(row.task_id));
    if (failed.length === 0 && [...rows.values()].every((row) => row.state === 'succeeded')) {
      throw new AgentctlError('AGENTCTL_E_USAGE', `run ${String(request.source.id)} has no failed, skipped or cancelled task: --failed selects nothing`, {
        help: 'name the tasks to run again with --from TASK (a succeeded one needs --restart-successful), or use fork',
      });
    }
    return failed.filter((id) => target.has(id));
  }
  const roots: string[] = [];
  for (const id of request.from) {
    if (roots.includes(id)) continue;
    if (!target.has(id) && !rows.has(id)) {
      const known = [...target.keys()].join(', ');
      throw new AgentctlError('AGENTCTL_E_UNKNOWN_TASK', `--from ${id}: no task ${id} in the workflow or in run ${String(request.source.id)}`, { help: `tasks of the workflow: ${known}` });
    }
    if (!target.has(id)) {
      blocks.push({ block: 'repair_root_missing', taskId: id, message: `--from ${id}: the task ran in the source run but the workflow no longer has it` });
      continue;
    }
    if (rows.get(id)?.state === 'succeeded' && !request.restartSuccessful) {
      blocks.push({ block: 'successful_root_requires_acknowledgement', taskId: id, message: `--from ${id}: the task succeeded in the source run; pass --restart-successful to run it again` });
    }
    roots.push(id);
  }
  return roots;
}

/** The roots and every task that needs one of them, transitively. */
function descendants(tasks: readonly CompiledTask[], roots: readonly string[]): Set<string> {
  const closure = new Set(roots);
  // Plan order is topological: one pass sees every need before its dependents.
  for (const task of tasks) if (task.needs.some((need) => closure.has(need))) closure.add(task.id);
  return closure;
}

interface SourceEffect {
  readonly id: string;
  readonly state: string;
  readonly effectClass: string;
  readonly idempotency: string;
  readonly operation: string;
  readonly reconciled: string | null;
}

function effectsByTask(store: Store, runId: string): Map<string, SourceEffect[]> {
  const reconciled = store.latestReconciliations(runId);
  const byTask = new Map<string, SourceEffect[]>();
  for (const row of store.effectRows(runId)) {
    const effect = { id: String(row.id), state: String(row.state), effectClass: String(row.effect_class), idempotency: String(row.idempotency), operation: String(row.operation), reconciled: (reconciled.get(String(row.id))?.outcome as string | undefined) ?? null };
    byTask.set(String(row.task_id), [...(byTask.get(String(row.task_id)) ?? []), effect]);
  }
  return byTask;
}

function artifactsByTask(store: Store, runId: string): Map<string, { path: string; digest: string; size: number }[]> {
  const byTask = new Map<string, { path: string; digest: string; size: number }[]>();
  for (const row of store.taskArtifactRows(runId)) {
    byTask.set(String(row.task_id), [...(byTask.get(String(row.task_id)) ?? []), { path: String(row.path), digest: String(row.digest), size: Number(row.size) }]);
  }
  return byTask;
}

const inDoubt = (effect: SourceEffect) => (effect.state === 'started' || effect.state === 'uncertain') && effect.reconciled === null;

/**
 * A fresh task runs its effects again. One of its source effects still in doubt blocks until an operator reconciles
 * it; a mutating one that happened and is not safe to repeat blocks unless the operator passed --restart-successful.
 */
function effectBlocks(taskId: string, effects: readonly SourceEffect[], acknowledged: boolean): Block[] {
  const blocks: Block[] = [];
  for (const effect of effects) {
    if (NON_MUTATING.has(effect.effectClass)) continue;
    if (inDoubt(effect)) {
      blocks.push({ block: 'unreconciled_effect', taskId, effectId: effect.id, message: `task ${taskId} would run again, but its effect ${effect.id} (${effect.operation}) is ${effect.state} in the source run and may have happened` });
    } else if ((effect.state === 'succeeded' || effect.reconciled === 'applied') && !REPEATABLE.has(effect.idempotency) && !acknowledged) {
      blocks.push({ block: 'non_idempotent_effect', taskId, effectId: effect.id, message: `task ${taskId} would run again, and its effect ${effect.id} (${effect.operation}, idempotency ${effect.idempotency}) already happened in the source run` });
    }
  }
  return blocks;
}

interface CandidateContext {
  readonly host: Host;
  readonly plan: CompiledPlan;
  readonly sourcePlan: CompiledPlan;
  readonly task: CompiledTask;
  readonly row: Row;
  readonly outputs: Record<string, { output: JsonValue }>;
  readonly effects: readonly SourceEffect[];
  readonly artifacts: readonly { path: string; digest: string; size: number }[];
  readonly blobs: ArtifactStore;
  readonly parse: ReturnType<typeof parser>;
}

const digestOf = (value: unknown) => `sha256:${sha256(canonicalJson(JSON.parse(JSON.stringify(value ?? null)) as JsonValue))}`;

/** What defines a task's behaviour besides its needs and output contract (checked on their own): task and action. */
function fingerprint(task: CompiledTask | undefined, action: CompiledAction | undefined): string {
  if (!task || !action) return 'absent';
  const { index: _index, needs: _needs, outputSchema: _outputSchema, ...definition } = task;
  return digestOf({ task: definition, action });
}

/** Every reuse check of one candidate, in a fixed order. All are run, so the plan names every difference. */
async function reuseChecks(context: CandidateContext): Promise<Check[]> {
  const { plan, sourcePlan, task, row } = context;
  const before = sourcePlan.tasks.find((candidate) => candidate.id === task.id);
  const checks: Check[] = [];
  const add = (check: BlockName, passed: boolean, detail: string) => checks.push({ check, passed, detail });

  const [now, then] = [fingerprint(task, plan.actions[task.action]), fingerprint(before, before && sourcePlan.actions[before.action])];
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
  return checks;
}

/** The target task's `with`, rendered as dispatch would (inputs, vars, reused outputs) and parsed by its kind. */
function resolvedInputDigest(context: CandidateContext): { digest?: string; problem?: string } {
  const { plan, task } = context;
  const kind = context.host.actionKind(plan.actions[task.action]!.kind)!;
  try {
    const parsed = kind.inputSchema.safeParse(renderValue(task.with, { inputs: plan.inputs, vars: plan.vars, memory: {}, tasks: context.outputs }));
    if (!parsed.success) return { problem: `the input does not match ${kind.name} now` };
    return { digest: `sha256:${sha256(canonicalJson(parsed.data as JsonValue))}` };
  } catch (error) {
    if (error instanceof TemplateError) return { problem: `the input cannot be rendered now: ${error.message}` };
    throw error;
  }
}
