// Read-only views of the ledger for `inspect` and `runs list`.
import type { Row, Store } from './store.js';
import type { JsonValue, RunInspection as RunInspectionDocument } from '@agentctl/sdk';
import { liveness, type Liveness } from './liveness.js';
import {
  approvalRecord,
  checkpointRecord,
  effectRecord,
  protocolCallRecords,
  protocolSessionRecords,
  providerSessionRecords,
  reconciliationAccounts,
  reconciliationRecords,
  toolCallRecords,
} from './ledger-records.js';
import { artifactReference } from './artifact-records.js';
import { runRecord, taskRecord } from './run-record.js';
import { modelUsage } from './model-usage.js';
import { budgetView } from './budget-view.js';
import { parser } from './json-column.js';

export { parser } from './json-column.js';

export interface RunSummary {
  runId: string;
  workflow: string;
  state: string;
  /** For a `running` run: whether a live process still drives it; null otherwise. */
  liveness: Liveness | null;
  mode: string;
  createdAt: string;
  finishedAt: string | null;
  /** The scale-out stage (`prepare`, `shard`, `gather`) with its shard; null for an ordinary run. */
  stage: { stage: string; shard: number | null; shards: number | null } | null;
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
    stage: stageSummary(row.stage_json, String(row.id)),
  }));
}

function stageSummary(text: string | null, runId: string): RunSummary['stage'] {
  if (text === null) return null;
  const stage = parser(runId)('runs', 'stage_json', { stage_json: text }) as { stage: string; shard: number | null; shards: number | null };
  return { stage: stage.stage, shard: stage.shard, shards: stage.shards };
}

/** A run's state as people read it: `running (interrupted)` for a run nobody drives any more. */
export const stateLabel = (run: { state: unknown; liveness: Liveness | null }): string => (run.liveness === 'interrupted' ? `${String(run.state)} (interrupted)` : String(run.state));

export function inspectRun(store: Store, runId: string) {
  const run = store.existingRun(runId);
  const parse = parser(runId);
  const audit = store.auditRows(runId);
  const rows = store.effectRows(runId);
  const artifactRows = store.taskArtifactRows(runId);
  const artifacts = new Map<string, Row[]>();
  for (const row of artifactRows) artifacts.set(String(row.task_id), [...(artifacts.get(String(row.task_id)) ?? []), row]);
  const runLiveness = liveness(run);
  const context = { runId, traceId: String(run.trace_id), drive: { state: run.state, live: runLiveness === 'active' } };
  const lineage = store.lineageRow(runId);
  const reuse = new Map(store.taskReuseRows(runId).map((row) => [String(row.task_id), row]));
  // A replay writes no checkpoint: its tasks' working-memory deltas are the source run's.
  const deltas = store.workingMemory.deltas(run.mode === 'replay' && run.source_run_id !== null ? String(run.source_run_id) : runId);
  const reconciled = store.latestReconciliations(runId);
  const effects = rows.map((effect) => effectRecord(effect, context, (reconciled.get(String(effect.id))?.outcome as string | undefined) ?? null, parse));
  const effectsById = new Map(rows.map((row) => [String(row.id), row]));
  return {
    run: runRecord(run, runLiveness, lineage, run.source_run_id === null ? undefined : store.runRow(String(run.source_run_id)), parse),
    // A retry, repair or fork: where the run came from, the tasks it ran fresh from, and why.
    lineage: lineage
      ? { mode: lineage.mode, sourceRunId: lineage.source_run_id, roots: parse('run_lineage', 'roots_json', lineage), reason: lineage.reason, plan: parse('run_lineage', 'plan_json', lineage) }
      : null,
    tasks: store.taskRows(runId).map((task) => taskRecord(task, artifacts.get(String(task.task_id)) ?? [], reuse.get(String(task.task_id)), parse, deltas.get(String(task.task_id)))),
    effects,
    // Operators' accounts of effects in doubt, and the compensations that undid effects of this run.
    effectReconciliations: reconciliationRecords(store.runReconciliations(runId), context, reconciliationAccounts(audit, parse), parse),
    // Every approval of the run, decided or not (the reference lists the pending ones; `status` tells them apart).
    approvals: store.approvalRows(runId).map((approval) => approvalRecord(approval, effectsById.get(String(approval.effect_id)), context.traceId, parse)),
    checkpoints: store.checkpointRows(runId).map((row) => checkpointRecord(row, parse)),
    providerSessions: providerSessionRecords(effects),
    // agentctl records no provider stream events or trace spans: these are always empty.
    streamEvents: [] as JsonValue[],
    protocolSessions: protocolSessionRecords(store.protocols.sessionRows(runId), parse),
    protocolCalls: protocolCallRecords(effects, new Map(store.protocols.callRows(runId).map((row) => [row.effect_id, row])), parse),
    toolCalls: toolCallRecords(effects),
    artifacts: artifactRows.map((row) => artifactReference(row, reuse.has(String(row.task_id)) ? String(reuse.get(String(row.task_id))!.source_run_id) : null)),
    modelUsage: modelUsage(rows) ?? null,
    budget: budgetView(store, run, parse('runs', 'plan_json', run), audit, (event) => parse('audit_events', 'data_json', event, `audit event ${event.seq}`)),
    audit: audit.map((event) => ({ seq: event.seq, type: event.type, taskId: event.task_id, effectId: event.effect_id, data: parse('audit_events', 'data_json', event, `audit event ${event.seq}`), at: event.at })),
    traces: [] as JsonValue[],
    importedFrom: importedFrom(store, runId),
  };
}

/** Where a run copied in by `runs import` came from (its `run_imports` row); null for a run this ledger drove. */
function importedFrom(store: Store, runId: string) {
  const record = store.imports.record(runId);
  if (!record) return null;
  const { runId: _runId, ...from } = record;
  return from;
}

export type RunInspection = ReturnType<typeof inspectRun>;

/**
 * The run as the SDK's public `RunInspection` document (what `inspect --output json` prints), typed for its readers
 * outside the CLI's printers: run reporters and the test kit. The schema in sdk/documents/ledger.ts is kept equal
 * to what inspectRun builds by the documents' tests.
 */
export const runInspection = (store: Store, runId: string): RunInspectionDocument => inspectRun(store, runId) as unknown as RunInspectionDocument;
