// Code packs in agentctl.pack.lock (beside the project config), under `codePacks`: each pack's name, version, host
// range, source, the SHA-256 of each of its files and of the packages installed for it (code-digest.ts). With a lock present, every command that loads packs checks
// them against it; `--locked` also refuses a config without a lock, or a pack the lock does not list.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { AgentctlError, diagnostic } from '@agentctl/sdk';
import type { LoadedPack } from './packs.js';
import type { PackEntry } from './schema.js';
import { filesDiff, filesIntegrity, folderFiles, installedPackages } from '../packs/code-digest.js';
import { LOCK_FILE, type CodePackEntry } from '../compiler/packs/format.js';
import { readLock } from '../compiler/packs/load.js';

/** What a loaded pack is made of: the file or folder a path entry names, or an npm package's folder. */
export function packRootOf(pack: LoadedPack, configFile: string): string {
  return pack.entry.path !== undefined ? resolve(dirname(configFile), pack.entry.path) : packageFolder(pack.module);
}

/** What the lock pins of a pack at `root` (a folder, or one file): its files, their digest, the packages installed for it. */
export function pinned(root: string, configFile: string): Pick<CodePackEntry, 'integrity' | 'files' | 'dependencies'> {
  const files = folderFiles(root);
  const dependencies = installedPackages(root, dirname(configFile));
  const integrity = statSync(root).isFile() ? Object.values(files)[0]! : filesIntegrity(files);
  return { integrity, files, ...(dependencies.length > 0 ? { dependencies } : {}) };
}

/** The lock entry of a loaded code pack; paths are relative to the config's folder. */
export function codePackEntry(pack: LoadedPack, configFile: string): CodePackEntry {
  const root = packRootOf(pack, configFile);
  const source = pack.entry.name !== undefined ? { npm: pack.entry.name } : { path: relative(dirname(configFile), root).split(sep).join('/') };
  return { name: pack.plugin.name, version: pack.plugin.version, hostRange: pack.plugin.hostRange, source, ...pinned(root, configFile) };
}

/** What differs between a pack on disk and its lock entry, each difference named; empty when they are equal. */
function differences(locked: CodePackEntry, actual: ReturnType<typeof pinned>): string[] {
  const found: string[] = [];
  if (actual.integrity !== locked.integrity) {
    const named = locked.files ? filesDiff(locked.files, actual.files!) : [];
    found.push(`${named.length > 0 ? `${named.join(', ')}; ` : ''}its files have the digest ${actual.integrity}, the lock pins ${locked.integrity}`);
  }
  const lockedDeps = new Map((locked.dependencies ?? []).map((dependency) => [dependency.path, dependency]));
  for (const dependency of actual.dependencies ?? []) {
    const before = lockedDeps.get(dependency.path);
    if (!before) found.push(`installed package ${dependency.name}@${dependency.version} (${dependency.path}) is not in the lock`);
    else if (before.integrity !== dependency.integrity) found.push(`installed package ${dependency.name} (${dependency.path}) changed: ${before.version === dependency.version ? '' : `version ${dependency.version}, the lock has ${before.version}; `}digest ${dependency.integrity}, the lock pins ${before.integrity}`);
    lockedDeps.delete(dependency.path);
  }
  for (const gone of lockedDeps.values()) found.push(`installed package ${gone.name} (${gone.path}) is gone`);
  return found;
}

const drift = (lockFile: string, message: string): never => {
  const text = `${message} (${LOCK_FILE} is not rewritten on drift)`;
  throw new AgentctlError('AGENTCTL_E_PACK_LOCK_MISMATCH', text, { diagnostics: [diagnostic('AGENTCTL_E_PACK_LOCK_MISMATCH', { message: text, file: lockFile, help: 'review the change, then run `agentctl packs lock` and commit the lock' })] });
};

/** The lock beside the config, as far as it speaks about code packs; undefined when there is nothing to check. */
function codeLock(configFile: string, locked: boolean, hasPacks: boolean): { file: string; entries: CodePackEntry[] } | undefined {
  const lockFile = join(dirname(configFile), LOCK_FILE);
  if (!existsSync(lockFile)) {
    if (locked && hasPacks) {
      const message = `${LOCK_FILE} is required by --locked and ${lockFile} does not exist`;
      throw new AgentctlError('AGENTCTL_E_PACK_LOCK_MISSING', message, { diagnostics: [diagnostic('AGENTCTL_E_PACK_LOCK_MISSING', { message, file: configFile, help: 'run `agentctl packs lock` and commit agentctl.pack.lock' })] });
    }
    return undefined;
  }
  const lock = readLock(lockFile);
  // A lock written for declarative packs only says nothing about code packs, unless --locked asks for it.
  if (lock.codePacks === undefined && !locked) return undefined;
  return { file: lockFile, entries: lock.codePacks ?? [] };
}

/**
 * The check of the config's code packs against the lock beside the config (always with `locked`), in two steps:
 * `beforeImport` compares each pack's files with the integrity the lock pins for its source, so a changed or unlisted
 * pack is refused before any of its code runs; `afterLoad` compares the imported identity (name, version, host range)
 * and refuses lock entries the config no longer lists.
 */
export function codePackLock(configFile: string, entryCount: number, locked: boolean) {
  const lock = codeLock(configFile, locked, entryCount > 0);
  const seen = new Set<string>();
  const sourceOf = (entry: PackEntry) => (entry.name !== undefined ? { npm: entry.name } : { path: relative(dirname(configFile), resolve(dirname(configFile), entry.path!)).split(sep).join('/') });
  const lockedFor = (entry: PackEntry) => lock!.entries.find((candidate) => JSON.stringify(candidate.source) === JSON.stringify(sourceOf(entry)));
  return {
    beforeImport(entry: PackEntry, module: string): void {
      if (!lock) return;
      const locked = lockedFor(entry);
      if (!locked) drift(lock.file, `code pack ${entry.name ?? entry.path} (${entry.at} of ${configFile}) is not in the lock`);
      const root = entry.path !== undefined ? resolve(dirname(configFile), entry.path) : packageFolder(module);
      const found = differences(locked!, pinned(root, configFile));
      if (found.length > 0) drift(lock.file, `code pack ${locked!.name} changed: ${found.join('; ')}; it was not loaded`);
      seen.add(locked!.name);
    },
    afterLoad(packs: readonly LoadedPack[]): void {
      if (!lock) return;
      for (const pack of packs) {
        const entry = lockedFor(pack.entry)!;
        if (entry.name !== pack.plugin.name) drift(lock.file, `the pack at ${JSON.stringify(entry.source)} is ${pack.plugin.name}, the lock has ${entry.name}`);
        for (const field of ['version', 'hostRange'] as const) {
          if (pack.plugin[field] !== entry[field]) drift(lock.file, `code pack ${pack.plugin.name}: ${field} is ${pack.plugin[field]}, the lock has ${entry[field]}`);
        }
      }
      const extra = lock.entries.filter((entry) => !seen.has(entry.name)).map((entry) => entry.name);
      if (extra.length > 0) drift(lock.file, `the lock lists code packs the config does not: ${extra.join(', ')}`);
    },
  };
}

const packageFolder = (module: string) => {
  let dir = dirname(module);
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
};
