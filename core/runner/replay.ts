// `replay RUN`: a new run rebuilt from a terminal run's recorded results. Nothing is compiled, resolved or dispatched:
// the stored plan, inputs, task results and output are copied, so replay needs no action kind, no credential, no
// process and no network, and records zero effects.
import { createHash } from 'node:crypto';
import { AgentctlError, diagnostic, errorMessage, EXIT, type Diagnostic, type JsonValue } from '@agentctl/sdk';
import type { Host } from '../host.js';
import { requireEnded, type RecordedTask, type Row, type RunState, type Store, type TaskState } from '../store/store.js';
import { newRunIdentity } from './identity.js';
import { RunPublisher } from './publisher.js';
import type { RunResult } from './run.js';
import { foldMemory } from '../store/working-memory.js';

export interface ReplayRequest {
  /** A host without action kinds (observers at most): replay must never reach a dispatcher (see `assertNoDispatchers`). */
  readonly host: Host;
  readonly store: Store;
  readonly sourceRunId: string;
}

export interface ReplayResult extends Pick<RunResult, 'runId' | 'traceId' | 'state' | 'output' | 'tasks' | 'warnings'> {
  readonly sourceRunId: string;
  readonly mode: 'replay';
  /** `sha256:` of the canonical JSON of `output`; equal to the source's by construction. */
  readonly outputDigest: string;
  /** Set when the source (and so the replay) ended failed or cancelled. */
  readonly error?: AgentctlError;
}

/**
 * JSON with object keys sorted at every depth: one text per value, whatever order the keys were written in. The same
 * form as the effect runner's input digests; kept here so replay imports nothing that can dispatch.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`).join(',')}}`;
}

/** The digest a run's output is compared by. */
export const outputDigest = (output: JsonValue): string => `sha256:${createHash('sha256').update(canonicalJson(output)).digest('hex')}`;

/** A JSON column of the source run; a row that does not parse is a damaged ledger (exit 5). */
function column(row: Row, name: string, where: string): JsonValue {
  const text = row[name];
  if (text === null || text === undefined) return null;
  try {
    return JSON.parse(String(text)) as JsonValue;
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_DB_CORRUPT', `${where}: ${name} is not valid JSON (${errorMessage(error)}); the run cannot be replayed`, {
      help: 'restore the database from a backup',
    });
  }
}

/** The replay host is built without plugins; one that could dispatch anything is a bug, refused before any write. */
function assertNoDispatchers(host: Host): void {
  const kinds = host.actionKinds().map((kind) => kind.name);
  if (kinds.length > 0) {
    throw new AgentctlError('AGENTCTL_E_INTERNAL', `the replay host has action kinds (${kinds.join(', ')}); replay must not be able to dispatch`, {
      help: 'this is a bug in agentctl; please report it with the command you ran',
    });
  }
}

/** The source run, which must exist and be terminal. */
function terminalSource(store: Store, runId: string): Row {
  return requireEnded(store.existingRun(runId), { to: 'replayed', help: 'finish the run first (resume it, or wait for the process driving it), then replay it' });
}

/**
 * The source's tasks. Their documents stay in the database (the store copies them); a row whose JSON does not parse
 * is a damaged ledger, reported by the column that does not parse, before anything is written.
 */
function recordedTasks(store: Store, runId: string): RecordedTask[] {
  const rows = store.recordedTasks(runId);
  const damaged = rows.find((row) => !row.valid);
  if (damaged) {
    const row = store.taskRows(runId).find((full) => full.task_id === damaged.task_id)!;
    for (const name of ['input_json', 'output_json', 'error_json']) column(row, name, `run ${runId}, task ${String(row.task_id)}`);
  }
  return rows.map((row) => ({
    taskId: String(row.task_id),
    kind: String(row.kind),
    state: String(row.state) as TaskState,
    attempt: Number(row.attempt),
    error: column(row, 'error_json', `run ${runId}, task ${String(row.task_id)}`),
  }));
}

/**
 * The error a failed or cancelled replay reports: the source's recorded run error, with the diagnostics of each
 * failed task (naming it), as the source run reported them. A replay of a failed run exits 4, of a cancelled one 130.
 */
