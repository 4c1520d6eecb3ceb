// Waiting for a remote task: bounded observations (GetTask, or SubscribeToTask when the card advertises streaming),
// each after the peer's poll interval. A task that ends failed, rejected or canceled fails the effect; one still running
// when the observations are used up leaves it uncertain (it may still finish). Cancellation and the task deadline send
// CancelTask, best effort, and leave it uncertain: the peer may have done part of the work.
import { setTimeout as sleep } from 'node:timers/promises';
import { EffectFailure, isJsonObject, type JsonObject } from '@agentctl/sdk';
import type { PeerConnection } from './connection.js';

export interface ObservationBounds {
  readonly maxPolls: number;
  readonly pollIntervalMs: number;
}

/** How long CancelTask may take once the run stopped waiting. */
const CANCEL_NOTICE_MS = 2000;

/**
 * A task's state in the words of the A2A 1.0 JSON binding (`TASK_STATE_COMPLETED`) or of earlier revisions
 * (`completed`, `input-required`), as one lower-case word with underscores.
 */
export function taskState(task: JsonObject): string | undefined {
  const status = isJsonObject(task.status) ? task.status : {};
  if (typeof status.state !== 'string') return undefined;
  return status.state.replace(/^TASK_STATE_/i, '').replace(/-/g, '_').toLowerCase();
}

const FAILED = new Set(['failed', 'rejected', 'canceled', 'cancelled']);
/** States in which the peer waits for the client: the effect ends with the task as it is, as in the reference. */
const SETTLED = new Set(['completed', 'input_required', 'auth_required']);

/** Observes `task` until it settles; returns it as last seen. */
export async function waitForTask(connection: PeerConnection, peer: string, initial: JsonObject, bounds: ObservationBounds, signal: AbortSignal, cancel: () => Promise<void>): Promise<JsonObject> {
  const id = String(initial.id);
  let task = initial;
  for (let polls = 0; ; polls += 1) {
    const state = taskState(task);
    if (state !== undefined && SETTLED.has(state)) return task;
    if (state !== undefined && FAILED.has(state)) {
      throw new EffectFailure('failed', 'AGENTCTL_E_A2A_TASK_FAILED', `A2A peer ${peer}: remote task ${connection.quote(id)} ended ${state}${statusText(task, connection)}`, { details: { task } });
    }
    if (polls >= bounds.maxPolls) {
      throw new EffectFailure('uncertain', 'AGENTCTL_E_A2A_POLL_LIMIT', `A2A peer ${peer}: remote task ${connection.quote(id)} was still ${state ?? 'running'} after ${bounds.maxPolls} observations; it may still finish`, {
        details: { remoteTaskId: id, task },
        help: 'observe it with `agentctl effects continue-remote EFFECT` once it has finished, or raise maxPolls of the peer',
      });
    }
    try {
      if (bounds.pollIntervalMs > 0) await sleep(bounds.pollIntervalMs, undefined, { signal });
      task = connection.selected?.streaming ? await subscribe(connection, task) : await getTask(connection, peer, id);
    } catch (error) {
      if (signal.aborted) {
        await cancel();
        throw stopped(signal, peer, id);
      }
      throw error;
    }
  }
}

/** Tells the peer the run stopped waiting for the task; what it answers changes nothing. */
export async function cancelTask(connection: PeerConnection, id: string): Promise<void> {
  try {
    await connection.call('CancelTask', { id }, 'observe', AbortSignal.timeout(CANCEL_NOTICE_MS));
  } catch {
    // Best effort: the effect is uncertain whatever happens here.
  }
}

async function getTask(connection: PeerConnection, peer: string, id: string): Promise<JsonObject> {
  const result = await connection.call('GetTask', { id }, 'observe');
  const task = taskOf(result);
  if (task === undefined) throw new EffectFailure('uncertain', 'AGENTCTL_E_A2A_RESPONSE_INVALID', `A2A peer ${peer}: GetTask answered with no task ${connection.quote(id)}`);
  return task;
}

/** One SubscribeToTask stream: the task, then status and artifact updates, folded into the task. */
async function subscribe(connection: PeerConnection, current: JsonObject): Promise<JsonObject> {
  let task = current;
  for (const event of await connection.stream('SubscribeToTask', { id: String(current.id) }, 'observe')) {
    const whole = taskOf(event);
    if (whole !== undefined) {
      task = whole;
      continue;
    }
    if (isJsonObject(event.statusUpdate) && isJsonObject(event.statusUpdate.status)) task = { ...task, status: event.statusUpdate.status };
    if (isJsonObject(event.artifactUpdate) && isJsonObject(event.artifactUpdate.artifact)) task = { ...task, artifacts: appendArtifact(task.artifacts, event.artifactUpdate) };
  }
  return task;
}

function appendArtifact(artifacts: unknown, update: JsonObject): JsonObject[] {
  const list = Array.isArray(artifacts) ? artifacts.filter(isJsonObject) : [];
  const artifact = update.artifact as JsonObject;
  const index = list.findIndex((item) => item.artifactId === artifact.artifactId);
  if (index === -1) return [...list, artifact];
  const earlier = list[index]!;
  const parts = update.append === true && Array.isArray(earlier.parts) && Array.isArray(artifact.parts) ? [...earlier.parts, ...artifact.parts] : artifact.parts;
  return list.map((item, at) => (at === index ? { ...artifact, ...(parts === undefined ? {} : { parts }) } : item));
}

/** The task of a result: `{task: {...}}`, or a task object itself (an `id` and a `status`). */
export function taskOf(result: JsonObject): JsonObject | undefined {
  if (isJsonObject(result.task)) return result.task;
  return typeof result.id === 'string' && isJsonObject(result.status) ? result : undefined;
}

function statusText(task: JsonObject, connection: PeerConnection): string {
  const status = isJsonObject(task.status) ? task.status : {};
  const message = isJsonObject(status.message) && Array.isArray(status.message.parts) ? status.message.parts.filter(isJsonObject) : [];
  const text = message.flatMap((part) => (typeof part.text === 'string' ? [part.text] : [])).join(' ');
  return text === '' ? '' : `: ${connection.quote(text)}`;
}

function stopped(signal: AbortSignal, peer: string, id: string): EffectFailure {
  const deadline = (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
  return new EffectFailure('uncertain', deadline ? 'AGENTCTL_E_TASK_TIMEOUT' : 'AGENTCTL_E_CANCELLED', `A2A peer ${peer}: the run stopped waiting for remote task ${id}${deadline ? ' at the task deadline' : ''}; CancelTask was sent`);
}
