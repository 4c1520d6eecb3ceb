// `--output jsonl`: the reference's stream of a run, one StreamEvent line on stdout per event as it is recorded, before
// the final document. Attached once as a commit-hook observer, like human progress; the ledger has already redacted
// the facts.
import { CLI_API_VERSION } from '@agentctl/sdk';
import type { Host } from './host.js';
import type { CommitEvent, JsonValue } from '@agentctl/sdk';

/** What the stream reads of an event. */
type StreamedEvent = Pick<CommitEvent, 'type' | 'runId' | 'taskId' | 'effectId' | 'data'>;

/** The most characters of one payload string printed; a longer one is cut and the line marked `truncated`. */
const MAX_PAYLOAD_TEXT = 4096;

/**
 * The events the stream prints (the `eventType` list of docs/cli.md) and the payload fields of each (`all`: every
 * field). Observers see every audit event; the stream keeps its own set, so its lines do not change when the ledger
 * records more (e.g. `artifact.recorded`).
 */
const OUTCOME = ['attempt', 'durationMs', 'code', 'blockedBy'] as const;
const EFFECT = ['operation', 'code'] as const;
const STREAMED: Readonly<Record<string, readonly string[] | 'all'>> = {
  'run.started': ['workflow', 'traceId'],
  'run.resumed': ['workflow', 'traceId'],
  'run.succeeded': [],
  'run.failed': [],
  'run.paused': [],
  'run.cancelled': [],
  'task.running': ['attempt'],
  'task.retry_scheduled': ['attempt', 'code'],
  'task.succeeded': OUTCOME,
  'task.failed': OUTCOME,
  'task.skipped': OUTCOME,
  'task.cancelled': OUTCOME,
  'task.waiting_for_approval': OUTCOME,
  'effect.requested': EFFECT,
  'effect.started': EFFECT,
  'effect.succeeded': EFFECT,
  'effect.failed': EFFECT,
  'effect.uncertain': EFFECT,
  'approval.requested': ['approvalId'],
  'policy.denied': ['operation', 'code'],
  'budget.exceeded': 'all',
  // Notices, never recorded: a plugin's log line and an agent's stream pieces (`stream.*`).
  'plugin.log': 'all',
};

/** The payload fields the stream prints of `type`, or undefined when it does not print that event. */
function streamed(type: string): readonly string[] | 'all' | undefined {
  return STREAMED[type] ?? (type.startsWith('stream.') ? 'all' : undefined);
}

export function installStreamEvents(host: Host, write: (line: string) => void): void {
  const sequences = new Map<string, number>();
  // A task's attempt as last announced (task.running, retry_scheduled): events that do not carry it inherit it.
  const attempts = new Map<string, number>();
  // The ledger records an approval with the effect that asks it, before the task's outcome; the reference's stream
  // prints it after the task's `task.waiting_for_approval`. A requested approval waits for its task's next event.
  const held = new Map<string, StreamedEvent>();
  const print = (event: StreamedEvent) => {
    const fields = streamed(event.type);
    if (fields !== undefined) printEvent(event, fields);
  };
  host.hooks.commit.tapPromise({ name: 'agentctl:stream-events' }, async (event) => {
    // What the stream does not print neither holds nor releases anything.
    if (streamed(event.type) === undefined) return;
    const key = event.taskId === undefined ? undefined : `${event.runId}/${event.taskId}`;
    const waiting = key === undefined ? undefined : held.get(key);
    if (event.type === 'approval.requested' && key !== undefined) {
      if (waiting) print(waiting);
      held.set(key, event);
      return;
    }
    if (waiting && key !== undefined) {
      held.delete(key);
      if (event.type !== 'task.waiting_for_approval') print(waiting);
      print(event);
      if (event.type === 'task.waiting_for_approval') print(waiting);
      return;
    }
    // A run event ends what is held of that run (nothing else follows its tasks).
    if (event.type.startsWith('run.')) {
      for (const [heldKey, heldEvent] of held) {
        if (heldEvent.runId !== event.runId) continue;
        held.delete(heldKey);
        print(heldEvent);
      }
    }
    print(event);
  });
  function printEvent(event: StreamedEvent, fields: readonly string[] | 'all'): void {
    const sequence = (sequences.get(event.runId) ?? 0) + 1;
    sequences.set(event.runId, sequence);
    const taskKey = event.taskId === undefined ? undefined : `${event.runId}/${event.taskId}`;
    const { providerSequence, ...facts } = event.data;
    if (taskKey && typeof facts.attempt === 'number') attempts.set(taskKey, facts.attempt);
    let truncated = false;
    const payload: Record<string, JsonValue> = {};
    for (const [key, value] of Object.entries(facts)) {
      if (fields !== 'all' && !fields.includes(key)) continue;
      if (typeof value === 'string' && value.length > MAX_PAYLOAD_TEXT) {
        payload[key] = value.slice(0, MAX_PAYLOAD_TEXT);
        truncated = true;
      } else payload[key] = value;
    }
    const data = {
      runId: event.runId,
      taskId: event.taskId ?? null,
      taskAttempt: taskKey ? (attempts.get(taskKey) ?? null) : null,
      sequence,
      effectId: event.effectId ?? null,
      eventType: event.type,
      providerSequence: typeof providerSequence === 'number' ? providerSequence : null,
      payload,
      truncated,
      sourceRunId: null,
      sourceSequence: null,
      createdAt: new Date().toISOString(),
    };
    write(`${JSON.stringify({ apiVersion: CLI_API_VERSION, kind: 'StreamEvent', ok: true, data, diagnostics: [] })}\n`);
  }
}
