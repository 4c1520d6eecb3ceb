// The composition root: the one module that names the builtin plugins, the core's own task bodies (agent, flow) and
// its long-term memory store (sqlite, in the state database), and adds the packs of the project config. Every command
// builds its host here, and so does the test kit.
import { builtinPlugins } from '../../builtins/index.js';
import agentBodyPlugin from '../agents/plugin.js';
import flowBodyPlugin from '../flow/plugin.js';
import memorySqlitePlugin from '../memory/plugin.js';
import otelPlugin from '@agentctl/pack-otel';
import { AgentctlError, isAgentctlError, type PluginDefinition } from '@agentctl/sdk';
import type { LoadedConfig } from '../config/discover.js';
import { label, loadPacks, type BeforeImport, type LoadedPack } from '../config/packs.js';
import { issueTo } from '../config/schema.js';
import { codePackLock } from '../config/code-lock.js';
import type { Host } from '../host.js';
import { createHost, type HostOptions } from '../setup.js';

export interface CompositionOptions extends HostOptions {
  /** Plugins registered after the builtins and packs (embedding, tests), with source `local`. */
  readonly plugins?: readonly PluginDefinition[];
  /** Packs loaded from the project config, registered after the builtins with their source (`npm` or `path`). */
  readonly packs?: readonly LoadedPack[];
  /**
   * Register `plugins` as packs, the way the config's packs are (the test kit): their kinds must be named after them,
   * their refusals have pack codes, and `api.options` is what their optionsSchema makes of no options.
   */
  readonly pluginsAsPacks?: boolean;
  /** The project config's `telemetry` section and the file it is in: the options of the OpenTelemetry pack. */
  readonly telemetry?: { readonly section: unknown; readonly file: string };
}

/** How a command asks for its host: `observersOnly` for one that performs nothing (replay), which gets no action kind. */
export interface ComposeOptions extends HostOptions {
  /** Only the shipped plugins that observe a run and register no action kind (the OpenTelemetry pack). */
  readonly observersOnly?: boolean;
}

/**
 * The plugins agentctl ships: the builtins, the task bodies that live in core/ (they use the runner's internals), and
 * the OpenTelemetry pack (a package of its own, built on the public SDK only; off unless configured).
 */
const shippedPlugins: readonly PluginDefinition[] = [...builtinPlugins, agentBodyPlugin, flowBodyPlugin, memorySqlitePlugin, otelPlugin];

/** What a pack's optionsSchema makes of a config entry without options (undefined without a schema). */
const defaultOptions = (plugin: PluginDefinition): unknown => plugin.optionsSchema?.safeParse(undefined).data;

/** The host every command uses: the builtins, then the config's packs, then any extra plugins. */
export function composeHost(options: CompositionOptions = {}): Host {
  return createHost(
    [
      ...shippedPlugins.map((plugin) => ({ plugin, source: 'builtin', ...(plugin === otelPlugin ? { options: telemetryOptions(options.telemetry) } : {}) })),
      ...(options.packs ?? []).map(({ plugin, source, options: packOptions }) => ({ plugin, source, options: packOptions })),
      ...(options.plugins ?? []).map((plugin) => (options.pluginsAsPacks ? { plugin, source: 'path', options: defaultOptions(plugin) } : { plugin, source: 'local' })),
    ],
    options.configure ? { configure: options.configure } : {},
  );
}

/** A host of the shipped observers alone: a replay is traced like any run, and can still dispatch nothing. */
export function composeObservers(options: Pick<CompositionOptions, 'telemetry'> = {}): Host {
  return createHost([{ plugin: otelPlugin, source: 'builtin', options: telemetryOptions(options.telemetry) }]);
}

