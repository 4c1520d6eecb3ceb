// Finds and reads the project config with cosmiconfig: from a start folder upward to the project root (the first
// folder holding a package.json) or, without one, to the filesystem root; or one file named by --config.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve } from 'node:path';
import { AgentctlError, diagnostic, errorMessage, isAgentctlError } from '../../sdk/index.js';
import { parseProjectConfig, type ProjectConfig } from './schema.js';

/** The places looked at in each folder, in this order; the first that holds a config wins. */
export const SEARCH_PLACES = [
  'package.json',
  '.agentctlrc',
  '.agentctlrc.json',
  '.agentctlrc.yaml',
  '.agentctlrc.yml',
  '.agentctlrc.js',
  '.agentctlrc.mjs',
  '.agentctlrc.cjs',
  'agentctl.config.ts',
  'agentctl.config.mjs',
  'agentctl.config.js',
  'agentctl.config.cjs',
  'agentctl.config.json',
  'agentctl.config.yaml',
] as const;

const JAVASCRIPT = new Set(['.js', '.mjs', '.cjs', '.ts']);

/** How the config was chosen: searched for, named by --config, or turned off by --no-config. */
export type ConfigChoice = { readonly search: string } | { readonly file: string } | { readonly disabled: true };

/** The config in effect, and where it came from. */
export interface LoadedConfig {
  /** The config file (absolute), or null when none was found or --no-config was given. */
  readonly file: string | null;
  /** The folder the search started from; null for --config and --no-config. */
  readonly searchedFrom: string | null;
  readonly config: ProjectConfig;
}

const EMPTY: ProjectConfig = Object.freeze({ packs: [] });

export async function loadProjectConfig(choice: ConfigChoice): Promise<LoadedConfig> {
  if ('disabled' in choice) return { file: null, searchedFrom: null, config: EMPTY };
  if ('search' in choice && !mayFindConfig(choice.search)) return { file: null, searchedFrom: resolve(choice.search), config: EMPTY };
  const { cosmiconfig, defaultLoaders } = await import('cosmiconfig');
  const explicit = 'file' in choice ? resolve(choice.file) : undefined;
  let result: { filepath: string; config: unknown; isEmpty?: boolean } | null;
  try {
    // 'project': a workflow's packs come from its own project, never from a per-user file that would make the same
    // workflow load other code on another machine ('global' would also read ~/.config/agentctl).
    const explorer = cosmiconfig('agentctl', {
      searchStrategy: 'project',
      searchPlaces: [...SEARCH_PLACES],
      loaders: { '.ts': typescriptLoader(defaultLoaders['.ts']) },
      ignoreEmptySearchPlaces: false,
      cache: false,
    });
    result = explicit ? await explorer.load(explicit) : await explorer.search('search' in choice ? choice.search : process.cwd());
  } catch (error) {
    throw unreadable(error, explicit);
  }
  if (result === null) {
    if (explicit) throw invalid(explicit, `${explicit} has no "agentctl" field`);
    return { file: null, searchedFrom: 'search' in choice ? resolve(choice.search) : null, config: EMPTY };
  }
  const file = result.filepath;
  if (result.isEmpty && JAVASCRIPT.has(extname(file))) throw invalid(file, `${file} has no default export; export the config object as the default export`);
  const config = result.isEmpty ? EMPTY : parseProjectConfig(result.config, file);
  return { file, searchedFrom: explicit ? null : resolve((choice as { search: string }).search), config };
}

/**
 * False only when cosmiconfig would surely find nothing: no search place on the way up to the project root (a
 * package.json counts only with an "agentctl" field) and no cosmiconfig settings in the current folder. Loading
 * cosmiconfig and its settings costs tens of milliseconds, which a project without a config does not pay.
 */
function mayFindConfig(start: string): boolean {
  const cwd = process.cwd();
  if (existsSync(join(cwd, '.config')) || existsSync(join(cwd, 'package.yaml')) || hasField(join(cwd, 'package.json'), 'cosmiconfig')) return true;
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (SEARCH_PLACES.some((place) => place !== 'package.json' && existsSync(join(dir, place)))) return true;
    if (hasField(join(dir, 'package.json'), 'agentctl')) return true;
    if (existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'package.yaml')) || dirname(dir) === dir) return false;
  }
}

/** Whether a JSON file has a top-level field; a file that does not parse says yes, so cosmiconfig reports it. */
function hasField(file: string, field: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  try {
    const data = JSON.parse(text) as unknown;
    return typeof data === 'object' && data !== null && Object.hasOwn(data, field);
  } catch {
    return true;
  }
}

/** The `.ts` loader runs only where the project can compile TypeScript: the typescript package, found from the file. */
function typescriptLoader(load: (file: string, content: string) => Promise<unknown> | unknown) {
  return async (file: string, content: string) => {
    try {
      createRequire(file).resolve('typescript');
    } catch {
      const message = `${file} is TypeScript, and the typescript package cannot be found from its folder`;
      throw new AgentctlError('AGENTCTL_E_CONFIG_TYPESCRIPT', message, { diagnostics: [diagnostic('AGENTCTL_E_CONFIG_TYPESCRIPT', { message, file })] });
    }
    return load(file, content);
  };
}

function invalid(file: string, message: string, location: { line?: number; column?: number } = {}): AgentctlError {
  return new AgentctlError('AGENTCTL_E_CONFIG_INVALID', message, { diagnostics: [diagnostic('AGENTCTL_E_CONFIG_INVALID', { message, file, ...location })] });
}

/** What cosmiconfig or a loader threw, as a diagnostic naming the file (and the line, for YAML). */
function unreadable(error: unknown, explicit: string | undefined): AgentctlError {
  if (isAgentctlError(error)) return error;
  const failure = error as NodeJS.ErrnoException & { filepath?: string; mark?: { line: number; column: number } };
  const file = failure.filepath ?? explicit ?? 'config';
  if (explicit && failure.code === 'ENOENT' && (failure.path === explicit || !failure.filepath)) {
    return new AgentctlError('AGENTCTL_E_FILE_NOT_FOUND', `config file ${explicit} does not exist`, { help: 'name an existing config file with --config, or leave --config out to search for one' });
  }
  // Loaders prefix their messages ("YAML Error in FILE:"); the file is named once, by the diagnostic.
  const lines = errorMessage(error).replace(/^(YAML|JSON|TypeScript) Error in [^\n]*:/, '').split('\n').map((line) => line.trim());
  // parse-json adds a code frame ("1 | {...", "  |  ^"): the reason is the first line that is not part of it.
  const reason = lines.find((line) => line !== '' && !/^(>\s*)?\d*\s*\|/.test(line)) ?? 'unreadable';
  const location = failure.mark ? { line: failure.mark.line + 1, column: failure.mark.column + 1 } : {};
  return invalid(file, `config file ${file} cannot be loaded: ${reason}`, location);
}
