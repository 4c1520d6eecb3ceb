// Finds and reads the project config: from a start folder upward to the project root (the first folder holding a
// package.json) or, without one, to the filesystem root, never into a folder other users can write to; or one file
// named by --config. The file is read like a workflow (bounded, never a FIFO or device) and parsed by cosmiconfig's
// loaders; a JavaScript or TypeScript config is imported only for commands that run code (see `importCode`).
import { existsSync, statSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { AgentctlError, diagnostic, errorMessage, isAgentctlError } from '@agentctl/sdk';
import { readBoundedFile } from '../compiler/read.js';
import { parseProjectConfig, type ProjectConfig } from './schema.js';
import { checkOwner, refuseUnsafeFolder, writableByOthers } from './trust.js';

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

/** How the config was chosen: searched for, named by --config (or recorded by a run: `checkOwner`), or turned off by --no-config. */
export type ConfigChoice = { readonly search: string } | { readonly file: string; readonly checkOwner?: true } | { readonly disabled: true };

/** The config in effect, and where it came from. */
export interface LoadedConfig {
  /** The config file (absolute), or null when none was found or --no-config was given. */
  readonly file: string | null;
  /** The folder the search started from; null for --config and --no-config. */
  readonly searchedFrom: string | null;
  readonly config: ProjectConfig;
}

export interface LoadOptions {
  /**
   * False for commands that only read the database: a JavaScript or TypeScript config is then not imported (it is
   * as if there were none), so reading the ledger never runs a config's code.
   */
  readonly importCode?: boolean;
}

const EMPTY: ProjectConfig = Object.freeze({ packs: [] });

export async function loadProjectConfig(choice: ConfigChoice, options: LoadOptions = {}): Promise<LoadedConfig> {
  if ('disabled' in choice) return { file: null, searchedFrom: null, config: EMPTY };
  const explicit = 'file' in choice;
  const searchedFrom = explicit ? null : resolve(choice.search);
  const file = explicit ? resolve(choice.file) : findConfig(searchedFrom!);
  if (file === null) return { file: null, searchedFrom, config: EMPTY };
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch {
    throw new AgentctlError('AGENTCTL_E_FILE_NOT_FOUND', `config file ${file} does not exist`, { help: 'name an existing config file with --config, or leave --config out to search for one' });
  }
  // A file the user named is their choice; one the search found must be theirs (or root's).
  if (!explicit || ('checkOwner' in choice && choice.checkOwner)) checkOwner(file, stats);
  if (options.importCode === false && JAVASCRIPT.has(extname(file))) return { file: null, searchedFrom, config: EMPTY };
  const config = await loadFile(file);
  return { file, searchedFrom, config };
}

/** The config the search finds from `start`, or null; refuses one in a folder others can write to. */
function findConfig(start: string): string | null {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = configIn(dir);
    if (unsafe(dir)) {
      if (file !== undefined) refuseUnsafeFolder(dir, file);
      return null;
    }
    if (file !== undefined) return file;
    if (existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'package.yaml')) || dirname(dir) === dir) return null;
  }
}

function unsafe(dir: string): boolean {
  try {
    return writableByOthers(statSync(dir));
  } catch {
    // A folder that does not exist (the folder of a workflow file that does not exist) holds nothing.
    return false;
  }
}

/** The first search place of a folder that holds a config (a package.json counts only with an "agentctl" field). */
function configIn(dir: string): string | undefined {
  for (const place of SEARCH_PLACES) {
    const file = join(dir, place);
    if (existsSync(file) && (place !== 'package.json' || hasField(file, 'agentctl'))) return file;
  }
  return undefined;
}

/** Whether a JSON file has a top-level field; a file that does not parse says yes, so that loading it reports it. */
function hasField(file: string, field: string): boolean {
  let text: string;
  try {
    text = readBoundedFile(file, 'package.json');
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

/** Reads and parses one config file by its name: package.json's "agentctl" field, JSON, YAML, or a module. */
async function loadFile(file: string): Promise<ProjectConfig> {
  const text = readBoundedFile(file, 'config file');
  const extension = extname(file);
  const isCode = JAVASCRIPT.has(extension);
  if (!isCode && extension !== '' && !['.json', '.yaml', '.yml'].includes(extension)) {
    throw invalid(file, `config file ${file} has the extension ${extension}; a config is .json, .yaml, .yml, .js, .mjs, .cjs, .ts or has none (YAML)`);
  }
  let value: unknown;
  if (text.trim() !== '') {
    const { defaultLoaders } = await import('cosmiconfig');
    try {
      if (basename(file) === 'package.json') {
        const data = (await defaultLoaders['.json'](file, text)) as Record<string, unknown> | null;
        if (data === null || typeof data !== 'object' || !Object.hasOwn(data, 'agentctl')) throw invalid(file, `${file} has no "agentctl" field`);
        value = data.agentctl;
      } else if (extension === '.ts') value = await typescriptLoader(defaultLoaders['.ts'])(file, text);
      else value = await defaultLoaders[(extension === '' ? 'noExt' : extension) as keyof typeof defaultLoaders](file, text);
    } catch (error) {
      throw unreadable(error, file);
    }
  }
  if (value === undefined && isCode) throw invalid(file, `${file} has no default export; export the config object as the default export`);
  return value === undefined || value === null ? EMPTY : parseProjectConfig(value, file);
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

/** What a loader threw, as a diagnostic naming the file (and the line, for YAML). */
function unreadable(error: unknown, file: string): AgentctlError {
  if (isAgentctlError(error)) return error;
  const failure = error as NodeJS.ErrnoException & { mark?: { line: number; column: number } };
  // Loaders prefix their messages ("YAML Error in FILE:"); the file is named once, by the diagnostic.
  const lines = errorMessage(error).replace(/^(YAML|JSON|TypeScript) Error in [^\n]*:/, '').split('\n').map((line) => line.trim());
  // parse-json adds a code frame ("1 | {...", "  |  ^"): the reason is the first line that is not part of it.
  const reason = lines.find((line) => line !== '' && !/^(>\s*)?\d*\s*\|/.test(line)) ?? 'unreadable';
  const location = failure.mark ? { line: failure.mark.line + 1, column: failure.mark.column + 1 } : {};
  return invalid(file, `config file ${file} cannot be loaded: ${reason}`, location);
}
