// A run and its tasks as `inspect` prints them: the reference's RunRecord and TaskRecord fields, with agentctl's own.
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { JsonObject, JsonValue } from '@agentctl/sdk';
import type { ColumnParser } from './json-column.js';
import { artifactManifestEntry } from './artifact-records.js';
import { errorText } from './ledger-records.js';
import type { Liveness } from './liveness.js';
import type { Row } from './rows.js';

type Parse = ColumnParser;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The workflow document the run was made from, as JSON; null when its recorded text no longer parses. */
function workflowDocument(source: unknown): JsonValue {
  try {
    return (parseYaml(String(source)) as JsonValue) ?? null;
  } catch {
    return null;
  }
}

/** The run's record. `workflow` is the workflow document, as in the reference; its name is `workflowName`. */
export function runRecord(run: Row, runLiveness: Liveness | null, lineage: Row | undefined, sourceRun: Row | undefined, parse: Parse) {
  const workflow = workflowDocument(run.workflow_source);
  const roots = lineage ? (parse('run_lineage', 'roots_json', lineage) as string[] | null) ?? [] : [];
  const lineagePlan = lineage ? (parse('run_lineage', 'plan_json', lineage) as JsonObject | null) : null;
  const derived = (mode: string) => lineage?.mode === mode;
  return {
    runId: run.id,
    workflowDigest: run.workflow_digest,
    workflowSchemaVersion: typeof workflow === 'object' && workflow !== null && !Array.isArray(workflow) && typeof workflow.apiVersion === 'string' ? workflow.apiVersion : null,
    planDigest: sha256(String(run.plan_json)),
    workflow,
    plan: parse('runs', 'plan_json', run),
    inputs: parse('runs', 'inputs_json', run),
    workingMemory: parse('runs', 'memory_json', run),
    output: parse('runs', 'output_json', run),
    state: run.state,
    mode: run.mode,
    parentRunId: null,
    sourceRunId: run.source_run_id,
    sourceWorkflowDigest: sourceRun?.workflow_digest ?? null,
    repairRoots: derived('repair') ? roots : [],
    repairReason: derived('repair') ? lineage!.reason : null,
    repairFormatVersion: derived('repair') ? 1 : null,
    retryRoots: derived('retry') ? roots : [],
    retryReason: derived('retry') ? lineage!.reason : null,
    retryFormatVersion: derived('retry') ? 1 : null,
    retryFailedOnly: derived('retry') && lineagePlan?.failed === true,
    basePath: run.workspace,
    cancellationRequested: run.state === 'cancelled',
    createdAt: run.created_at,
    updatedAt: run.updated_at,
    traceId: run.trace_id,
    workflowName: run.workflow_name,
    workflowFile: run.workflow_file,
    liveness: runLiveness,
    workspace: run.workspace,
    error: parse('runs', 'error_json', run),
    finishedAt: run.finished_at,
    stage: parse('runs', 'stage_json', run),
  };
}

/** A task's record; `error` is the recorded error's message, `failure` the whole recorded error. */
export function taskRecord(task: Row, artifacts: readonly Row[], reuse: Row | undefined, parse: Parse, memoryDelta?: JsonValue) {
  const key = `task ${String(task.task_id)}`;
  const input = parse('tasks', 'input_json', task, key);
  const output = parse('tasks', 'output_json', task, key);
  const failure = parse('tasks', 'error_json', task, key);
  const reuseView = reuse ? reuseOf(reuse, parse) : null;
  const inputDigest = typeof input === 'object' && input !== null && !Array.isArray(input) && typeof input.digest === 'string' ? input.digest : null;
  return {
    runId: task.run_id,
    taskId: task.task_id,
    position: task.position,
    state: task.state,
    attempt: task.attempt,
    output,
    error: errorText(failure),
    disposition: task.disposition ?? 'executed',
    metadataVersion: null,
    sourceRunId: reuseView?.sourceRunId ?? null,
    sourceTaskId: reuseView ? task.task_id : null,
    sourceAttempt: null,
    definitionFingerprint: null,
    inputDigest,
    outputContractFingerprint: null,
    outputDigest: task.state === 'succeeded' && task.output_json !== null ? sha256(String(task.output_json)) : null,
    // The task's working-memory writes, as committed with its success (null: it wrote none).
    stateDelta: memoryDelta ?? null,
    stateDeltaDigest: memoryDelta === undefined ? null : sha256(JSON.stringify(memoryDelta)),
    artifactManifest: artifacts.map(artifactManifestEntry),
    reuseDecision: reuseView,
    updatedAt: task.updated_at,
    kind: task.kind,
    input,
    failure,
    artifacts: artifacts.map((row) => ({ path: row.path, digest: row.digest, size: row.size })),
    reuse: reuseView,
    startedAt: task.started_at,
    finishedAt: task.finished_at,
  };
}

/** How a reused task of a derived run was judged reusable: the checks that passed and the source effects it stands on. */
function reuseOf(row: Row, parse: Parse) {
  const key = `reuse of task ${String(row.task_id)}`;
  return { sourceRunId: row.source_run_id, checks: parse('task_reuse', 'checks_json', row, key), sourceEffectIds: parse('task_reuse', 'source_effect_ids_json', row, key) };
}
