// The settings a command runs with, each with where it came from: a flag on the command line, the config file, or
// agentctl's default. A flag always wins; the config file only fills what the command line left out.
import { dirname, resolve } from 'node:path';
import { AgentctlError } from '@agentctl/sdk';
import { STDIN_ARGUMENT } from '../compiler/source.js';
import { loadProjectConfig, type ConfigChoice, type LoadedConfig, type LoadOptions } from './discover.js';
import type { PackEntry } from './schema.js';

/** The ledger's location when neither --db nor the project config names one (relative to the current folder). */
export const DEFAULT_DB = '.agentctl/runtime.db';

/** `flag`, `default`, or the config file's path. */
export type Origin = string;

export interface Setting<T> {
  readonly value: T;
  readonly source: Origin;
}

export interface ResolvedSettings {
  readonly loaded: LoadedConfig;
  readonly db: Setting<string>;
  readonly output: Setting<'human' | 'json' | 'jsonl'>;
  readonly color: Setting<'auto' | 'always' | 'never'>;
  readonly packs: Setting<readonly PackEntry[]>;
  /** Key id → the variable that holds that state key here (the config's `stateKeys`; none by default). */
  readonly stateKeys: Setting<Readonly<Record<string, string>>>;
}

/** The options this module reads and fills in; yargs gives them no defaults, so an absent flag is `undefined`. */
export interface ConfigurableArgs {
  file?: unknown;
  config?: string | false;
  db?: unknown;
  output?: 'human' | 'json' | 'jsonl';
  color?: 'auto' | 'always' | 'never';
  stateKeys?: Readonly<Record<string, string>>;
}

/** Which config applies: --no-config, --config FILE, or a search from the workflow's folder (else the current one). */
export function configChoice(argv: ConfigurableArgs): ConfigChoice {
  if (argv.config === false) return { disabled: true };
  if (typeof argv.config === 'string') {
    if (argv.config.trim() === '') throw new AgentctlError('AGENTCTL_E_USAGE', '--config needs a file path', { help: 'name the config file, or give --no-config to use none' });
    return { file: argv.config };
  }
  const workflow = typeof argv.file === 'string' && argv.file !== STDIN_ARGUMENT ? argv.file : undefined;
  return { search: workflow ? dirname(resolve(workflow)) : process.cwd() };
}

/** Loads the config for `argv` and fills the options the command line left out; returns every setting's origin. */
export async function applyProjectConfig(argv: ConfigurableArgs, options: LoadOptions = {}): Promise<ResolvedSettings> {
  const loaded = await loadProjectConfig(configChoice(argv), options);
  const { config, file } = loaded;
  const pick = <T>(flag: T | undefined, configured: T | undefined, fallback: T): Setting<T> =>
    flag !== undefined ? { value: flag, source: 'flag' } : configured !== undefined ? { value: configured, source: file! } : { value: fallback, source: 'default' };
  // A db path in the config is relative to the config file, like pack paths; on the command line, to the current folder.
  const configuredDb = config.db !== undefined && file ? resolve(dirname(file), config.db) : undefined;
  const settings: ResolvedSettings = {
    loaded,
    db: pick(argv.db === undefined ? undefined : String(argv.db), configuredDb, DEFAULT_DB),
    output: pick(argv.output, config.output, 'human'),
    color: pick(argv.color, config.color, 'auto'),
    packs: config.packs.length > 0 ? { value: config.packs, source: file! } : { value: [], source: 'default' },
    stateKeys: config.stateKeys ? { value: config.stateKeys, source: file! } : { value: {}, source: 'default' },
  };
  if (settings.db.source !== 'default') argv.db ??= settings.db.value;
  argv.output = settings.output.value;
  argv.color = settings.color.value;
  argv.stateKeys = settings.stateKeys.value;
  return settings;
}
