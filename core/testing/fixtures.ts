// Temporary folders for tests: a workspace with the files a case needs, and a folder for a database. Each is created
// before one test and removed after it, with the runner's global hooks (mocha, or a compatible runner).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One file of a fixture: its text or bytes, or a symbolic link to `symlink` (absolute, or relative to the link). */
export type FileFixture = string | Uint8Array | { readonly symlink: string };

/** Files by path relative to the workspace; folders are created as needed. */
export type FileFixtures = Readonly<Record<string, FileFixture>>;

/** A fresh folder (links resolved, so paths compare equal to what agentctl records). */
export function temporaryFolder(prefix = 'agentctl-kit-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Writes `files` below `folder`. */
export function writeFiles(folder: string, files: FileFixtures): void {
  for (const [path, content] of Object.entries(files)) {
    const target = join(folder, path);
    mkdirSync(dirname(target), { recursive: true });
    if (typeof content === 'object' && 'symlink' in content) symlinkSync(content.symlink, target);
    else writeFileSync(target, content);
  }
}

interface HookGlobals {
  beforeEach?: (body: () => void) => void;
  afterEach?: (body: () => void) => void;
}

/** The runner's per-test hooks; the fixtures need them. */
function perTest(create: () => void, remove: () => void, what: string): void {
  const globals = globalThis as HookGlobals;
  if (!globals.beforeEach || !globals.afterEach) throw new Error(`${what} needs global beforeEach and afterEach (run it under mocha or a compatible runner)`);
  globals.beforeEach(create);
  globals.afterEach(remove);
}

/** A workspace created before each test of the calling `describe` and removed after it. */
export interface WorkspaceFixture {
  /** The current test's workspace; read it inside a test or hook, never at declaration time. */
  readonly path: string;
}

/** Declares a fresh temporary workspace per test, holding `files`. */
export function useWorkspace(files: FileFixtures = {}): WorkspaceFixture {
  let path: string | undefined;
  perTest(
    () => {
      path = temporaryFolder('agentctl-kit-workspace-');
      writeFiles(path, files);
    },
    () => {
      if (path) rmSync(path, { recursive: true, force: true });
      path = undefined;
    },
    'useWorkspace',
  );
  return {
    get path() {
      if (!path) throw new Error('the workspace exists only while a test runs');
      return path;
    },
  };
}

/** A database location created before each test of the calling `describe` and removed after it. */
export interface DatabaseFixture {
  /** The database file (not created until something opens it), e.g. for `--db` or `ActionCase.database`. */
  readonly path: string;
  /** Its folder, where the artifact store goes too. */
  readonly folder: string;
}

/** Declares a fresh temporary folder with a database path per test. */
export function useDatabase(): DatabaseFixture {
  let folder: string | undefined;
  perTest(
    () => void (folder = temporaryFolder('agentctl-kit-state-')),
    () => {
      if (folder) rmSync(folder, { recursive: true, force: true });
      folder = undefined;
    },
    'useDatabase',
  );
  const current = () => {
    if (!folder) throw new Error('the database folder exists only while a test runs');
    return folder;
  };
  return {
    get folder() {
      return current();
    },
    get path() {
      return join(current(), 'runtime.db');
    },
  };
}
