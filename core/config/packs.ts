// Loads the code packs a project config lists: resolves each from the config's folder, imports it, and checks its
// identity, host range, name and options before anything is registered. Each refusal has its own code, and its
// diagnostic names the config file and the entry (`packs[i]`).
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import semverSatisfies from 'semver/functions/satisfies.js';
import validVersion from 'semver/functions/valid.js';
import validRange from 'semver/ranges/valid.js';
import { AgentctlError, diagnostic, errorMessage, type AnyErrorCode, type Diagnostic, type PluginDefinition } from '@agentctl/sdk';
import { PLUGIN_NAME } from '../host.js';
import { useHostSdk } from '../packs/host-sdk.js';
import { HOST_VERSION } from '../version.js';
import type { LoadedConfig } from './discover.js';
import { issueTo, type PackEntry } from './schema.js';

/** A pack ready to register: its plugin, where it came from, and its options as its optionsSchema parsed them. */
export interface LoadedPack {
  readonly plugin: PluginDefinition;
  readonly source: 'npm' | 'path';
  readonly options: unknown;
  readonly entry: PackEntry;
  /** The module that was imported (absolute). */
  readonly module: string;
}

/** Loads every pack of the config in order; `taken` holds the names of the plugins registered before them. */
/** Called with each pack's resolved module before it is imported: the lock's integrity check, so a changed file never runs. */
export type BeforeImport = (entry: PackEntry, module: string) => void;

export async function loadPacks(loaded: LoadedConfig, taken: readonly string[], beforeImport?: BeforeImport): Promise<LoadedPack[]> {
  if (loaded.file === null || loaded.config.packs.length === 0) return [];
  const names = new Set(taken);
  const packs: LoadedPack[] = [];
  for (const entry of loaded.config.packs) {
    const pack = await loadPack(entry, loaded.file, beforeImport);
    if (names.has(pack.plugin.name)) {
      const builtin = taken.includes(pack.plugin.name);
      refuse('AGENTCTL_E_PACK_DUPLICATE', loaded.file, entry, `pack ${pack.plugin.name} (${label(entry)}) has the name of ${builtin ? 'a builtin plugin' : 'another pack in the config'}`, pack.plugin.name);
    }
    names.add(pack.plugin.name);
    packs.push(pack);
  }
  return packs;
}

/** How an entry is written in the config, for messages. */
export const label = (entry: PackEntry): string => entry.name ?? entry.path!;

async function loadPack(entry: PackEntry, configFile: string, beforeImport?: BeforeImport): Promise<LoadedPack> {
  const module = entryModule(entry, dirname(configFile), configFile);
  beforeImport?.(entry, module);
  // The pack, and everything it imports, gets this agentctl's SDK whatever is installed around it.
  await useHostSdk();
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(module).href)) as Record<string, unknown>;
  } catch (error) {
    refuse('AGENTCTL_E_PACK_IMPORT', configFile, entry, `pack ${label(entry)} threw while it was imported from ${module}: ${errorMessage(error).split('\n')[0]}`);
  }
  const plugin = (exports.default ?? exports.plugin) as PluginDefinition | undefined;
  const problems = identityProblems(plugin);
  if (problems.length > 0) refuse('AGENTCTL_E_PACK_INVALID', configFile, entry, `pack ${label(entry)} (${module}) ${problems.join('; ')}`);
  const name = plugin!.name;
  if (!semverSatisfies(HOST_VERSION, plugin!.hostRange, { includePrerelease: true })) {
    refuse('AGENTCTL_E_PACK_HOST_RANGE', configFile, entry, `pack ${name}@${plugin!.version} supports agentctl ${plugin!.hostRange}; this is agentctl ${HOST_VERSION}`, name);
  }
  return { plugin: plugin!, source: entry.name !== undefined ? 'npm' : 'path', options: parseOptions(plugin!, entry, configFile), entry, module };
}

/** The file to import: a path as given (a folder by its package.json), an npm name from the nearest node_modules. */
function entryModule(entry: PackEntry, folder: string, configFile: string): string {
  if (entry.path !== undefined) {
    const target = resolve(folder, entry.path);
    if (!existsSync(target)) refuse('AGENTCTL_E_PACK_NOT_FOUND', configFile, entry, `pack path ${entry.path} does not exist (${target})`);
    return statSync(target).isDirectory() ? packageEntry(target, entry, configFile) : target;
  }
  // Node's resolution from the config's folder: node_modules/NAME in that folder, then in each parent.
  for (let dir = folder; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', entry.name!);
    if (existsSync(join(candidate, 'package.json'))) return packageEntry(candidate, entry, configFile);
    if (dirname(dir) === dir) break;
  }
  return refuse('AGENTCTL_E_PACK_NOT_FOUND', configFile, entry, `pack ${entry.name} is not installed: no node_modules/${entry.name} from ${folder} upward`);
}

