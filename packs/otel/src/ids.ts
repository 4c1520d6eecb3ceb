// Span ids agentctl can name without having seen the span: a run's root span id is derived from its run id, so a
// resumed process, and a run derived from it (retry, repair, fork), can point at it.
import { createHash } from 'node:crypto';

/** 16 lower-case hex digits, never all zeros: the span id of a run's root span. */
export function rootSpanId(runId: string): string {
  const id = createHash('sha256').update(`agentctl.run.root:${runId}`).digest('hex').slice(0, 16);
  return /^0+$/.test(id) ? '0000000000000001' : id;
}

/** A trace id as W3C trace context writes it: 32 lower-case hex digits, not all zeros. */
export const isTraceId = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{32}$/.test(value) && !/^0+$/.test(value);
