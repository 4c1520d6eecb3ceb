// The `data` of the recovery verbs' documents, shaped as the reference implementation prints them (RetryPlan,
// RepairPlan, RetryOutcome, RepairOutcome, CompensationPlan, CompensationOutcome; see sdk/documents/run.ts). The
// planners keep their own types; these functions only translate, adding agentctl's fields beside the reference's.
import { basename } from 'node:path';
import type { CompiledAction, CompiledPlan, JsonValue } from '@agentctl/sdk';
import type { Host } from '../../host.js';
import type { CompensationPlan } from '../../runner/compensate.js';
import type { Block, Derivation, PlannedTask } from '../../runner/derive-plan.js';
import type { RunResult } from '../../runner/run.js';
import type { Store } from '../../store/store.js';

const DISPOSITION: Readonly<Record<PlannedTask['disposition'], string>> = { reused: 'reuse', fresh: 'execute', blocked: 'blocked' };
/** Blocks that a repair from the blocked task itself settles; the others need an operator (reconcile) or a flag. */
const SETTLED_BY_REPAIRING = new Set(['definition_fingerprint_mismatch', 'resolved_input_digest_mismatch', 'dependency_set_mismatch', 'output_contract_mismatch', 'output_digest_mismatch', 'artifact_integrity', 'new_task_outside_repair_closure']);

/** `retry --plan` (`RetryPlan`) or `repair --plan` (`RepairPlan`): the reference's fields, then agentctl's plan. */
export function derivationDocument(host: Host, derivation: Derivation, target: CompiledPlan, store: Store, failedOnly: boolean, restartSuccessful: boolean): { kind: string; data: Record<string, unknown> } {
  const { plan } = derivation;
  const byId = new Map(plan.tasks.map((task) => [task.taskId, task]));
  const rerun = plan.tasks.filter((task) => task.disposition === 'fresh').map((task) => task.taskId);
  const tasks = [
    ...plan.tasks.map((task) => ({ ...task, disposition: DISPOSITION[task.disposition] })),
    ...plan.removed.map((taskId) => ({ taskId, disposition: 'removed', reason: 'removed_from_workflow', sourceState: sourceState(store, plan.sourceRunId, taskId), sourceFingerprint: null, targetFingerprint: null })),
  ];
  const common = {
    compatible: plan.compatible,
    sourceRunId: plan.sourceRunId,
    restartSuccessful,
    reusedTasks: plan.tasks.filter((task) => task.disposition === 'reused').map((task) => task.taskId),
    rerunTasks: rerun,
    blockedReuse: plan.blocks.map((block) => blockDocument(block, byId.get(block.taskId))),
    freshEffectSummary: freshEffects(host, target, rerun, store, plan.sourceRunId),
    approvalSummary: approvals(target, rerun),
    estimatedProviderTasks: providerTasks(host, target, rerun),
    warnings: [] as string[],
    tasks,
  };
  // agentctl's own plan fields (mode, workflow, digests, roots, removed, added, blocks) stay beside the reference's.
  const own = { ...plan, tasks };
  if (plan.mode === 'retry') {
    return { kind: 'RetryPlan', data: { ...own, apiVersion: 'agentctl.dev/retry-plan/v1', ...common, workflowDigest: plan.targetDigest, failedOnly, retryRoots: [...plan.roots] } };
  }
  const changed = plan.tasks.filter((task) => task.sourceFingerprint !== null && task.targetFingerprint !== null && task.sourceFingerprint !== task.targetFingerprint).map((task) => task.taskId);
  return {
    kind: 'RepairPlan',
    data: { ...own, apiVersion: 'agentctl.dev/repair-plan/v1', ...common, sourceWorkflowDigest: plan.sourceDigest, targetWorkflowDigest: plan.targetDigest, repairRoots: [...plan.roots], newTasks: [...plan.added], removedTasks: [...plan.removed], changedTasks: changed },
  };
}

function blockDocument(block: Block, task: PlannedTask | undefined) {
  return {
    taskId: block.taskId,
    rule: block.block,
    message: block.message,
    sourceFingerprint: task?.sourceFingerprint ?? null,
    targetFingerprint: task?.targetFingerprint ?? null,
    suggestedRepairRoots: SETTLED_BY_REPAIRING.has(block.block) ? [block.taskId] : [],
    // agentctl can always repair from the blocked task, or reconcile what is in doubt: a full fork is never the only way.
    fullForkRequired: false,
    ...(block.effectId === undefined ? {} : { effectId: block.effectId }),
  };
}

const sourceState = (store: Store, runId: string, taskId: string) => {
  const row = store.taskRows(runId).find((candidate) => candidate.task_id === taskId);
  return row ? String(row.state) : null;
};

const actionOf = (plan: CompiledPlan, taskId: string) => {
  const task = plan.tasks.find((candidate) => candidate.id === taskId);
  return task && !task.control ? plan.actions[task.action] : undefined;
};

const providerTasks = (host: Host, plan: CompiledPlan, rerun: readonly string[]) => rerun.filter((id) => usesProvider(host, actionOf(plan, id))).length;

