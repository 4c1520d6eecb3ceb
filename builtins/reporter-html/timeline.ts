// The timeline: one row per task on the run's time axis, a bar for the task (its attempts said), thinner bars for its
// effects, hatched bars for its approval waits, and the spans the run was paused shaded. Plain CSS positioned by
// percentages, so it scales from a phone to a wide screen; every bar also has its words for a screen reader.
import type { RunInspection } from '@agentctl/sdk';
import { duration, esc, millis } from './html.js';
import { lastMoment, pausedSpans, retriesOf, type Span } from './facts.js';

/** The most task rows the timeline draws; the tasks table lists them all. */
export const TIMELINE_LIMIT = 200;

interface Bar {
  readonly className: string;
  readonly from: string;
  readonly to: string | null;
  readonly words: string;
}

export function renderTimeline(inspection: RunInspection): string {
  const start = inspection.run.createdAt;
  const end = lastMoment(inspection);
  const total = Math.max(millis(start, end) ?? 0, 1);
  const at = (moment: string) => Math.min(100, Math.max(0, ((millis(start, moment) ?? 0) / total) * 100));
  const place = (from: string, to: string | null) => {
    const left = at(from);
    const width = Math.max(at(to ?? end) - left, 0.4);
    return `left:${left.toFixed(2)}%;width:${Math.min(width, 100 - left).toFixed(2)}%`;
  };
  const offset = (moment: string) => `+${duration(millis(start, moment))}`;
  const paused = pausedSpans(inspection);
  const shading = paused.map((span: Span) => `<span class="tl-paused" style="${place(span.from, span.to)}"></span>`).join('');
  const retries = retriesOf(inspection);
  const shown = inspection.tasks.filter((task) => task.startedAt !== null).slice(0, TIMELINE_LIMIT);
  const never = inspection.tasks.filter((task) => task.startedAt === null).length;

  const rows = shown.map((task) => {
    const bars: Bar[] = [];
    const attempts = Math.max(task.attempt, 1 + (retries.get(task.taskId) ?? 0));
    bars.push({ className: `tl-task s-${esc(task.state)}`, from: task.startedAt!, to: task.finishedAt, words: `task ${task.state}${attempts > 1 ? `, ${attempts} attempts` : ''}, ${offset(task.startedAt!)} for ${duration(millis(task.startedAt, task.finishedAt ?? end))}` });
    for (const approval of inspection.approvals.filter((item) => item.taskId === task.taskId)) {
      bars.push({ className: 'tl-wait', from: approval.requestedAt, to: approval.decidedAt, words: `waited ${duration(millis(approval.requestedAt, approval.decidedAt ?? end))} for approval ${approval.approvalId} (${approval.status})` });
    }
    for (const effect of inspection.effects.filter((item) => item.taskId === task.taskId)) {
      const from = effect.startedAt ?? effect.requestedAt;
      bars.push({ className: `tl-effect s-${esc(effect.state)}`, from, to: effect.completedAt, words: `effect ${effect.operation} ${effect.state}, ${offset(from)} for ${duration(millis(from, effect.completedAt ?? end))}` });
    }
    const drawn = bars.map((bar) => `<span class="${bar.className}" style="${place(bar.from, bar.to)}" title="${esc(bar.words)}"></span>`).join('');
    const words = bars.map((bar) => esc(bar.words)).join('; ');
    return `<li><span class="tl-label">${esc(task.taskId)}${attempts > 1 ? ` <span class="tl-attempts">×${attempts}</span>` : ''}</span><span class="tl-track">${shading}${drawn}</span><span class="sr">${words}</span></li>`;
  });

  const notes: string[] = [];
  const hidden = inspection.tasks.length - never - shown.length;
  if (hidden > 0) notes.push(`${hidden} more tasks are not drawn (the timeline draws the first ${TIMELINE_LIMIT}); the tasks table lists every task.`);
  if (never > 0) notes.push(`${never} tasks never started (skipped or not reached) and have no bar.`);
  if (paused.length > 0) notes.push(`Shaded: the run was paused ${paused.length} time${paused.length === 1 ? '' : 's'} (${paused.map((span) => duration(millis(span.from, span.to ?? end))).join(', ')}).`);
  if (rows.length === 0) return `<p class="none">No task started.</p>${notes.map((note) => `<p class="note">${esc(note)}</p>`).join('')}`;
  return [
    `<figure class="timeline"><figcaption>Tasks and effects from ${esc(start)} (0) to ${esc(end)} (${esc(duration(total))}). Wide bars: tasks; thin bars: effects; hatched: approval waits.</figcaption>`,
    `<div class="tl-axis" aria-hidden="true"><span>0</span><span>${esc(duration(total / 2))}</span><span>${esc(duration(total))}</span></div>`,
    `<ol class="tl" aria-label="timeline of ${shown.length} tasks">`,
    rows.join('\n'),
    '</ol>',
    ...notes.map((note) => `<p class="note">${esc(note)}</p>`),
    '</figure>',
  ].join('\n');
}
