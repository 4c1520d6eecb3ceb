// Shared helpers for the end-to-end cases: workflow documents, database reads, process-tree scans.
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { parseDocument, ROOT, startCli, workspace, type CliResult } from '../support/cli.js';

export const CLI_API_VERSION = 'agentctl.dev/cli/v1';

/** A random token that no other test (or process) can produce by accident. */
export const unique = (prefix = 'u') => `${prefix}${randomBytes(8).toString('hex')}`;

/** A unique `sleep` duration such as `300.48213`: identifies one test's process tree in /proc. */
export const uniqueSleep = (seconds: number) => `${seconds}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}1`;

export interface WorkflowSpec {
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  policy?: Record<string, unknown>;
  runtime?: Record<string, unknown>;
  actions?: Record<string, Record<string, unknown>>;
  tasks: Record<string, unknown>[];
  subworkflows?: Record<string, unknown>;
  compensation?: Record<string, unknown>;
  vars?: Record<string, unknown>;
  varsFiles?: string[];
  providers?: Record<string, unknown>;
  agents?: Record<string, unknown>;
}

/** A workflow document as YAML text. */
export function workflow(spec: WorkflowSpec, name = 'test'): string {
  return stringify({ apiVersion: 'agentctl.dev/v1', kind: 'Workflow', metadata: { name }, spec });
}

/** One shell action and one task using it, with a given policy. */
export function shellWorkflow(action: Record<string, unknown>, policy: Record<string, unknown>, task: Record<string, unknown> = {}, extra: Partial<WorkflowSpec> = {}): string {
  return workflow({ policy, actions: { cmd: { kind: 'builtin.shell.exec', ...action } }, tasks: [{ id: 'cmd', uses: 'action:cmd', ...task }], ...extra });
}

/** Asserts an exit code and returns the single JSON document on stdout. */
export function outcome(result: CliResult, exitCode: number): any {
  expect(result.status, `exit code; stderr: ${result.stderr}`).to.equal(exitCode);
  const document = parseDocument(result.stdout);
  expect(document.apiVersion).to.equal(CLI_API_VERSION);
  return document;
}

/** Asserts an exit code, an empty stdout and one JSON Error document on stderr; returns it. */
export function errorDocument(result: CliResult, exitCode: number): any {
  expect(result.status, `exit code; stdout: ${result.stdout}; stderr: ${result.stderr}`).to.equal(exitCode);
  expect(result.stdout).to.equal('');
  const document = parseDocument(result.stderr);
  expect(document.apiVersion).to.equal(CLI_API_VERSION);
  expect(document.kind).to.equal('Error');
  expect(document.ok).to.equal(false);
  expect(document.error.exitCode).to.equal(exitCode);
  expect(document.diagnostics).to.be.an('array').that.is.not.empty;
  return document;
}

/** The diagnostic with a given code (asserts it exists). */
export function diagnosticWithCode(document: any, code: string): any {
  const found = (document.diagnostics as any[]).find((item) => item.code === code);
  expect(found, `diagnostic ${code} in ${JSON.stringify(document.diagnostics)}`).to.not.equal(undefined);
  return found;
}

/** Runs `body` with the database opened read-only. */
export function withDb<T>(path: string, body: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return body(db);
  } finally {
    db.close();
  }
}

export const rows = (path: string, sql: string, ...params: unknown[]): any[] => withDb(path, (db) => db.prepare(sql).all(...params));

