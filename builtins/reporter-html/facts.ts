// What the page derives from the inspection document beyond its records: the run's exit code, each task's needs (from
// the recorded plan), the spans the run was paused (from the audit trail) and each task's retries.
import type { RunInspection } from '@agentctl/sdk';

/** The exit code the run's command ended with, as `run` and `resume` map a run's end. */
export function exitCodeOf(run: RunInspection['run']): number | null {
  const recorded = (run.error as { exitCode?: unknown } | null)?.exitCode;
  if (typeof recorded === 'number') return recorded;
  return { succeeded: 0, paused: 3, failed: 4, cancelled: 130, running: null }[run.state];
}

/** Each task's `needs` as the recorded plan lists them (empty for a task the plan does not name). */
export function needsOf(inspection: RunInspection): Map<string, string[]> {
  const planned = (inspection.run.plan as { tasks?: unknown } | null)?.tasks;
  const needs = new Map<string, string[]>();
  if (Array.isArray(planned)) {
    for (const task of planned as { id?: unknown; needs?: unknown }[]) {
      if (typeof task?.id !== 'string') continue;
      needs.set(task.id, Array.isArray(task.needs) ? task.needs.filter((need): need is string => typeof need === 'string') : []);
    }
  }
  return needs;
}

export interface Span {
  readonly from: string;
  readonly to: string | null;
}

/** The spans between a `run.paused` and the next `run.resumed` (open while the run is still paused). */
export function pausedSpans(inspection: RunInspection): Span[] {
  const spans: Span[] = [];
  let pausedAt: string | null = null;
  for (const event of inspection.audit) {
    if (event.type === 'run.paused' && pausedAt === null) pausedAt = event.at;
    else if (event.type === 'run.resumed' && pausedAt !== null) {
      spans.push({ from: pausedAt, to: event.at });
      pausedAt = null;
    }
  }
  if (pausedAt !== null) spans.push({ from: pausedAt, to: null });
  return spans;
}

/** How many retries the audit trail scheduled for each task. */
export function retriesOf(inspection: RunInspection): Map<string, number> {
  const retries = new Map<string, number>();
  for (const event of inspection.audit) {
    if (event.type === 'task.retry_scheduled' && event.taskId) retries.set(event.taskId, (retries.get(event.taskId) ?? 0) + 1);
  }
  return retries;
}

/** A recorded failure's code, message and (when the raiser gave one) help. */
export interface FailureFacts {
  readonly code: string | null;
  readonly message: string | null;
  readonly help: string | null;
}

export function failureOf(recorded: unknown, fallbackMessage: string | null = null): FailureFacts | null {
  if ((recorded === null || recorded === undefined) && fallbackMessage === null) return null;
  const failure = (recorded ?? {}) as { code?: unknown; message?: unknown; help?: unknown; diagnostics?: unknown };
  const first = Array.isArray(failure.diagnostics) ? (failure.diagnostics[0] as { help?: unknown } | undefined) : undefined;
  const help = typeof failure.help === 'string' ? failure.help : typeof first?.help === 'string' ? first.help : null;
  return {
    code: typeof failure.code === 'string' ? failure.code : null,
    message: typeof failure.message === 'string' ? failure.message : fallbackMessage,
    help,
  };
}

/** The latest timestamp the run recorded: the right end of the timeline. */
export function lastMoment(inspection: RunInspection): string {
  let last = inspection.run.finishedAt ?? inspection.run.updatedAt;
  const consider = (at: string | null | undefined) => {
    if (at && Date.parse(at) > Date.parse(last)) last = at;
  };
  for (const task of inspection.tasks) consider(task.finishedAt ?? task.startedAt);
  for (const effect of inspection.effects) consider(effect.completedAt ?? effect.startedAt ?? effect.requestedAt);
  for (const approval of inspection.approvals) consider(approval.decidedAt ?? approval.requestedAt);
  for (const event of inspection.audit) consider(event.at);
  return last;
}