/** The config's `telemetry` section as the OpenTelemetry pack's options; a problem names the file and the field. */
function telemetryOptions(telemetry: CompositionOptions['telemetry']): unknown {
  const parsed = otelPlugin.optionsSchema!.safeParse(telemetry?.section);
  if (parsed.success) return parsed.data;
  const file = telemetry?.file ?? 'the project config';
  const problems: string[] = [];
  for (const issue of parsed.error.issues) issueTo((path, message) => problems.push(`${path}: ${message}`), 'telemetry', issue);
  throw new AgentctlError('AGENTCTL_E_CONFIG_INVALID', `${file}: ${problems.join('; ')}`, {
    diagnostics: problems.map((message) => ({ code: 'AGENTCTL_E_CONFIG_INVALID', severity: 'error' as const, message: `${file}: ${message}`, file, help: 'fix the telemetry section (docs/telemetry.md lists its fields)' })),
  });
}

/** A check of the config's packs beside the lock's: each pack before it is imported, and all of them once loaded. */
export interface PackCheck {
  readonly beforeImport: BeforeImport;
  readonly afterLoad: (packs: readonly LoadedPack[]) => void;
}

/** The config's code packs, as the CLI loaded them, and the config they came from. */
export type ProjectPacks = () => { readonly packs: readonly LoadedPack[]; readonly config: LoadedConfig | null };

/** How a command builds its host; the CLI entry binds the extra plugins and the packs once. */
export type Compose = (options?: ComposeOptions) => Host;

/** The CLI's composition: extra plugins given to `main`, and the packs of the config once they are loaded. */
export class Composition {
  #packs: readonly LoadedPack[] = [];
  #loaded: LoadedConfig | undefined;
  /** The host built when the packs were checked; reused by a command that needs no observers of its own. */
  #checked: Host | undefined;

  constructor(private readonly plugins: readonly PluginDefinition[] = []) {}

  /**
   * Imports and checks the config's packs, then registers them once, so that every refusal (a conflict, a kind not
   * named after its pack, a setup that throws) happens here: before the command opens a database, except for the
   * recovery commands, which first read the run to find the config it recorded (run-config.ts).
   */
  async loadPacks(loaded: LoadedConfig, lock: { readonly locked: boolean; readonly verify: boolean } = { locked: false, verify: true }, also?: PackCheck): Promise<void> {
    const taken = [...shippedPlugins.map((plugin) => plugin.name), ...this.plugins.map((plugin) => plugin.name)];
    // The lock beside the config pins each pack's files: checked before a pack is imported, and its identity after.
    const check = loaded.file !== null && lock.verify ? codePackLock(loaded.file, loaded.config.packs.length, lock.locked) : undefined;
    this.#loaded = loaded;
    this.#packs = await loadPacks(loaded, taken, (entry, module) => {
      check?.beforeImport(entry, module);
      also?.beforeImport(entry, module);
    });
    check?.afterLoad(this.#packs);
    also?.afterLoad(this.#packs);
    if (this.#packs.length === 0) return;
    try {
      this.#checked = this.compose();
    } catch (error) {
      throw locate(error, this.#packs, loaded.file!);
    }
  }

  get packs(): readonly LoadedPack[] {
    return this.#packs;
  }

  /** The config the packs were loaded from; undefined before `loadPacks`. */
  get loaded(): LoadedConfig | undefined {
    return this.#loaded;
  }

  readonly compose: Compose = ({ observersOnly, ...options } = {}) => {
    const config = this.#loaded;
    const telemetry = config?.config.telemetry !== undefined && config.file !== null ? { telemetry: { section: config.config.telemetry, file: config.file } } : {};
    if (observersOnly) return composeObservers(telemetry);
    if (this.#checked && !options.configure) return this.#checked;
    return composeHost({ ...options, plugins: this.plugins, packs: this.#packs, ...telemetry });
  };
}

/** A registration error about a pack names the config file and the pack's entry, like the load errors do. */
function locate(error: unknown, packs: readonly LoadedPack[], file: string): unknown {
  if (!isAgentctlError(error)) return error;
  error.diagnostics.forEach((item, index) => {
    const pack = packs.find((candidate) => candidate.plugin.name === item.plugin);
    if (pack && item.file === undefined) error.diagnostics[index] = { ...item, file, path: pack.entry.at, message: `${item.message} (pack ${label(pack.entry)} in ${file})` };
  });
  return error;
}

/** A Compose that always adds `plugins` after the builtins. */
export function composer(plugins: readonly PluginDefinition[] = []): Compose {
  return new Composition(plugins).compose;
}