/** Whether the task body of an action's kind calls a model provider (an agent task does). */
const usesProvider = (host: Host, action: CompiledAction | undefined) => action !== undefined && host.taskBody(action.kind)?.usesProvider === true;

/** What the fresh tasks will do: agent tasks, action tasks, those whose effect changes something, and doubt left in the source. */
function freshEffects(host: Host, plan: CompiledPlan, rerun: readonly string[], store: Store, sourceRunId: string) {
  const actions = rerun.map((id) => actionOf(plan, id)).filter((action) => action !== undefined);
  const inDoubt = store.effectRows(sourceRunId).filter((effect) => rerun.includes(String(effect.task_id)) && (effect.state === 'started' || effect.state === 'uncertain'));
  return {
    providerTasks: actions.filter((action) => usesProvider(host, action)).length,
    actionTasks: actions.filter((action) => !usesProvider(host, action)).length,
    declaredEffects: actions.filter((action) => action.profile.effectClass !== 'pure').length,
    uncertainSourceEffects: inDoubt.length,
  };
}

/** The fresh tasks an approval may stop, as `TASK: why`. */
function approvals(plan: CompiledPlan, rerun: readonly string[]): string[] {
  if (plan.policy.approval === 'never') return [];
  return rerun.flatMap((id) => {
    const action = actionOf(plan, id);
    if (!action || action.profile.effectClass === 'pure' || action.profile.effectClass === 'observe') return [];
    return [`${id}: policy.approval ${String(plan.policy.approval)} (${action.profile.effectClass}, risk ${action.profile.risk})`];
  });
}

/** The files a run's tasks produced (reused ones included), as the reference's `ArtifactRecord`s. */
export function artifactRecords(store: Store, runId: string) {
  return store.taskArtifactRows(runId).map((row) => {
    const digest = String(row.digest);
    const hex = digest.slice('sha256:'.length);
    return { path: String(row.path), digest, sizeBytes: Number(row.size), mediaType: 'application/octet-stream', logicalName: basename(String(row.path)), storePath: `artifacts/sha256/${hex.slice(0, 2)}/${hex}`, taskId: String(row.task_id) };
  });
}

/** The lineage fields of a retry's or repair's outcome (`RetryOutcome`, `RepairOutcome`), beside RunOutcome's. */
export function derivedOutcomeFields(derivation: Derivation, failedOnly: boolean, result: RunResult, store: Store): Record<string, JsonValue> {
  const reused = derivation.reused.map((task) => task.taskId);
  const fields = {
    sourceRunId: derivation.plan.sourceRunId,
    reusedTasks: reused,
    executedTasks: Object.keys(result.tasks).filter((id) => !reused.includes(id) && result.tasks[id] !== 'pending' && result.tasks[id] !== 'skipped' && result.tasks[id] !== 'cancelled'),
    artifacts: artifactRecords(store, result.runId),
  };
  return derivation.plan.mode === 'retry' ? { ...fields, failedOnly, retryRoots: [...derivation.plan.roots] } : fields;
}

/** `compensate --plan` (`CompensationPlan`): the tasks the compensation run would run, and what blocks or was done. */
export function compensationPlanDocument(plan: CompensationPlan, selected: readonly string[]): Record<string, unknown> {
  const work = plan.tasks.filter((task) => task.disposition === 'compensate');
  const executable = plan.executable && work.length > 0;
  return {
    apiVersion: 'agentctl.dev/compensation-plan/v1',
    sourceRunId: plan.sourceRunId,
    executable,
    // agentctl runs a plan only when nothing selected is in doubt: what it runs is everything left to undo.
    complete: executable,
    automatic: plan.onFailure === 'automatic',
    selectedTasks: selected.length > 0 ? [...selected] : plan.tasks.map((task) => task.taskId),
    tasks: work.map((task) => ({ sourceTaskId: task.taskId, compensationTaskId: task.compensationTaskId!, action: task.uses.replace(/^action:/, ''), sourceEffectIds: [...task.effectIds], uses: task.uses })),
    blocked: plan.blocks.map((block) => ({ taskId: block.taskId, effectId: block.effectId, rule: 'unreconciled_effect', message: block.message })),
    alreadyCompensatedEffects: plan.tasks.filter((task) => task.disposition === 'compensated').flatMap((task) => task.effectIds),
    // agentctl: the plan as planned, every selected task with its disposition (compensate, compensated, claimed, ...).
    workflow: plan.workflow,
    sourceState: plan.sourceState,
    onFailure: plan.onFailure,
    approval: plan.approval,
    decisions: plan.tasks,
    blocks: plan.blocks,
  };
}

/** The fields of a compensation run's outcome (`CompensationOutcome`) beside RunOutcome's. */
export function compensationOutcomeFields(store: Store, result: RunResult, sourceRunId: string): Record<string, JsonValue> {
  const plan = JSON.parse(String(store.runRow(result.runId)!.plan_json)) as CompiledPlan;
  const ended = (state: string) => plan.tasks.filter((task) => task.compensates && result.tasks[task.id] === state).map((task) => task.compensates!.taskId);
  return { sourceRunId, compensatedTasks: ended('succeeded'), failedTasks: ended('failed'), blocked: [] };
}
