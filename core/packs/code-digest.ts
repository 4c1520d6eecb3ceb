// What a code pack is made of, for the lock: every file under its folder (hidden ones included), and every package it
// can import that is installed for it: those in its own node_modules, and those its package.json depends on wherever
// Node finds them (a hoisted node_modules above it). Each installed package is pinned by the digest of its folder.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A package a code pack can import, as the lock pins it: its folder relative to the lock's folder. */
export interface InstalledPackage {
  readonly name: string;
  readonly version: string;
  readonly path: string;
  readonly integrity: string;
}

const posix = (path: string) => path.split(sep).join('/');
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** A folder holding a package.json, directly under a node_modules folder (or under a `@scope` in one). */
const isPackageFolder = (path: string) => existsSync(join(path, 'package.json')) && statSync(path).isDirectory();

/**
 * The files of a folder in path order, each with its SHA-256, following symbolic links (the bytes Node would load).
 * The packages of the folder's own `node_modules` are left out (they are pinned as installed packages), and so is a
 * folder reached twice through links. Anything else in node_modules (a loose file, `.bin`) is the folder's own file.
 */
export function folderFiles(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const seen = new Set<string>();
  const walk = (dir: string, topModules: boolean) => {
    const real = realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      const stat = statSync(path);
      if (stat.isDirectory()) {
        if (topModules && (isPackageFolder(path) || name.startsWith('@'))) {
          if (name.startsWith('@')) for (const scoped of readdirSync(path).sort()) if (!isPackageFolder(join(path, scoped))) walk(join(path, scoped), false);
          continue;
        }
        walk(path, dir === root && name === 'node_modules');
      } else if (stat.isFile()) files[posix(relative(root, path))] = `sha256:${sha256(readFileSync(path))}`;
    }
  };
  if (statSync(root).isFile()) return { [posix(root.split(sep).at(-1)!)]: `sha256:${sha256(readFileSync(root))}` };
  walk(root, false);
  return files;
}

/** The digest of a set of files: SHA-256 over `PATH NUL SHA256-HEX LF` in path order. */
export function filesIntegrity(files: Readonly<Record<string, string>>): string {
  const hash = createHash('sha256');
  for (const path of Object.keys(files).sort()) hash.update(`${path}\u0000${files[path]!.slice('sha256:'.length)}\n`);
  return `sha256:${hash.digest('hex')}`;
}

/** `sha256:` of a file's bytes, or of a folder's files as folderFiles lists them. */
export function integrityOf(root: string): string {
  if (statSync(root).isFile()) return `sha256:${sha256(readFileSync(root))}`;
  return filesIntegrity(folderFiles(root));
}

interface Manifest {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly dependencies?: Record<string, unknown>;
  readonly optionalDependencies?: Record<string, unknown>;
}

const readManifest = (folder: string): Manifest => {
  try {
    return JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
  } catch {
    return {};
  }
};

/** Node's lookup of a bare name from `folder`: node_modules/NAME there, then in each parent not itself node_modules. */
function resolvePackage(name: string, folder: string): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (!dir.endsWith(`${sep}node_modules`) && existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The package names agentctl's CLI has had: `@agentctl/cli`, and `agentctl` before it. */
const HOST_NAMES = new Set(['@agentctl/cli', 'agentctl']);

/** The folder of the agentctl that runs: the host a pack is loaded into, which the lock does not pin. */
const HOST_FOLDER = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!(existsSync(join(dir, 'package.json')) && HOST_NAMES.has(String(readManifest(dir).name))) && dirname(dir) !== dir) dir = dirname(dir);
  return realpathSync(dir);
})();

/** The packages in a folder's own node_modules (scoped ones included). */
function ownPackages(folder: string): string[] {
  const modules = join(folder, 'node_modules');
  if (!existsSync(modules)) return [];
  const found: string[] = [];
  for (const name of readdirSync(modules).sort()) {
    const path = join(modules, name);
    if (name.startsWith('@') && statSync(path).isDirectory()) found.push(...readdirSync(path).sort().map((scoped) => join(path, scoped)).filter(isPackageFolder));
    else if (isPackageFolder(path)) found.push(path);
  }
  return found;
}

/**
 * Every package installed for a pack folder, transitively: each one's own node_modules packages, and its
 * `dependencies` and `optionalDependencies` as Node resolves them. Peer dependencies are the project's (agentctl, zod)
 * and are not pinned, nor is the agentctl that runs. Paths are relative to `base` (the lock's folder), in path order.
 */
export function installedPackages(packFolder: string, base: string): InstalledPackage[] {
  const found = new Map<string, InstalledPackage>();
  const visit = (folder: string) => {
    const manifest = readManifest(folder);
    const declared = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }).sort();
    const targets = [...ownPackages(folder), ...declared.map((name) => resolvePackage(name, folder)).filter((path): path is string => path !== undefined)];
    for (const target of targets) {
      const real = realpathSync(target);
      if (real === realpathSync(packFolder) || real === HOST_FOLDER || found.has(real)) continue;
      const own = readManifest(target);
      found.set(real, { name: String(own.name ?? target.split(sep).at(-1)), version: String(own.version ?? ''), path: posix(relative(base, target)), integrity: integrityOf(target) });
      visit(target);
    }
  };
  if (statSync(packFolder).isDirectory()) visit(packFolder);
  return [...found.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/** Names what differs between the files a lock pins and those on disk: changed, added and removed paths. */
export function filesDiff(locked: Readonly<Record<string, string>>, actual: Readonly<Record<string, string>>): string[] {
  const changed = Object.keys(actual).filter((path) => locked[path] !== undefined && locked[path] !== actual[path]);
  const added = Object.keys(actual).filter((path) => locked[path] === undefined);
  const removed = Object.keys(locked).filter((path) => actual[path] === undefined);
  return [...changed.map((path) => `${path} changed`), ...added.map((path) => `${path} was added`), ...removed.map((path) => `${path} was removed`)];
}