function replayedError(state: RunState, recorded: JsonValue, tasks: readonly RecordedTask[]): AgentctlError | undefined {
  if (state === 'succeeded') return undefined;
  const record = (recorded ?? {}) as { code?: string; message?: string };
  const code = (record.code ?? (state === 'cancelled' ? 'AGENTCTL_E_CANCELLED' : 'AGENTCTL_E_RUN_FAILED')) as 'AGENTCTL_E_RUN_FAILED';
  const message = record.message ?? `the recorded run ended ${state}`;
  const diagnostics: Diagnostic[] = [];
  for (const task of tasks) {
    if (task.state !== 'failed') continue;
    const error = (task.error ?? {}) as { code?: string; message?: string; diagnostics?: Diagnostic[] };
    const own = Array.isArray(error.diagnostics) && error.diagnostics.length > 0 ? error.diagnostics : [diagnostic((error.code ?? 'AGENTCTL_E_RUN_FAILED') as 'AGENTCTL_E_RUN_FAILED', { message: error.message ?? 'failed' })];
    diagnostics.push(...own.map((item) => ({ ...item, taskId: task.taskId })));
  }
  if (diagnostics.length === 0) diagnostics.push(diagnostic(code, { message }));
  return new AgentctlError(code, message, { diagnostics, exitCode: state === 'cancelled' ? EXIT.cancelled : EXIT.runFailed });
}


export async function replayRun(request: ReplayRequest): Promise<ReplayResult> {
  const { host, store, sourceRunId } = request;
  assertNoDispatchers(host);
  const source = terminalSource(store, sourceRunId);
  const where = `run ${sourceRunId}`;
  // The source's artifact references come along: the replay refers to the very blobs, so every artifact digest is equal.
  const artifacts = new Map<string, { path: string; digest: string; size: number }[]>();
  for (const row of store.taskArtifactRows(sourceRunId)) {
    const list = artifacts.get(String(row.task_id)) ?? [];
    list.push({ path: String(row.path), digest: String(row.digest), size: Number(row.size) });
    artifacts.set(String(row.task_id), list);
  }
  // The plan is copied by the store as stored; a damaged one is reported as `column` reports it.
  if (!store.planIsJson(sourceRunId)) column(source, 'plan_json', where);
  const tasks = recordedTasks(store, sourceRunId).map((task) => ({ ...task, artifacts: artifacts.get(task.taskId) ?? [] }));
  const state = String(source.state) as RunState;
  const output = (column(source, 'output_json', where) ?? {}) as Record<string, JsonValue>;
  const recordedError = column(source, 'error_json', where);
  const digest = outputDigest(output);
  const { runId, traceId } = newRunIdentity();
  // Observers (telemetry) see the replay's records like any run's: its tasks' recorded ends, then `run.replayed`.
  const publisher = new RunPublisher(host, store, runId);

  store.createRecordedRun(
    {
      id: runId,
      traceId,
      workflowName: String(source.workflow_name),
      workflowDigest: String(source.workflow_digest),
      workflowFile: source.workflow_file === null ? '' : String(source.workflow_file),
      workflowSource: String(source.workflow_source),
      plan: null,
      inputs: column(source, 'inputs_json', where),
      workspace: String(source.workspace),
      tasks: tasks.map((task) => ({ id: task.taskId, kind: task.kind })),
      mode: 'replay',
      sourceRunId,
    },
    tasks,
    {
      state,
      output,
      ...(recordedError === null ? {} : { error: recordedError }),
      memory: replayedMemory(store, sourceRunId, column(source, 'plan_json', where)),
      event: { type: 'run.replayed', data: { sourceRunId, sourceTraceId: String(source.trace_id), outputDigest: digest, tasks: tasks.length, state, traceId, workflow: String(source.workflow_name) } },
    },
  );
  const warnings = await publisher.settle();
  const error = replayedError(state, recordedError, tasks);
  if (error) Object.assign(error, { runId, traceId });
  return {
    runId,
    traceId,
    state,
    output,
    tasks: Object.fromEntries(tasks.map((task) => [task.taskId, task.state])),
    sourceRunId,
    mode: 'replay',
    outputDigest: digest,
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(error ? { error } : {}),
  };
}

/**
 * The source run's working memory, rebuilt from what it recorded: its plan's initial memory and the delta each task
 * committed (in its success checkpoint), applied in compiled order.
 */
function replayedMemory(store: Store, sourceRunId: string, plan: JsonValue): JsonValue {
  const compiled = (plan ?? {}) as { workingMemory?: Record<string, JsonValue>; tasks?: { id: string }[] };
  return foldMemory(compiled.workingMemory, (compiled.tasks ?? []).map((task) => task.id), store.workingMemory.deltas(sourceRunId));
}