/** A package folder's entry module for `import`: `exports` ("." with import, node or default), else `main`, else index.js. */
function packageEntry(folder: string, entry: PackEntry, configFile: string): string {
  const manifest = join(folder, 'package.json');
  if (!existsSync(manifest)) refuse('AGENTCTL_E_PACK_NOT_FOUND', configFile, entry, `pack ${label(entry)}: the folder ${folder} has no package.json`);
  let data: { exports?: unknown; main?: unknown };
  try {
    data = JSON.parse(readFileSync(manifest, 'utf8')) as typeof data;
  } catch (error) {
    return refuse('AGENTCTL_E_PACK_INVALID', configFile, entry, `pack ${label(entry)}: ${manifest} is not valid JSON: ${errorMessage(error)}`);
  }
  const target = exportsEntry(data.exports) ?? (typeof data.main === 'string' ? data.main : 'index.js');
  const file = resolve(folder, target);
  if (!existsSync(file)) refuse('AGENTCTL_E_PACK_NOT_FOUND', configFile, entry, `pack ${label(entry)}: its entry module ${target} does not exist (${file})`);
  // The lock pins the pack's folder: an entry elsewhere (`../shared/x.mjs`, or a link out) would run unpinned code.
  const inside = relative(realpathSync(folder), realpathSync(file));
  if (inside.startsWith('..') || isAbsolute(inside)) {
    refuse('AGENTCTL_E_PACK_ENTRY_OUTSIDE', configFile, entry, `pack ${label(entry)}: its entry module ${target} resolves outside the pack's folder ${folder} (to ${realpathSync(file)})`);
  }
  return file;
}

function exportsEntry(exports: unknown): string | undefined {
  if (exports === undefined || exports === null) return undefined;
  const root = typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((key) => key.startsWith('.')) ? (exports as Record<string, unknown>)['.'] : exports;
  const pick = (target: unknown): string | undefined => {
    if (typeof target === 'string') return target;
    if (Array.isArray(target)) return target.map(pick).find((found) => found !== undefined);
    if (target && typeof target === 'object') {
      for (const condition of ['import', 'node', 'default']) if (condition in target) return pick((target as Record<string, unknown>)[condition]);
    }
    return undefined;
  };
  return pick(root);
}

function identityProblems(plugin: PluginDefinition | undefined): string[] {
  if (typeof plugin !== 'object' || plugin === null) return ['exports no plugin definition: make the default export (or the export named `plugin`) the result of definePlugin'];
  const problems: string[] = [];
  if (typeof plugin.name !== 'string' || !PLUGIN_NAME.test(plugin.name)) problems.push('has a name that is not an npm-style package name');
  if (typeof plugin.version !== 'string' || !validVersion(plugin.version)) problems.push('has a version that is not a semver version');
  if (typeof plugin.hostRange !== 'string' || !validRange(plugin.hostRange)) problems.push('has a hostRange that is not a semver range');
  if (typeof plugin.setup !== 'function') problems.push('has no setup function');
  if (plugin.optionsSchema !== undefined && typeof (plugin.optionsSchema as { safeParse?: unknown })?.safeParse !== 'function') problems.push('has an optionsSchema that is not a zod schema');
  return problems;
}

/** The entry's options parsed by the pack's schema; a pack without a schema takes none. */
function parseOptions(plugin: PluginDefinition, entry: PackEntry, configFile: string): unknown {
  const at = `${entry.at}.options`;
  if (!plugin.optionsSchema) {
    if (entry.options !== undefined) refuse('AGENTCTL_E_PACK_OPTIONS', configFile, entry, `pack ${plugin.name} takes no options, and the config gives it some`, plugin.name, at);
    return undefined;
  }
  const parsed = plugin.optionsSchema.safeParse(entry.options);
  if (parsed.success) return parsed.data;
  const diagnostics: Diagnostic[] = [];
  for (const issue of parsed.error.issues) {
    issueTo((path, message) => diagnostics.push(packDiagnostic('AGENTCTL_E_PACK_OPTIONS', configFile, path, `pack ${plugin.name}: ${path}: ${message}`, plugin.name)), at, issue as never);
  }
  throw new AgentctlError('AGENTCTL_E_PACK_OPTIONS', diagnostics[0]!.message, { diagnostics });
}

function packDiagnostic(code: AnyErrorCode, file: string, path: string, message: string, plugin?: string): Diagnostic {
  return diagnostic(code, { message, file, path, ...(plugin ? { plugin } : {}) });
}

function refuse(code: AnyErrorCode, file: string, entry: PackEntry, message: string, plugin?: string, path = entry.at): never {
  throw new AgentctlError(code, message, { diagnostics: [packDiagnostic(code, file, path, message, plugin)] });
}
