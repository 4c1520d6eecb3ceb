// Shared by the state-encryption CLI tests: a workspace with a workflow that records a canary value everywhere, two
// state keys, the CLI bound to its database, and scans of every byte of the database's files.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'chai';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { outcome, unique, workflow } from './helpers.js';

export type Workspace = ReturnType<typeof workspace>;

const newKey = () => randomBytes(32).toString('base64');

/** Says the canary, then repeats it 3,000 times: a result of some 90 KB, stored on SQLite overflow pages. */
const LOUD = 'echo "said $1"; i=0; while [ $i -lt 3000 ]; do echo "$1"; i=$((i+1)); done';

/** A run that records the canary everywhere: its input, a task's input and output, a process's output, an approval. */
const canaryWorkflow = () =>
  workflow({
    inputs: { secret: { type: 'string' } },
    policy: { processAllowlist: ['sh'], writableRoots: ['.'] },
    actions: { keep: { kind: 'builtin.assign' }, say: { kind: 'builtin.shell.exec', command: '/bin/sh' } },
    tasks: [
      { id: 'keep', uses: 'action:keep', with: { value: '${{ inputs.secret }}' } },
      { id: 'say', uses: 'action:say', needs: ['keep'], with: { args: ['-c', LOUD, 'sh', '${{ inputs.secret }}'] } },
    ],
    outputs: { kept: '${{ tasks.keep.output.output.value }}' },
  });

/** Every file of the database (the file, its -wal and -shm) that exists, with its bytes. */
export function databaseFiles(path: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(dirname(path))) {
    const full = `${dirname(path)}/${name}`;
    if (full === path || full.startsWith(`${path}-`)) files.set(name, readFileSync(full));
  }
  return files;
}

/** Asserts no byte sequence of `needle` is anywhere in the database's files; returns the names scanned. */
export function expectNowhere(path: string, needle: string): string[] {
  const files = databaseFiles(path);
  for (const [name, bytes] of files) expect(bytes.includes(Buffer.from(needle)), `${needle} in ${name}`).to.equal(false);
  return [...files.keys()];
}

export const fileDigest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** One test's workspace (wf.yaml, the canary workflow; plain.yaml, one assign task), keys and canary. */
export interface EncryptionCase {
  readonly ws: Workspace;
  readonly keys: Record<string, string>;
  readonly canary: string;
}

export function encryptionCase(): EncryptionCase {
  return {
    ws: workspace({ 'wf.yaml': canaryWorkflow(), 'plain.yaml': workflow({ actions: { a: { kind: 'builtin.assign' } }, tasks: [{ id: 'a', uses: 'action:a', with: { value: 1 } }] }) }),
    keys: { STATE_KEY_ONE: newKey(), STATE_KEY_TWO: newKey() },
    canary: unique('CANARY'),
  };
}

/** The CLI on the current case's database, and the steps the tests share. */
export function encryptionTools(current: () => EncryptionCase) {
  const cli = (env: Record<string, string>, ...args: string[]) => runCli([...args, '--db', current().ws.db, '--output', 'json'], { cwd: current().ws.dir, env: baseEnv(env) });
  const withKeys = (...args: string[]) => cli(current().keys, ...args);
  const enable = (env = current().keys, ...extra: string[]) => cli(env, 'db', 'encryption', 'enable', '--key-id', 'prod-1', '--key-env', 'STATE_KEY_ONE', ...extra);
  const inventory = (env = current().keys) => outcome(cli(env, 'db', 'encryption', 'inventory'), 0).data;
  /** A paused run (its process waits for approval) and a finished one, both holding the canary. */
  function seed(env: Record<string, string> = {}): { paused: string; finished: string } {
    const { ws, canary } = current();
    const paused = outcome(cli(env, 'run', ws.file('wf.yaml'), '--input', `secret=${canary}`), 3).data.runId as string;
    const finished = outcome(cli(env, 'run', ws.file('plain.yaml')), 0).data.runId as string;
    // Some 70 KB of canary in one input: its rows spill onto overflow pages, which the rewrite frees.
    outcome(cli(env, 'run', ws.file('wf.yaml'), '--input', `secret=${canary.repeat(3000)}`), 3);
    return { paused, finished };
  }
  const noKeyLeaks = (text: string) => {
    for (const key of Object.values(current().keys)) expect(text).to.not.contain(key);
  };
  return { cli, withKeys, enable, inventory, seed, noKeyLeaks };
}
