// Helpers for the reference journeys: a workspace holding a copy of a journey's fixtures, the CLI run there the way
// the reference's guides run it, and JSON pointers (RFC 6901) to read the documents as a script would.
import { cpSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, ROOT, runCli, workspace, type CliResult } from '../support/cli.js';
import { errorDocument, outcome } from '../cases/helpers.js';

export const FIXTURES = join(ROOT, 'test', 'compat', 'fixtures', 'journeys');

/** The value at a JSON pointer such as `/data/0/approvalId` (undefined when a step is missing). */
export function at(document: unknown, pointer: string): any {
  if (pointer === '') return document;
  let value: any = document;
  for (const raw of pointer.slice(1).split('/')) {
    const step = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (value === null || typeof value !== 'object') return undefined;
    value = value[step];
  }
  return value;
}

/** Asserts the values at several pointers of one document (deep equality), naming the pointer that differs. */
export function expectAt(document: unknown, expected: Record<string, unknown>): void {
  for (const [pointer, value] of Object.entries(expected)) {
    expect(at(document, pointer), `${pointer} in ${JSON.stringify(document).slice(0, 2000)}`).to.deep.equal(value);
  }
}

/** A fresh workspace per test holding copies of the named fixtures (files or folders of fixtures/journeys). */
export function useJourney(...fixtures: string[]) {
  const state = { ws: undefined as unknown as ReturnType<typeof workspace> };
  beforeEach(() => {
    state.ws = workspace();
    // A fixture file lands at the workspace's root under its name; a fixture folder's contents become the workspace.
    for (const name of fixtures) {
      const source = join(FIXTURES, name);
      cpSync(source, statSync(source).isDirectory() ? state.ws.dir : state.ws.file(name), { recursive: true });
    }
  });
  afterEach(() => state.ws.cleanup());

  /** Runs `agentctl ARGS` in the workspace, as a shell in that folder would. */
  const cli = (...args: string[]): CliResult => runCli(args, { cwd: state.ws.dir, env: baseEnv() });
  return {
    get ws() {
      return state.ws;
    },
    cli,
    /** The one JSON document on stdout, with the exit code asserted. */
    json: (code: number, ...args: string[]) => outcome(cli(...args), code),
    /** The one JSON Error document on stderr (stdout empty), with the exit code asserted. */
    error: (code: number, ...args: string[]) => errorDocument(cli(...args), code),
    /** A workspace file's text, or null when it does not exist. */
    text: (name: string) => (existsSync(state.ws.file(name)) ? readFileSync(state.ws.file(name), 'utf8') : null),
    exists: (name: string) => existsSync(state.ws.file(name)),
  };
}

/** The task record with a given id in a `RunInspection` document's `data.tasks`. */
export function inspectedTask(inspection: any, taskId: string): any {
  const found = (inspection.data.tasks as any[]).find((task) => task.taskId === taskId);
  expect(found, `task ${taskId} in ${JSON.stringify(inspection.data.tasks)}`).to.not.equal(undefined);
  return found;
}
