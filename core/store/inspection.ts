// Read-only views of the ledger for `inspect` and `runs list`.
import type { Store } from './store.js';
import { AgentctlError, type JsonValue } from '../../sdk/index.js';

const parse = (text: string | null): JsonValue => (text === null ? null : (JSON.parse(text) as JsonValue));

export interface RunSummary {
  runId: string;
  workflow: string;
  state: string;
  mode: string;
  createdAt: string;
  finishedAt: string | null;
}

export function listRuns(store: Store, limit: number): RunSummary[] {
  const rows = store.recentRuns(limit) as { id: string; workflow_name: string; state: string; mode: string; created_at: string; finished_at: string | null }[];
  return rows.map((row) => ({ runId: row.id, workflow: row.workflow_name, state: row.state, mode: row.mode, createdAt: row.created_at, finishedAt: row.finished_at }));
}

export function inspectRun(store: Store, runId: string) {
  const run = store.runRow(runId);
  if (!run) throw new AgentctlError('AGENTCTL_E_RUN_NOT_FOUND', `run ${runId} does not exist in this database`, { help: 'list runs with `agentctl runs list`' });
  const tasks = store.taskRows(runId);
  const effects = store.effectRows(runId);
  const approvals = store.approvalRows(runId);
  const audit = store.auditRows(runId);
  return {
    run: {
      runId: run.id,
      traceId: run.trace_id,
      workflow: run.workflow_name,
      workflowDigest: run.workflow_digest,
      workflowFile: run.workflow_file,
      state: run.state,
      mode: run.mode,
      sourceRunId: run.source_run_id,
      workspace: run.workspace,
      inputs: parse(run.inputs_json as string),
      output: parse(run.output_json as string | null),
      error: parse(run.error_json as string | null),
      createdAt: run.created_at,
      updatedAt: run.updated_at,
      finishedAt: run.finished_at,
    },
    tasks: tasks.map((task) => ({
      taskId: task.task_id,
      kind: task.kind,
      state: task.state,
      attempt: task.attempt,
      disposition: task.disposition,
      input: parse(task.input_json as string | null),
      output: parse(task.output_json as string | null),
      error: parse(task.error_json as string | null),
      startedAt: task.started_at,
      finishedAt: task.finished_at,
    })),
    effects: effects.map((effect) => ({
      effectId: effect.id,
      taskId: effect.task_id,
      attempt: effect.attempt,
      ordinal: effect.ordinal,
      kind: effect.kind,
      operation: effect.operation,
      effectClass: effect.effect_class,
      risk: effect.risk,
      idempotency: effect.idempotency,
      state: effect.state,
      input: parse(effect.input_json as string),
      inputDigest: effect.input_digest,
      result: parse(effect.result_json as string | null),
      error: parse(effect.error_json as string | null),
      requestedAt: effect.requested_at,
      startedAt: effect.started_at,
      finishedAt: effect.finished_at,
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
    audit: audit.map((event) => ({ seq: event.seq, type: event.type, taskId: event.task_id, effectId: event.effect_id, data: parse(event.data_json as string), at: event.at })),
  };
}

export type RunInspection = ReturnType<typeof inspectRun>;
