// What live progress shows, kept apart from the terminal: the tasks in flight (from the commit events, in order), the
// lines they settle into (the plain progress lines of core/progress.ts), and the live lines of one frame.
import type { ObservedEvent } from '../hooks.js';
import { progressLine } from '../progress.js';
import { neutralize } from '../text.js';

/** At most this many tasks get a line of their own; the rest are counted on one more line. */
export const MAX_LIVE_LINES = 10;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const ENDED = new Set(['task.succeeded', 'task.failed', 'task.skipped', 'task.cancelled']);
const RUN_ENDED = new Set(['run.succeeded', 'run.failed', 'run.paused', 'run.cancelled']);

type Phase = 'running' | 'retrying' | 'waiting';

interface LiveTask {
  phase: Phase;
  attempt: number;
  /** When the current attempt started running (ms since the epoch). */
  started: number;
  /** When the current phase began: a wait for approval or a retry's backoff counts from here. */
  since: number;
  /** A task parked waiting for approval settles into its own progress line when the run ends. */
  settlesInto?: string;
}

/** One line of a frame: `waiting` lines are shown apart (a person is needed), `more` counts the tasks not shown. */
export interface LiveLine {
  readonly text: string;
  readonly tone: 'running' | 'waiting' | 'more';
}

export class LiveTasks {
  readonly #tasks = new Map<string, LiveTask>();
  #maxAttempts = new Map<string, number>();

  get size(): number {
    return this.#tasks.size;
  }

  /** Each task's `retry.maxAttempts`, from the compiled plan; a task not named shows its attempt number alone. */
  setMaxAttempts(tasks: readonly { readonly id: string; readonly retry?: { readonly maxAttempts: number } }[]): void {
    this.#maxAttempts = new Map(tasks.map((task) => [task.id, task.retry?.maxAttempts ?? 1]));
  }

  /** Applies one event; returns the lines to print above the live region, in order (often none). */
  apply(event: ObservedEvent, now = Date.now()): string[] {
    const at = event.at === undefined ? now : Date.parse(event.at) || now;
    const line = progressLine(event);
    if (RUN_ENDED.has(event.type)) return this.#settleAll();
    if (event.taskId === undefined) return line === undefined ? [] : [line];
    const attempt = typeof event.data.attempt === 'number' ? event.data.attempt : 1;
    const task = this.#tasks.get(event.taskId);
    if (event.type === 'task.running') {
      this.#tasks.set(event.taskId, { phase: 'running', attempt, started: at, since: at });
      return [];
    }
    if (ENDED.has(event.type)) {
      this.#tasks.delete(event.taskId);
      return line === undefined ? [] : [line];
    }
    if (event.type === 'task.waiting_for_approval') {
      this.#tasks.set(event.taskId, { phase: 'waiting', attempt, started: task?.started ?? at, since: at, ...(line === undefined ? {} : { settlesInto: line }) });
      return [];
    }
    if (event.type === 'task.retry_scheduled' && task) Object.assign(task, { phase: 'retrying', attempt, since: at });
    return line === undefined ? [] : [line];
  }

  /** A person is asked about one of the task's effects: the task waits for the answer. */
  waiting(taskId: string, now = Date.now()): void {
    const task = this.#tasks.get(taskId);
    if (task) Object.assign(task, { phase: 'waiting', since: now });
  }

  /** The person answered: the task runs on (its elapsed time still counts from the attempt's start). */
  answered(taskId: string): void {
    const task = this.#tasks.get(taskId);
    if (task?.phase === 'waiting' && task.settlesInto === undefined) task.phase = 'running';
  }

  /** The lines of one frame at `now`, each cut to `width` columns; `frame` turns the spinner. */
  lines(now: number, width: number, frame: number): LiveLine[] {
    const spinner = SPINNER[frame % SPINNER.length]!;
    const entries = [...this.#tasks];
    const shown = entries.length > MAX_LIVE_LINES ? entries.slice(0, MAX_LIVE_LINES - 1) : entries;
    const lines: LiveLine[] = shown.map(([id, task]) => ({ text: cut(this.#describe(id, task, spinner, now), width), tone: task.phase === 'waiting' ? 'waiting' : 'running' }));
    if (shown.length < entries.length) lines.push({ text: cut(`  +${entries.length - shown.length} more`, width), tone: 'more' });
    return lines;
  }

  #describe(id: string, task: LiveTask, spinner: string, now: number): string {
    const name = neutralize(id);
    if (task.phase === 'waiting') return `? ${name} waiting for approval ${elapsed(now - task.since)}`;
    if (task.phase === 'retrying') return `${spinner} ${name} retry scheduled ${elapsed(now - task.since)} (${this.#attempt(id, task.attempt)} failed)`;
    const attempt = task.attempt > 1 ? ` (${this.#attempt(id, task.attempt)})` : '';
    return `${spinner} ${name} running ${elapsed(now - task.started)}${attempt}`;
  }

  #attempt(id: string, attempt: number): string {
    const most = this.#maxAttempts.get(id);
    return most !== undefined && most >= attempt ? `attempt ${attempt}/${most}` : `attempt ${attempt}`;
  }

  /** The run ended: a task still parked waiting for approval settles into its line; nothing else stays live. */
  #settleAll(): string[] {
    const lines = [...this.#tasks.values()].flatMap((task) => (task.settlesInto === undefined ? [] : [task.settlesInto]));
    this.#tasks.clear();
    return lines;
  }
}

/** `0.4s`, `12.0s`, `2m05s`. */
export function elapsed(milliseconds: number): string {
  const seconds = Math.max(0, milliseconds) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}

/**
 * At most `width - 1` characters (a line filling the last column wraps on some terminals), `…` where cut. A character
 * is a column: task ids are ASCII letters, digits, `_`, `-` (neutralized besides), the spinner and `…` one column each.
 */
export function cut(text: string, width: number): string {
  const characters = [...text];
  const room = Math.max(1, width - 1);
  return characters.length <= room ? text : `${characters.slice(0, room - 1).join('')}…`;
}
