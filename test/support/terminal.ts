// The CLI on a real pseudo-terminal (util-linux `script`), and a small screen model that replays what it wrote, so a
// test can assert both on the raw bytes and on what a person sees once the command has ended.
import { spawn, spawnSync } from 'node:child_process';
import { BIN } from './cli.js';

export const ESC = '\u001b';
export const HIDE_CURSOR = `${ESC}[?25l`;
export const SHOW_CURSOR = `${ESC}[?25h`;

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export interface TerminalOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The terminal's size (`stty`); a fresh pseudo-terminal reports none. */
  readonly columns?: number;
  /** Run with stdin from /dev/null: stderr is a terminal, but nobody can answer a question. */
  readonly noStdin?: boolean;
  /** The script that runs the CLI (default: bin/agentctl.js), e.g. an entry that adds a pack (`embeddedPackCli`). */
  readonly entry?: string;
  /** The terminal can be resized (`resize`): its device path is printed first, on a line of its own. */
  readonly resizable?: boolean;
}

export interface Terminal {
  /** Every byte written to the terminal so far. */
  bytes(): string;
  /** Types text, as a person would (`\u0003` is Ctrl+C). */
  type(text: string): void;
  /** Sets the terminal's width, as a person dragging the window's edge does (the CLI gets SIGWINCH); needs `resizable`. */
  resize(columns: number): void;
  /** Resolves once the bytes match (or throws after `timeoutMs`). */
  waitFor(what: string | RegExp, timeoutMs?: number): Promise<void>;
  readonly exit: Promise<{ status: number | null; bytes: string }>;
}

/** Starts `agentctl ARGS` on a terminal of its own. */
export function onTerminal(args: readonly string[], options: TerminalOptions): Terminal {
  const command = [process.execPath, options.entry ?? BIN, ...args].map(quote).join(' ');
  const size = `stty cols ${options.columns ?? 100} rows 30`;
  const child = spawn('script', ['-qfec', `${options.resizable ? 'tty; ' : ''}${size}; exec ${command}${options.noStdin ? ' < /dev/null' : ''}`, '/dev/null'], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let bytes = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.toString('utf8');
    for (const check of waiters) check();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const exit = new Promise<{ status: number | null; bytes: string }>((resolve) =>
    child.on('close', (status) => {
      clearTimeout(killer);
      for (const check of waiters) check();
      resolve({ status, bytes });
    }),
  );
  const matches = (what: string | RegExp) => (typeof what === 'string' ? bytes.includes(what) : what.test(bytes));
  return {
    bytes: () => bytes,
    type: (text) => void child.stdin.write(text),
    resize(columns) {
      const device = /^(\/dev\/pts\/\d+)\r\n/.exec(bytes)?.[1];
      if (!device) throw new Error(`no terminal device announced: start the terminal with resizable: true; it shows:\n${JSON.stringify(bytes)}`);
      const result = spawnSync('stty', ['-F', device, 'cols', String(columns)], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`stty -F ${device} cols ${columns} failed: ${result.stderr}`);
    },
    exit,
    waitFor(what, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => (waiters.delete(check), reject(new Error(`no ${String(what)} on the terminal within ${timeoutMs} ms; it shows:\n${JSON.stringify(bytes)}`))), timeoutMs);
        const check = () => {
          if (!matches(what)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/**
 * What a terminal shows after `bytes`: the lines on screen (colors dropped, trailing blanks trimmed) and whether the
 * cursor is visible. Understands what agentctl and readline write: text, CR, LF, cursor up (A), column (G), erase in
 * line (K) and below (J), colors (m) and cursor visibility (?25l/h); any other sequence fails the test.
 */
export function screenAfter(bytes: string): { lines: string[]; cursorVisible: boolean } {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  let cursorVisible = true;
  const sequence = new RegExp(`^${ESC}\\[(\\??)(\\d*)([A-Za-z])`);
  for (let index = 0; index < bytes.length; ) {
    const character = bytes[index]!;
    if (character === ESC) {
      const match = sequence.exec(bytes.slice(index, index + 16));
      if (!match) throw new Error(`unexpected escape sequence at ${index}: ${JSON.stringify(bytes.slice(index, index + 16))}`);
      const [whole, privateMark, number, command] = match;
      const count = number === '' ? 1 : Number(number);
      if (privateMark === '?' && number === '25') cursorVisible = command === 'h';
      else if (command === 'A') row = Math.max(0, row - count);
      else if (command === 'G') column = count - 1;
      else if (command === 'K') rows[row] = number === '2' ? [] : rows[row]!.slice(0, column);
      else if (command === 'J') rows.splice(row + 1), (rows[row] = rows[row]!.slice(0, column));
      else if (command !== 'm') throw new Error(`unexpected escape sequence ${JSON.stringify(whole)}`);
      index += whole!.length;
      continue;
    }
    if (character === '\r') column = 0;
    else if (character === '\n') {
      row += 1;
      rows[row] ??= [];
    } else {
      const line = rows[row]!;
      while (line.length < column) line.push(' ');
      line[column] = character;
      column += 1;
    }
    index += character.length;
  }
  const lines = rows.map((line) => (line ?? []).join('').trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return { lines, cursorVisible };
}
