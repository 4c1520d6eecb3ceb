// `--output jsonl`: every committed event becomes one StreamEvent line on stdout as it is recorded, before the final
// document. Attached once as a commit-hook observer, like human progress; the runner has already redacted the facts.
import { CLI_API_VERSION } from './version.js';
import type { Host } from './host.js';
import type { JsonValue } from '@agentctl/sdk';

/** The most characters of one payload string printed; a longer one is cut and the line marked `truncated`. */
const MAX_PAYLOAD_TEXT = 4096;

export function installStreamEvents(host: Host, write: (line: string) => void): void {
  const sequences = new Map<string, number>();
  // A task's attempt as last announced (task.running, retry_scheduled): events that do not carry it inherit it.
  const attempts = new Map<string, number>();
  host.hooks.commit.tapPromise({ name: 'agentctl:stream-events' }, async (event) => {
    const sequence = (sequences.get(event.runId) ?? 0) + 1;
    sequences.set(event.runId, sequence);
    const taskKey = event.taskId === undefined ? undefined : `${event.runId}/${event.taskId}`;
    const { providerSequence, ...facts } = event.data;
    if (taskKey && typeof facts.attempt === 'number') attempts.set(taskKey, facts.attempt);
    let truncated = false;
    const payload: Record<string, JsonValue> = {};
    for (const [key, value] of Object.entries(facts)) {
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
  });
}
