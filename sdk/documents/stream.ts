// The lines of `--output jsonl`: one StreamEvent per recorded event, as it is recorded, before the final document.
// Each line is a whole envelope of kind StreamEvent whose `data` carries the reference implementation's stream record
// fields (`runId`, `taskId`, `taskAttempt`, `sequence`, `effectId`, `eventType`, `providerSequence`, `payload`,
// `truncated`, `sourceRunId`, `sourceSequence`, `createdAt`). The reference records only provider stream events;
// agentctl also prints run, task, effect and approval events, with `taskId`/`taskAttempt` null where they do not apply.
import { z } from 'zod';
import { envelopeOf } from './envelope.js';

/** The `data` of one StreamEvent line: the reference's stream record fields. */
export const StreamEventData = z.looseObject({
  runId: z.string(),
  /** The task the event belongs to; null for a run's own events (`run.started`, `run.succeeded`, ...). */
  taskId: z.string().nullable(),
  /** The task's attempt (1 for the first); null for run events. */
  taskAttempt: z.number().int().nullable(),
  /** 1, 2, 3, ... in the order events were recorded, per run and invocation. */
  sequence: z.number().int(),
  effectId: z.string().nullable(),
  /** e.g. `run.started`, `task.running`, `effect.requested`, `effect.started`, `effect.succeeded`, `approval.requested`, `task.succeeded`, `stream.delta`. */
  eventType: z.string(),
  /** The provider's own number of a `stream.delta` piece; null for every other event. */
  providerSequence: z.number().int().nullable(),
  /** The event's facts (redacted: never a secret value), e.g. `{attempt}`, `{operation}`, `{operation, code}`, `{delta}`. */
  payload: z.record(z.string(), z.json()),
  truncated: z.boolean(),
  sourceRunId: z.string().nullable(),
  sourceSequence: z.number().int().nullable(),
  /** ISO 8601, when the event was printed (right after it was recorded). */
  createdAt: z.string(),
});

/** One whole `--output jsonl` event line: the envelope (kind `StreamEvent`) around its `data`. */
export const StreamEvent = envelopeOf('StreamEvent', StreamEventData);
