// The config and code packs a run started with, recorded in its plan (`recordedConfig` of plan_json), and loaded again
// by the verbs that continue a run (resume) or derive one from it (retry, repair, fork): a run continues with the code
// it started with, whatever folder the command is given in. A pack that would load differently now is refused before
// it is imported, unless --allow-pack-change asks for the packs as they are now.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { AgentctlError, diagnostic, type JsonValue } from '@agentctl/sdk';
import type { ConfigChoice } from '../config/discover.js';
import { loadProjectConfig } from '../config/discover.js';
import { label, type LoadedPack } from '../config/packs.js';
import type { PackEntry } from '../config/schema.js';
import { configChoice, type ConfigurableArgs } from '../config/settings.js';
import { codePackEntry, packRootOf } from '../config/code-lock.js';
import { integrityOf } from '../packs/code-digest.js';
import type { CodePackEntry } from '../compiler/packs/format.js';
import type { Row } from '../store/store.js';
import type { Composition, PackCheck } from './composition.js';

export interface RecordedConfig {
  /** The workflow's folder (absolute) when the run started: the recorded config is found from it. */
  readonly folder: string;
  /** The config file relative to `folder` (absolute where no relative path leads there), or null: none was used. */
  readonly file: string | null;
  /** Every code pack loaded, as agentctl.pack.lock lists it: name, version, hostRange, source and integrity. */
  readonly packs: readonly CodePackEntry[];
}

/** The options of resume, retry, repair and fork this module reads. */
export interface RestoreArgs extends ConfigurableArgs {
  locked?: boolean;
  'allow-pack-change'?: boolean;
}

/** The yargs definition of --allow-pack-change. */
export const allowPackChangeOption = {
  type: 'boolean',
  describe: 'continue with the code packs as they are now, even if they differ from the ones the run recorded',
} as const;

/** What a new run records: the config the composition loaded, relative to the workflow's folder, and its packs. */
export function recordConfig(composition: Composition, folder: string): RecordedConfig {
  const file = composition.loaded?.file ?? null;
  const relativeFile = file === null ? null : relative(folder, file);
  return {
    folder,
    file: relativeFile === null ? null : isAbsolute(relativeFile) ? relativeFile : relativeFile.split(sep).join('/'),
    packs: file === null ? [] : composition.packs.map((pack) => codePackEntry(pack, file)),
  };
}

/** The config a recorded run holds; undefined for a run of a version that recorded none. */
export function recordedConfigOf(row: Row): RecordedConfig | undefined {
  const plan = JSON.parse(String(row.plan_json)) as { recordedConfig?: RecordedConfig };
  const recorded = plan.recordedConfig;
  return recorded && typeof recorded.folder === 'string' && Array.isArray(recorded.packs) ? recorded : undefined;
}

/** The recorded config file (absolute), or null. */
export const recordedFile = (recorded: RecordedConfig): string | null => (recorded.file === null ? null : resolve(recorded.folder, recorded.file));

/**
 * Loads the config and packs for a verb that continues `row`: the run's recorded config (found from its recorded
 * workflow folder), unless --config or --no-config names another; a run that recorded none searches as before.
 * Refuses packs that differ from the recorded ones unless --allow-pack-change. Returns the recorded config, if any.
 */
export async function restoreRunConfig(composition: Composition, argv: RestoreArgs, row: Row): Promise<RecordedConfig | undefined> {
  const recorded = recordedConfigOf(row);
  const named = argv.config !== undefined;
  const file = recorded ? recordedFile(recorded) : null;
  // The recorded file was found by a search when the run started: it is checked again as a found one is.
  const choice: ConfigChoice = named || !recorded ? configChoice(argv) : file === null ? { disabled: true } : { file, checkOwner: true };
  const loaded = await loadProjectConfig(choice);
  const check = recorded && !argv['allow-pack-change'] ? recordedPackCheck(recorded, loaded.file, String(row.id)) : undefined;
  await composition.loadPacks(loaded, { locked: argv.locked === true, verify: true }, check);
  return recorded;
}

/** Where a pack comes from, as the lock writes it, and its folder or file, from its entry and module alone. */
function packSource(entry: PackEntry, module: string, configFile: string): { source: CodePackEntry['source']; root: string } {
  // packRootOf reads only the entry and the module of a pack, which is all there is before it is imported.
  const root = packRootOf({ entry, module } as LoadedPack, configFile);
  return { root, source: entry.name !== undefined ? { npm: entry.name } : { path: relative(dirname(configFile), root).split(sep).join('/') } };
}

const sameSource = (a: CodePackEntry['source'], b: CodePackEntry['source']) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The check of the packs that would load now against the run's: before each import, that the run loaded a pack from
 * the same source with the same files; after loading, the same name and version, and no recorded pack missing.
 */
function recordedPackCheck(recorded: RecordedConfig, configFile: string | null, runId: string): PackCheck {
  const seen = new Set<CodePackEntry>();
  const changed = (pack: string, message: string): never => {
    const text = `${message}; run ${runId} continues only with the code it started with`;
    throw new AgentctlError('AGENTCTL_E_RUN_PACK_CHANGED', text, {
      diagnostics: [diagnostic('AGENTCTL_E_RUN_PACK_CHANGED', { message: text, plugin: pack, ...(configFile ? { file: configFile } : {}), help: 'restore the pack the run used, or pass --allow-pack-change to continue with the packs as they are now' })],
    });
  };
  return {
    beforeImport(entry: PackEntry, module: string): void {
      const { source, root } = packSource(entry, module, configFile!);
      const then = recorded.packs.find((candidate) => !seen.has(candidate) && sameSource(candidate.source, source));
      if (!then) changed(label(entry), `code pack ${label(entry)} (${entry.at} of ${configFile}) was not loaded by run ${runId}`);
      const integrity = integrityOf(root);
      if (then!.integrity !== integrity) changed(then!.name, `code pack ${then!.name} changed since run ${runId} started: its files have the digest ${integrity}, the run recorded ${then!.integrity}; it was not loaded`);
      seen.add(then!);
    },
    afterLoad(packs: readonly LoadedPack[]): void {
      for (const pack of packs) {
        const { source } = packSource(pack.entry, pack.module, configFile!);
        const then = [...seen].find((candidate) => sameSource(candidate.source, source))!;
        if (then.name !== pack.plugin.name || then.version !== pack.plugin.version) {
          changed(then.name, `code pack ${then.name}@${then.version} of run ${runId} is ${pack.plugin.name}@${pack.plugin.version} now`);
        }
      }
      const gone = recorded.packs.filter((entry) => !seen.has(entry));
      if (gone.length > 0) changed(gone[0]!.name, `code pack ${gone.map((entry) => entry.name).join(', ')} of run ${runId} ${configFile ? `is not in ${configFile} now` : 'is not loaded now: no config is used'}`);
    },
  };
}

/** `recordedConfig` for the plan a run stores. */
export const asJson = (recorded: RecordedConfig): JsonValue => recorded as unknown as JsonValue;
