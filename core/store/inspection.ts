// Read-only views of the ledger for `inspect` and `runs list`.
import type { Row, Store } from './store.js';
import { AgentctlError, errorMessage, type JsonValue } from '../../sdk/index.js';
import { liveness, type Liveness } from './liveness.js';
import { mayHaveHappened } from './doubt.js';
import { modelUsage } from '../agents/usage.js';
import { budgetView } from './budget-view.js';

/** A JSON column; a row that does not parse is a damaged ledger (exit 5), named by table, column and row. */
export function parser(runId: string) {
  return (table: string, column: string, row: Row, key: string | null = null): JsonValue => {
    const text = row[column];
    if (text === null || text === undefined) return null;
    try {
      return JSON.parse(String(text)) as JsonValue;
    } catch (error) {
      const which = key === null ? `run ${runId}` : `run ${runId}, ${key}`;
      throw new AgentctlError('AGENTCTL_E_DB_CORRUPT', `${table}.${column} of ${which} is not valid JSON (${errorMessage(error)}): the database holds a row agentctl did not write`, {
        help: 'restore the database from a backup; the other runs may still be read with `agentctl inspect`',
      });
    }
  };
}

export interface RunSummary {
  runId: string;
  workflow: string;
  state: string;
  /** For a `running` run: whether a live process still drives it; null otherwise. */
  liveness: Liveness | null;
  mode: string;
  createdAt: string;
  finishedAt: string | null;
}

export function listRuns(store: Store, limit: number): RunSummary[] {
  return store.recentRuns(limit).map((row) => ({
    runId: String(row.id),
    workflow: String(row.workflow_name),
    state: String(row.state),
    liveness: liveness(row),
    mode: String(row.mode),
    createdAt: String(row.created_at),
    finishedAt: row.finished_at === null ? null : String(row.finished_at),
  }));
}

/** A run's state as people read it: `running (interrupted)` for a run nobody drives any more. */
export const stateLabel = (run: { state: unknown; liveness: Liveness | null }): string => (run.liveness === 'interrupted' ? `${String(run.state)} (interrupted)` : String(run.state));

