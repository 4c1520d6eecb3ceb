// `gc` (old finished runs, expired long-term memory, then the blobs nothing refers to any more) and `artifacts gc`
// (those blobs alone).
import type { CommandModule } from 'yargs';
import { AgentctlError, isAgentctlError, errorMessage } from '@agentctl/sdk';
import { ArtifactStore } from '../../store/artifacts.js';
import { collectArtifacts, type ArtifactGcReport } from '../../store/artifact-garbage.js';
import { Store } from '../../store/store.js';
import { SqliteMemoryStore } from '../../memory/sqlite-store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';

interface GcArgs extends GlobalArgs {
  db?: string;
  'older-than-days': number;
}

interface ArtifactGcArgs extends GcArgs {
  'dry-run': boolean;
}

const DAY_MS = 86_400_000;

const olderThanDays = {
  type: 'number',
  default: 30,
  describe: 'only what is older than this many days (0: everything that qualifies)',
} as const;

/** The cutoff instant of --older-than-days: a whole number of days, 0 or more. */
function cutoff(days: unknown): Date {
  if (typeof days !== 'number' || !Number.isSafeInteger(days) || days < 0) {
    throw new AgentctlError('AGENTCTL_E_USAGE', `--older-than-days must be a whole number of days, 0 or more, got ${String(days)}`, { help: 'e.g. --older-than-days 30 (the default)' });
  }
  return new Date(Date.now() - days * DAY_MS);
}

/** Removes the long-term memory entries of the state database that have expired; returns how many. */
function removeExpiredMemory(store: Store): number {
  const memory = SqliteMemoryStore.open({ databasePath: store.path, create: false, stateKeys: store.stateKeys });
  try {
    return memory.removeExpired(new Date().toISOString());
  } finally {
    memory.close();
  }
}

/** Runs the file work of a collection; a blob or folder that cannot be read or removed is exit 5. */
async function collectBlobs(store: Store, before: Date, dryRun: boolean): Promise<ArtifactGcReport> {
  const root = ArtifactStore.beside(store.path).root;
  try {
    return await collectArtifacts(store.maintenance, root, before, dryRun);
  } catch (error) {
    if (isAgentctlError(error)) throw error;
    throw new AgentctlError('AGENTCTL_E_ARTIFACT_GC', `cannot collect the artifact store ${root}: ${errorMessage(error)}`, { cause: error });
  }
}

export const artifactGcCommand: CommandModule<GlobalArgs, ArtifactGcArgs> = {
  command: 'gc',
  describe: 'Remove stored blobs no task refers to any more, and leftovers of interrupted writes',
  builder: (yargs) =>
    yargs
      .option('older-than-days', olderThanDays)
      .option('dry-run', { type: 'boolean', default: false, describe: 'count what would be removed, remove nothing' })
      .option('db', dbOption('SQLite database file (the store is artifacts/ beside it)')) as never,
  handler: handler<ArtifactGcArgs>(async (argv, output) => {
    const before = cutoff(argv['older-than-days']);
    const dryRun = argv['dry-run'];
    // A dry run changes nothing, not even an older schema: it reads the database as `inspect` does.
    const store = Store.open(databasePath(argv.db), { create: false, readonly: dryRun, stateKeys: argv.stateKeys });
    try {
      const report = await collectBlobs(store, before, dryRun);
      const count = dryRun ? report.considered : report.removed.length;
      const files = dryRun ? report.temporaryFilesConsidered : report.temporaryFilesRemoved;
      emit(output, 'ArtifactGarbageCollection', { dryRun, before: before.toISOString(), report }, () =>
        `${dryRun ? 'would remove' : 'removed'} ${count} artifact blob(s) and ${files} temporary file(s), ${report.reclaimedBytes} byte(s)`,
      );
      return 0;
    } finally {
      store.close();
    }
  }),
};

export const gcCommand: CommandModule<GlobalArgs, GcArgs> = {
  command: 'gc',
  describe: 'Remove finished runs older than --older-than-days (never a running or paused one), expired long-term memory, then blobs no run refers to',
  builder: (yargs) => yargs.option('older-than-days', olderThanDays).option('db', dbOption()) as never,
  handler: handler<GcArgs>(async (argv, output) => {
    const before = cutoff(argv['older-than-days']);
    const store = Store.open(databasePath(argv.db), { create: false, stateKeys: argv.stateKeys });
    try {
      const runs = store.maintenance.collectRuns(before.toISOString());
      const blobs = await collectBlobs(store, before, false);
      // Expired long-term memory goes whatever --older-than-days says: an expired entry is never read again.
      const memoryRemoved = removeExpiredMemory(store);
      const data = { removed: runs.removed.length + memoryRemoved, before: before.toISOString(), runsRemoved: runs.removed, memoryRemoved, runsKept: runs.kept, artifactsRemoved: blobs.removed, reclaimedBytes: blobs.reclaimedBytes };
      emit(output, 'GarbageCollection', data, () =>
        [`removed ${runs.removed.length} run(s), ${memoryRemoved} expired memory entr${memoryRemoved === 1 ? 'y' : 'ies'} and ${blobs.removed.length} artifact blob(s) (${blobs.reclaimedBytes} bytes)`, ...(runs.kept.length ? [`kept ${runs.kept.length} old run(s) a kept run refers to`] : [])].join('\n'),
      );
      return 0;
    } finally {
      store.close();
    }
  }),
};
