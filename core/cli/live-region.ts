// Live progress on a terminal: one line per task in flight at the bottom of stderr, redrawn on a timer, each settling
// into its plain progress line (printed above the region) when the task ends. The region is on screen only while a
// task is in flight; anything else written to stderr or to stdout's terminal clears it first, a question to the person
// at the terminal pauses it, and every way out (the end of the run, an error, a signal, process exit) clears it and
// shows the cursor again.
import type { CompiledPlan } from '@agentctl/sdk';
import type { Host } from '../host.js';
import { inCi } from './ci-environment.js';
import { progressLine } from '../progress.js';
import { LiveTasks } from './live-tasks.js';

/** Frames per second: enough for a spinner and a tenth of a second, little enough to cost nothing. */
const REFRESH_MS = 100;

type Render = ((text: string) => void) & { clear(): void; done(): void };
type Paint = (text: string) => string;

/**
 * Whether a command's human progress is drawn live: on a terminal (stderr), in human output, outside CI, with color
 * allowed (`NO_COLOR` empty, not `--color never`) and a terminal that can move its cursor. Otherwise the plain log.
 */
export function liveProgressWanted(output: string, color: string, stream: NodeJS.WriteStream, environment: NodeJS.ProcessEnv): boolean {
  if (output !== 'human' || color === 'never' || !stream.isTTY || inCi(environment)) return false;
  return (environment.NO_COLOR === undefined || environment.NO_COLOR === '') && environment.TERM !== 'dumb';
}

const size = (stream: NodeJS.WriteStream) => ({ columns: stream.columns || 80, rows: stream.rows || 24 });

export class LiveRegion {
  readonly #tasks = new LiveTasks();
  #render: Render | undefined;
  /** The timer, the write guards and the exit handler are installed. */
  #active = false;
  /** The region's lines are on screen. */
  #drawn = false;
  /** The region itself is writing: its own writes pass the guards. */
  #writing = false;
  #paused = 0;
  /** Drawing failed to start: every event prints its plain progress line instead. */
  #plain = false;
  /** Lines that settled while a question was on screen, printed once it is answered. */
  #held: string[] = [];
  #frame = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #undo: (() => void)[] = [];

  constructor(
    private readonly colors: { readonly dim: Paint; readonly yellow: Paint },
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  /** Attaches to a host: the plan's retry limits, and every committed event of its runs. */
  observe(host: Host): void {
    host.hooks.compile.tap({ name: 'agentctl:live-progress', stage: 1_000 }, (plan: CompiledPlan) => {
      this.#tasks.setMaxAttempts(plan.tasks);
      return plan;
    });
    host.hooks.commit.tapPromise({ name: 'agentctl:live-progress' }, async (event) => {
      if (this.#plain) return this.#print([progressLine(event)].filter((line) => line !== undefined));
      const lines = this.#tasks.apply(event);
      try {
        if (this.#tasks.size > 0) await this.#start();
      } catch (error) {
        // The terminal library could not be loaded (a broken install): the plain log from here on, and one warning.
        this.#plain = true;
        this.#print([progressLine(event)].filter((line) => line !== undefined));
        throw new Error(`live progress is off: the terminal library could not be loaded (${error instanceof Error ? error.message : String(error)})`);
      }
      this.#print(lines);
      if (this.#tasks.size === 0) this.close();
      else this.#draw();
    });
  }

  /** An effect of the task is about to be put to the person at the terminal (or waits for another question). */
  waiting(taskId: string): void {
    this.#tasks.waiting(taskId);
  }

  /** The answer came: the task runs on. */
  answered(taskId: string): void {
    this.#tasks.answered(taskId);
  }

  /**
   * Clears the region, shows the cursor (a person is about to type) and keeps the region off screen until the
   * returned function is called.
   */
  pause(): () => void {
    this.#paused += 1;
    this.#clear();
    if (this.#active) this.#own(() => this.#render?.done());
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.#paused -= 1;
      if (this.#paused > 0) return;
      const held = this.#held;
      this.#held = [];
      this.#print(held);
      this.#draw();
    };
  }

  /** Clears the region, shows the cursor and removes the timer and guards; a later task in flight starts it again. */
  close(): void {
    if (!this.#active) return;
    this.#active = false;
    clearInterval(this.#timer);
    this.#own(() => {
      this.#clear();
      this.#render?.done();
    });
    for (const undo of this.#undo.splice(0).reverse()) undo();
  }

  async #start(): Promise<void> {
    if (this.#active) return;
    // Loaded only now: a command that never draws (no terminal, JSON, CI) never loads the terminal library.
    if (!this.#render) {
      const { createLogUpdate } = await import('log-update');
      // A terminal that reports no size (0 columns, as a fresh pseudo-terminal may) is drawn as 80 by 24.
      const stream = this.stream;
      const sized = { write: (text: string) => stream.write(text), get columns() { return size(stream).columns; }, get rows() { return size(stream).rows; } };
      this.#render = createLogUpdate(sized as unknown as NodeJS.WriteStream, { showCursor: false }) as Render;
    }
    if (this.#active) return;
    this.#active = true;
    this.#timer = setInterval(() => {
      this.#frame += 1;
      this.#draw();
    }, REFRESH_MS).unref();
    this.#guard(this.stream);
    if (process.stdout !== this.stream && process.stdout.isTTY) this.#guard(process.stdout);
    const redraw = () => {
      this.#clear();
      this.#draw();
    };
    this.stream.on('resize', redraw);
    // process.exit() (a second signal) skips every finally: the region is cleared and the cursor shown here.
    const exit = () => this.close();
    process.on('exit', exit);
    this.#undo.push(() => void this.stream.off('resize', redraw), () => void process.off('exit', exit));
  }

  /** Any write to the stream that is not the region's own clears the region first; the next frame draws it again. */
  #guard(target: NodeJS.WriteStream): void {
    const own = Object.getOwnPropertyDescriptor(target, 'write');
    const write = target.write;
    target.write = ((...args: Parameters<typeof write>) => {
      if (!this.#writing && this.#drawn) this.#clear();
      return write.apply(target, args);
    }) as typeof write;
    this.#undo.push(() => {
      if (own) Object.defineProperty(target, 'write', own);
      else delete (target as { write?: unknown }).write;
    });
  }

  #print(lines: readonly string[]): void {
    if (lines.length === 0) return;
    if (this.#paused > 0) {
      this.#held.push(...lines);
      return;
    }
    this.#clear();
    this.#own(() => this.stream.write(lines.map((line) => `${this.colors.dim(line)}\n`).join('')));
  }

  #draw(): void {
    if (!this.#active || this.#paused > 0 || !this.#render) return;
    const lines = this.#tasks.lines(Date.now(), size(this.stream).columns, this.#frame);
    if (lines.length === 0) return this.#clear();
    const text = lines.map((line) => (line.tone === 'waiting' ? this.colors.yellow(line.text) : line.tone === 'more' ? this.colors.dim(line.text) : line.text)).join('\n');
    this.#own(() => this.#render!(text));
    this.#drawn = true;
  }

  #clear(): void {
    if (!this.#drawn) return;
    this.#drawn = false;
    this.#own(() => this.#render?.clear());
  }

  #own(write: () => void): void {
    const before = this.#writing;
    this.#writing = true;
    try {
      write();
    } finally {
      this.#writing = before;
    }
  }
}
