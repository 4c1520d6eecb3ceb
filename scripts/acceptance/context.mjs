// What a journey works with: fresh host folders for the four mounts, agentctl run in a container against them, and its
// one document read strictly. A journey asserts with node:assert; the first failed assertion fails its step.
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MOUNTS, STATE_DB } from '../image/contract.mjs';
import { parseOneDocument } from './documents.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = join(ROOT, 'test', 'acceptance', 'container');

/** The user and group the image runs as: /state and /artifacts belong to them, as a CI job provisions them. */
const [IMAGE_UID, IMAGE_GID] = [65532, 65532];

/** `--db` as every command of the contract gives it, and JSON output without colour. */
export const DB = ['--db', STATE_DB];
export const JSON_OUTPUT = ['--output', 'json', '--color', 'never'];

/** Makes a tree readable (and its folders searchable) by everyone: the image's user reads /config and /workspace. */
function readableByAll(path) {
  const stat = statSync(path);
  chmodSync(path, stat.isDirectory() ? 0o755 : 0o644);
  if (stat.isDirectory()) for (const name of readdirSync(path)) readableByAll(join(path, name));
}

/**
 * Fresh host folders for one journey, below `root`: `config` and `workspace` hold copies of the fixture's `config/`
 * and `workspace/` (or are empty), `state` and `artifacts` are empty and belong to the image's user.
 * @param {string} root
 * @param {string} label a name for the folder
 * @param {string} [fixture] a folder of test/acceptance/container
 * @param {Record<string, string>} [sources] another folder to copy into a mount, by mount name
 */
export function freshMounts(root, label, fixture, sources = {}) {
  const base = mkdtempSync(join(root, `${label}-`));
  chmodSync(base, 0o755);
  const hosts = {};
  for (const { name } of MOUNTS) {
    const folder = join(base, name);
    const source = sources[name] ?? (fixture === undefined ? undefined : join(FIXTURES, fixture, name));
    if (source !== undefined && existsSync(source)) cpSync(source, folder, { recursive: true });
    else mkdirSync(folder);
    if (name === 'state' || name === 'artifacts') {
      chownSync(folder, IMAGE_UID, IMAGE_GID);
      chmodSync(folder, 0o750);
    } else {
      readableByAll(folder);
    }
    hosts[name] = folder;
  }
  return {
    base,
    hosts,
    /** The host path of a file below one mount (`file('artifacts', 'report.txt')`). */
    file: (mount, path) => join(hosts[mount], path),
    /** A file's text below one mount, or null when it does not exist. */
    text: (mount, path) => (existsSync(join(hosts[mount], path)) ? readFileSync(join(hosts[mount], path), 'utf8') : null),
  };
}

/**
 * Reads the document a finished agentctl command left: on stdout for a success, a pause (3) or a cancellation (130),
 * and then stderr holds nothing; on stderr, with stdout empty, for an `Error`.
 * @param {{ status: number | null, stdout: string, stderr: string }} result
 * @param {{ exit: number, kind: string, schemaFor: (kind: string) => any, command: string }} expected
 */
export function documentOf(result, { exit, kind, schemaFor, command }) {
  const shown = () => `\n  command: ${command}\n  stdout: ${result.stdout.slice(0, 1500)}\n  stderr: ${result.stderr.slice(0, 1500)}`;
  if (result.status !== exit) throw new Error(`exit ${result.status}, expected ${exit}${shown()}`);
  try {
    if (kind === 'Error') {
      if (result.stdout !== '') throw new Error(`stdout is not empty beside an Error: ${JSON.stringify(result.stdout.slice(0, 600))}`);
      return parseOneDocument(result.stderr, { kind, schemaFor, stream: 'stderr' });
    }
    const document = parseOneDocument(result.stdout, { kind, schemaFor });
    if (result.stderr !== '') throw new Error(`stderr is not empty beside a ${kind} on stdout: ${JSON.stringify(result.stderr.slice(0, 600))}`);
    return document;
  } catch (error) {
    throw new Error(`${error.message}${shown()}`);
  }
}

/**
 * The journeys' handle on one engine: `cli` runs agentctl in a container of the image and returns its document.
 * @param {ReturnType<typeof import('./engine.mjs').imageRunner>} runner
 * @param {(kind: string) => any} schemaFor
 * @param {string} root the folder journeys make their mounts in
 */
export function journeyContext(runner, schemaFor, root) {
  return {
    engine: runner.engine,
    runner,
    schemaFor,
    shared: {},
    mounts: (fixture) => freshMounts(root, `${runner.engine}-${fixture}`, fixture),
    /**
     * agentctl ARGS in a container with the mounts `m`; asserts the exit code and returns the one document.
     * @param {ReturnType<typeof freshMounts>} m
     * @param {string[]} args
     * @param {{ exit?: number, kind: string, network?: string | null, env?: string[] }} expected
     */
    async cli(m, args, { exit = 0, kind, network = 'none', env = [] }) {
      const options = { hosts: m.hosts, args: [...args, ...JSON_OUTPUT], network, env };
      const result = await runner.run(options);
      return documentOf(result, { exit, kind, schemaFor, command: runner.commandLine(options).join(' ') });
    },
  };
}
