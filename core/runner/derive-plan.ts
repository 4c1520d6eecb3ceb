// The reuse plan of a derived run (retry, repair, fork): which tasks of a finished run can be reused in a new run of a
// (possibly corrected) workflow, and which run fresh. Read-only: it opens nothing for writing, so `--plan` is safe.
import { AgentctlError, type CompiledPlan, type CompiledTask, type JsonValue } from '@agentctl/sdk';
import type { Host } from '../host.js';
import { ArtifactStore } from '../store/artifacts.js';
import { parser } from '../store/inspection.js';
import type { ReusedTask } from '../store/lineage.js';
import type { Row, Store } from '../store/store.js';
import { reconciliationAccounts } from '../store/ledger-records.js';
import { definitionFingerprints, effectBlocks, inDoubt, reuseChecks, type SourceEffect } from './reuse-checks.js';
import type { Block, BlockName, Check } from './reuse-types.js';
import { snapshotFor } from './working-memory.js';

export type { Block, BlockName, Check } from './reuse-types.js';

export type DeriveMode = 'retry' | 'repair' | 'fork' | 'shard' | 'gather';

export interface PlannedTask {
  readonly taskId: string;
  /** `blocked`: a reuse candidate that failed a check (the plan is then not carried out). */
  readonly disposition: 'reused' | 'fresh' | 'blocked';
  readonly reason: string;
  readonly checks?: readonly Check[];
  /** The task's state in the source run (null: new in the workflow). */
  readonly sourceState: string | null;
  /** The task's definition fingerprint in the source run's plan and in the target plan (null where it is absent). */
  readonly sourceFingerprint: string | null;
  readonly targetFingerprint: string | null;
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
  // What each planned task carries besides its decision: its source state and both definition fingerprints.
  const identity = (taskId: string) => ({ sourceState: rows.has(taskId) ? String(rows.get(taskId)!.state) : null, ...definitionFingerprints(plan, sourcePlan, taskId) });
  const header = { mode, sourceRunId, workflow: plan.name, sourceDigest: String(source.workflow_digest), targetDigest: plan.digest, roots, removed, added };

  if (mode === 'fork') {
    const tasks = plan.tasks.map((task) => ({ taskId: task.id, disposition: 'fresh' as const, reason: 'fork', ...identity(task.id) }));
    return { plan: { ...header, compatible: true, tasks, blocks: [] }, reused: [] };
  }
  const closure = descendants(plan.tasks, roots);
  const effects = effectsByTask(store, sourceRunId);
  const artifacts = artifactsByTask(store, sourceRunId);
  const blobs = ArtifactStore.beside(store.path);
  const outputs: Record<string, { output: JsonValue }> = {};
  // A candidate renders its input against the memory its source snapshot held: this plan's initial values with the
  // source deltas its snapshot took in (memory it reads comes from those or from the initial values).
  const sourceDeltas = store.workingMemory.deltas(sourceRunId);
  const sourceOrder = (sourcePlan.tasks ?? []).map((task) => task.id);
  const memoryOf = (task: CompiledTask) => snapshotFor(plan, task, sourceOrder, sourceDeltas);
  const fresh = new Set<string>();
  const blocked = new Set<string>();
  const tasks: PlannedTask[] = [];
  const reused: ReusedTask[] = [];