export function inspectRun(store: Store, runId: string) {
  const run = store.runRow(runId);
  if (!run) throw new AgentctlError('AGENTCTL_E_RUN_NOT_FOUND', `run ${runId} does not exist in this database`, { help: 'list runs with `agentctl runs list`' });
  const tasks = store.taskRows(runId);
  const effects = store.effectRows(runId);
  const approvals = store.approvalRows(runId);
  const audit = store.auditRows(runId);
  const artifacts = new Map<string, Row[]>();
  for (const row of store.taskArtifactRows(runId)) artifacts.set(String(row.task_id), [...(artifacts.get(String(row.task_id)) ?? []), row]);
  const parse = parser(runId);
  const reconciled = store.latestReconciliations(runId);
  const runLiveness = liveness(run);
  const lineage = store.lineageRow(runId);
  const reuse = new Map(store.taskReuseRows(runId).map((row) => [String(row.task_id), row]));
  return {
    run: {
      runId: run.id,
      traceId: run.trace_id,
      workflow: run.workflow_name,
      workflowDigest: run.workflow_digest,
      workflowFile: run.workflow_file,
      state: run.state,
      liveness: runLiveness,
      mode: run.mode,
      sourceRunId: run.source_run_id,
      workspace: run.workspace,
      inputs: parse('runs', 'inputs_json', run),
      output: parse('runs', 'output_json', run),
      error: parse('runs', 'error_json', run),
      createdAt: run.created_at,
      updatedAt: run.updated_at,
      finishedAt: run.finished_at,
    },
    // A retry, repair or fork: where the run came from, the tasks it ran fresh from, and why.
    lineage: lineage
      ? { mode: lineage.mode, sourceRunId: lineage.source_run_id, roots: parse('run_lineage', 'roots_json', lineage), reason: lineage.reason, plan: parse('run_lineage', 'plan_json', lineage) }
      : null,
    tasks: tasks.map((task) => ({
      taskId: task.task_id,
      kind: task.kind,
      state: task.state,
      attempt: task.attempt,
      disposition: task.disposition,
      input: parse('tasks', 'input_json', task, `task ${task.task_id}`),
      output: parse('tasks', 'output_json', task, `task ${task.task_id}`),
      error: parse('tasks', 'error_json', task, `task ${task.task_id}`),
      artifacts: (artifacts.get(String(task.task_id)) ?? []).map((row) => ({ path: row.path, digest: row.digest, size: row.size })),
      reuse: reuseView(reuse.get(String(task.task_id)), parse),
      startedAt: task.started_at,
      finishedAt: task.finished_at,
    })),
    effects: effects.map((effect) => effectView(effect, runLiveness === 'active', reconciled.get(String(effect.id))?.outcome ?? null, parse)),
    // Operators' accounts of effects in doubt, and the compensations that undid effects of this run.
    effectReconciliations: store.runReconciliations(runId).map((row) => ({
      seq: row.seq,
      effectId: row.effect_id,
      outcome: row.outcome,
      reason: row.reason,
      actor: row.actor,
      createdAt: row.created_at,
      compensationRunId: row.compensation_run_id,
      compensationTaskId: row.compensation_task_id,
      compensationEffectId: row.compensation_effect_id,
    })),
    approvals: approvals.map((approval) => ({
      approvalId: approval.id,
      taskId: approval.task_id,
      effectId: approval.effect_id,
      state: approval.state,
      reason: approval.reason,
      decisionReason: approval.decision_reason,
      actor: approval.actor,
      requestedAt: approval.requested_at,
      decidedAt: approval.decided_at,
    })),
    modelUsage: modelUsage(effects) ?? null,
    budget: budgetView(store, run, parse('runs', 'plan_json', run), audit, (event) => parse('audit_events', 'data_json', event, `audit event ${event.seq}`)),
    audit: audit.map((event) => ({ seq: event.seq, type: event.type, taskId: event.task_id, effectId: event.effect_id, data: parse('audit_events', 'data_json', event, `audit event ${event.seq}`), at: event.at })),
  };
}

/**
 * One effect as an operator sees it. In doubt: it may or may not have happened (uncertain, or started with nobody left
 * to record how it ended) and no operator has reconciled it.
 */
export function effectView(effect: Row, live: boolean, reconciled: string | number | null, parse: ReturnType<typeof parser>) {
  const state = String(effect.state);
  return {
    effectId: effect.id,
    runId: effect.run_id,
    taskId: effect.task_id,
    attempt: effect.attempt,
    ordinal: effect.ordinal,
    kind: effect.kind,
    operation: effect.operation,
    effectClass: effect.effect_class,
    risk: effect.risk,
    idempotency: effect.idempotency,
    state,
    inDoubt: mayHaveHappened(effect, live) && reconciled === null,
    reconciled,
    input: parse('effects', 'input_json', effect, `effect ${effect.id}`),
    inputDigest: effect.input_digest,
    result: parse('effects', 'result_json', effect, `effect ${effect.id}`),
    error: parse('effects', 'error_json', effect, `effect ${effect.id}`),
    requestedAt: effect.requested_at,
    startedAt: effect.started_at,
    finishedAt: effect.finished_at,
  };
}

/** How a reused task of a derived run was judged reusable: the checks that passed and the source effects it stands on. */
function reuseView(row: Row | undefined, parse: ReturnType<typeof parser>) {
  if (!row) return null;
  const key = `reuse of task ${String(row.task_id)}`;
  return { sourceRunId: row.source_run_id, checks: parse('task_reuse', 'checks_json', row, key), sourceEffectIds: parse('task_reuse', 'source_effect_ids_json', row, key) };
}

export type RunInspection = ReturnType<typeof inspectRun>;
