// `effects continue-remote EFFECT`: the remote work an effect in doubt started is observed again, by the effect's own
// action kind, from the protocol call it recorded (its remote id), without sending anything anew. The caller records
// the result as the operator's `applied` reconciliation; the files the kind kept become the task's artifacts.
import { AgentctlError, type CompiledPlan, type JsonValue } from '@agentctl/sdk';
import type { Host } from '../host.js';
import type { TaskArtifact } from '../store/artifacts.js';
import type { Store } from '../store/store.js';
import type { ContinuingEffect } from './continue-effect.js';
import { preflight } from './run.js';
import { taskScope } from './scope.js';
import { SecretVault } from './secrets.js';
import { continueTask } from './task.js';
import { snapshotFor } from './working-memory.js';

export interface ContinueRemoteRequest {
  readonly host: Host;
  readonly store: Store;
  readonly plan: CompiledPlan;
  readonly runId: string;
  readonly traceId: string;
  readonly effectId: string;
  readonly workspaceRoot: string;
  readonly environment: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
}

const notContinuable = (message: string) => new AgentctlError('AGENTCTL_E_EFFECT_NOT_CONTINUABLE', message, { help: 'find out what happened remotely, then record it with `agentctl effects reconcile`' });

/** Observes the effect's remote work to its end: the effect's result as its kind gives it, and the files it kept. */
export async function continueRemote(request: ContinueRemoteRequest): Promise<{ result: JsonValue; output: JsonValue; artifacts: TaskArtifact[]; remoteId: string; protocol: string }> {
  const { store, plan, runId, effectId } = request;
  const effect = store.effect(effectId)!;
  const call = store.protocols.continuation(effectId);
  if (call === undefined) throw notContinuable(`effect ${effectId} recorded no remote task to observe: its request may or may not have been taken, and it is never sent again`);
  const task = plan.tasks.find((candidate) => candidate.id === effect.task_id);
  if (task === undefined) throw notContinuable(`effect ${effectId} belongs to task ${String(effect.task_id)}, which the run's workflow no longer has`);
  const vault = new SecretVault(() => store.digestKey());
  await preflight(request, vault, [task]);
  store.setRedactor(vault.redactor.redactValue, () => vault.redactor.size);
  const outputs: Record<string, { output: JsonValue }> = {};
  for (const row of store.taskRows(runId)) {
    if (row.state === 'succeeded' || row.state === 'skipped') outputs[String(row.task_id)] = { output: JSON.parse(String(row.output_json ?? 'null')) as JsonValue };
  }
  // The task continues against the working memory it started with: the deltas committed before it, in compiled order.
  const memory = snapshotFor(plan, task, plan.tasks.map((candidate) => candidate.id), store.workingMemory.deltas(runId));
  const continuing: ContinuingEffect = { effectId, call };
  const { output, artifacts } = await continueTask(
    { host: request.host, store, plan, task, runId, traceId: request.traceId, scope: taskScope(plan, task, outputs, memory), memory, signal: request.signal, vault, workspaceRoot: request.workspaceRoot, notice: () => undefined, continuing },
    Number(effect.attempt),
  );
  if (continuing.result === undefined) throw notContinuable(`task ${task.id} did not request effect ${effectId} again: the workflow or its inputs changed since the run`);
  return { result: continuing.result, output, artifacts, remoteId: call.remoteId, protocol: call.protocol };
}
