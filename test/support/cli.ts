// Runs the real CLI (the built dist/, exactly what users get) as a child process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { cliDocumentSchema } from '@agentctl/sdk/documents';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'bin', 'agentctl.js');

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** A clean environment: the tests decide exactly what agentctl sees. */
export function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...extra };
}

export function runCli(args: string[], options: CliOptions = {}): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? baseEnv(),
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs the CLI without blocking this process: for tests whose own in-process servers (a local model API) must keep
 * answering while agentctl runs.
 */
export function runCliAsync(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = startCli(args, options);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolvePromise({ status, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    });
  });
}

/** Starts the CLI without waiting, for signal tests. */
export function startCli(args: string[], options: CliOptions = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env: options.env ?? baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The single JSON document of a stream (asserts there is exactly one line), validated against its kind's schema. */
export function parseDocument(text: string): any {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length !== 1) throw new Error(`expected one JSON line, got ${lines.length}:\n${text}`);
  return validDocument(JSON.parse(lines[0]!));
}

/** Asserts that a parsed document is one of the CLI's kinds and matches that kind's published schema; returns it. */
export function validDocument(document: any): any {
  const kind = String(document?.kind);
  const schema = cliDocumentSchema(kind);
  if (!schema) throw new Error(`the CLI printed a document of kind ${kind}, which has no schema in sdk/documents`);
  const parsed = schema.safeParse(document);
  if (!parsed.success) throw new Error(`the ${kind} document does not match its schema:\n${z.prettifyError(parsed.error)}\n${JSON.stringify(document).slice(0, 4000)}`);
  return document;
}

/** A fresh temporary workspace folder with the given files; removed by `cleanup`. */
export function workspace(files: Record<string, string> = {}): { dir: string; db: string; file(name: string): string; write(name: string, content: string): string; cleanup(): void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-test-')));
  const write = (name: string, content: string) => {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    return path;
  };
  for (const [name, content] of Object.entries(files)) write(name, content);
  return { dir, db: join(dir, 'state', 'runtime.db'), file: (name) => join(dir, name), write, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A workspace holding `pack.mjs` (which imports `./sdk-copy/index.js`, its own copy of the built SDK, as a bundled
 * pack would) and `entry.mjs`, a CLI entry that runs `main` with the pack registered. Returns the workspace and the
 * entry's path; run it with `node ENTRY ARGS...` in the workspace.
 */
export function embeddedPackCli(pack: string): { ws: ReturnType<typeof workspace>; entry: string } {
  const ws = workspace({ 'pack.mjs': pack });
  cpSync(join(ROOT, 'sdk', 'dist'), ws.file('sdk-copy'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), ws.file('node_modules'));
  const app = pathToFileURL(join(ROOT, 'dist', 'core', 'cli', 'app.js')).href;
  const entry = ws.write('entry.mjs', `import { main } from '${app}';\nimport pack from './pack.mjs';\nawait main(process.argv.slice(2), { plugins: [pack] });\n`);
  return { ws, entry };
}