  const continuations = continuedOutputs(store, sourceRunId, parse);
  for (const task of plan.tasks) {
    const row = rows.get(task.id);
    // A failed root whose remote work was observed to its end (`effects continue-remote`) is reused with the output
    // that observation gave, if the task is defined as it was: only what follows it runs again.
    const continued = row && roots.includes(task.id) && String(row.state) === 'failed' ? continuedOutput(task.id, effects.get(task.id) ?? [], continuations, plan, sourcePlan) : undefined;
    if (continued) {
      outputs[task.id] = { output: continued.output };
      tasks.push({ taskId: task.id, disposition: 'reused', reason: 'continued_remote', ...identity(task.id) });
      reused.push({ taskId: task.id, input: parse('tasks', 'input_json', row!, `task ${task.id}`), output: continued.output, artifacts: artifacts.get(task.id) ?? [], checks: [], sourceEffectIds: continued.effectIds });
      continue;
    }
    const freshBecause = closure.has(task.id)
      ? !row ? 'new_task' : roots.includes(task.id) ? 'root' : 'descendant_of_root'
      : !row ? undefined : String(row.state) !== 'succeeded' ? 'not_succeeded_in_source' : task.needs.some((need) => fresh.has(need)) ? 'needs_fresh_task' : undefined;
    if (freshBecause) {
      fresh.add(task.id);
      tasks.push({ taskId: task.id, disposition: 'fresh', reason: freshBecause, ...identity(task.id) });
      if (row) blocks.push(...effectBlocks(task.id, effects.get(task.id) ?? [], request.restartSuccessful));
      continue;
    }
    // Judged once what it needs is settled: the block of the task it needs already says what to fix.
    if (task.needs.some((need) => blocked.has(need))) {
      blocked.add(task.id);
      tasks.push({ taskId: task.id, disposition: 'blocked', reason: 'needs_blocked_task', ...identity(task.id) });
      continue;
    }
    if (!row) {
      blocked.add(task.id);
      blocks.push({ block: 'new_task_outside_repair_closure', taskId: task.id, message: `task ${task.id} is new but no --from task leads to it, so nothing says it should run` });
      tasks.push({ taskId: task.id, disposition: 'blocked', reason: 'new_task_outside_repair_closure', ...identity(task.id) });
      continue;
    }
    const context = { host: request.host, plan, sourcePlan, task, row, outputs, memory: memoryOf(task), effects: effects.get(task.id) ?? [], artifacts: artifacts.get(task.id) ?? [], blobs, parse };
    const checks = await reuseChecks(context);
    const failedChecks = checks.filter((check) => !check.passed);
    for (const check of failedChecks) blocks.push({ block: check.check as BlockName, taskId: task.id, message: `task ${task.id} cannot be reused: ${check.detail}` });
    if (failedChecks.length > 0) {
      blocked.add(task.id);
      tasks.push({ taskId: task.id, disposition: 'blocked', reason: failedChecks[0]!.check, checks, ...identity(task.id) });
      continue;
    }
    const output = parse('tasks', 'output_json', row, `task ${task.id}`);
    outputs[task.id] = { output };
    tasks.push({ taskId: task.id, disposition: 'reused', reason: 'unchanged', checks, ...identity(task.id) });
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

/** The task outputs `effects continue-remote` recorded with its reconciliations (evidence `remote_observation`), by effect. */
function continuedOutputs(store: Store, runId: string, parse: ReturnType<typeof parser>): Map<string, JsonValue> {
  const found = new Map<string, JsonValue>();
  for (const [effectId, accounts] of reconciliationAccounts(store.auditRows(runId), parse)) {
    const evidence = accounts.at(-1)?.evidence;
    if (evidence !== null && typeof evidence === 'object' && !Array.isArray(evidence) && evidence.kind === 'remote_observation' && 'taskOutput' in evidence) found.set(effectId, evidence.taskOutput as JsonValue);
  }
  return found;
}

/**
 * The output of a failed task whose last effect was continued to its end and recorded applied, when no effect of the
 * task is in doubt and its definition and output contract are unchanged; undefined otherwise.
 */
function continuedOutput(taskId: string, effects: readonly SourceEffect[], continuations: Map<string, JsonValue>, plan: CompiledPlan, sourcePlan: CompiledPlan): { output: JsonValue; effectIds: string[] } | undefined {
  const last = effects.at(-1);
  if (last === undefined || last.reconciled !== 'applied' || !continuations.has(last.id) || effects.some(inDoubt)) return undefined;
  const { sourceFingerprint, targetFingerprint } = definitionFingerprints(plan, sourcePlan, taskId);
  const contract = (from: CompiledPlan) => JSON.stringify(from.tasks.find((task) => task.id === taskId)?.outputSchema ?? null);
  if (sourceFingerprint !== targetFingerprint || contract(plan) !== contract(sourcePlan)) return undefined;
  return { output: continuations.get(last.id)!, effectIds: effects.filter((effect) => effect.state === 'succeeded' || effect.reconciled === 'applied').map((effect) => effect.id) };
}

/** A run's effects by task, each with its latest reconciliation. */
export function effectsByTask(store: Store, runId: string): Map<string, SourceEffect[]> {
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