/** Number of rows in runs, or 0 when the database file was never created. */
export function runCount(path: string): number {
  if (!existsSync(path)) return 0;
  return withDb(path, (db) => {
    const table = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'runs'`).get();
    return table ? (db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n : 0;
  });
}

export interface LiveProcess {
  pid: number;
  state: string;
  argv: string[];
}

/** Live (non-zombie) processes whose argv contains `marker` as one argument. */
export function liveProcessesWith(marker: string): LiveProcess[] {
  const found: LiveProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter((part) => part !== '');
      if (!argv.includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
      if (state === 'Z' || state === 'X') continue;
      found.push({ pid: Number(entry), state, argv });
    } catch {
      // The process ended while it was being read.
    }
  }
  return found;
}

/** Polls `condition` every 20 ms until it returns a truthy value, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, condition: () => T | undefined | false | null, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = condition();
      if (value) return value;
    } catch {
      // Not ready yet (e.g. the database does not exist yet).
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Reads a file as latin1 (byte-exact search for ASCII secrets), or '' if it does not exist. */
export const bytesOf = (path: string): string => (existsSync(path) ? readFileSync(path).toString('latin1') : '');

/** Collects a started CLI's output and waits for it to exit. */
export function finished(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/**
 * A fresh workspace per test, plus a list of pids the test saw and must not leave behind: only processes the test
 * started (found by their unique argument) are ever killed.
 */
export function useWorkspace(): { readonly ws: ReturnType<typeof workspace>; readonly leftovers: number[] } {
  const state = { ws: undefined as unknown as ReturnType<typeof workspace>, leftovers: [] as number[] };
  beforeEach(() => (state.ws = workspace()));
  afterEach(() => {
    for (const pid of state.leftovers.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    state.ws.cleanup();
  });
  return state;
}

/** Every byte agentctl printed (`outputs`) or left under `folder` (database, WAL, artifacts, reports) is free of `canary`. */
export function assertNoCanary(canary: string, folder: string, ...outputs: string[]): void {
  for (const text of outputs) expect(text).to.not.contain(canary);
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    expect(readFileSync(path).includes(canary), `the canary is in ${path}`).to.equal(false);
  }
}

/** The `{value: string}` schema the extension fixture takes and gives. */
export const FIXTURE_SCHEMA = { type: 'object', required: ['value'], additionalProperties: false, properties: { value: { type: 'string' } } };

/** An extension.process action running the test fixture with a behaviour (see test/fixtures/extension-fixture.mjs). */
export const fixtureExtension = (behaviour: string, fields: Record<string, unknown> = {}) => ({
  kind: 'extension.process',
  command: 'node',
  args: [join(ROOT, 'test', 'fixtures', 'extension-fixture.mjs'), behaviour],
  protocolVersion: 'agentctl.dev/process-extension/v1',
  idempotency: 'keyed',
  capabilities: ['fixture.echo'],
  inputSchema: FIXTURE_SCHEMA,
  outputSchema: FIXTURE_SCHEMA,
  timeoutSeconds: 20,
  ...fields,
});

/** A shell action that appends `line` to out.txt, after the shell text `before`. */
export const appendLine = (line: string, before = '') => ({ kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', `${before}echo ${line} >> out.txt`] });

/**
 * Runs two tasks, a then b (b waits for a file `go` that never comes), and stops the run with SIGTERM once b's effect
 * started: returns the run's RunOutcome (exit 130), b's effect left `started` in the ledger.
 */
export async function interruptedAtSecondTask(ws: ReturnType<typeof workspace>): Promise<any> {
  ws.write(
    'wf.yaml',
    workflow({
      policy: { processAllowlist: ['sh'], writableRoots: ['.'], approval: 'never' },
      actions: { a: appendLine('a'), b: appendLine('b', 'test -f go || sleep 30; ') },
      tasks: [{ id: 'a', uses: 'action:a' }, { id: 'b', uses: 'action:b', needs: ['a'] }],
    }),
  );
  const child = startCli(['run', ws.file('wf.yaml'), '--db', ws.db, '--output', 'json'], { cwd: ws.dir });
  const done = finished(child);
  await waitFor('task b to start its effect', () => rows(ws.db, `SELECT state FROM effects WHERE task_id = 'b' AND state = 'started'`).length === 1);
  child.kill('SIGTERM');
  return outcome(await done, 130);
}
