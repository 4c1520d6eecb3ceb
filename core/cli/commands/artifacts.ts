// `artifacts list|inspect|verify|export|gc`: the blobs tasks wrote, read from the database and the store beside it.
import type { CommandModule } from 'yargs';
import { AgentctlError, diagnostic } from '@agentctl/sdk';
import { ArtifactStore, blobProblem, exportBytes, parseDigest } from '../../store/artifacts.js';
import type { BlobRecord, ReferenceRecord } from '../../store/maintenance.js';
import { Store } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit, neutralize } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';
import { artifactGcCommand } from './gc.js';

interface ListArgs extends GlobalArgs {
  db?: string;
  run?: string;
  task?: string;
}

interface DigestArgs extends GlobalArgs {
  db?: string;
  digest: string;
}

interface ExportArgs extends DigestArgs {
  destination: string;
  overwrite: boolean;
}

interface VerifyArgs extends GlobalArgs {
  db?: string;
  digest?: string;
  all: boolean;
}

export const storeDbOption = dbOption('SQLite database file (the store is artifacts/ beside it)');

/** Opens the database read-only for `body`: a read-only database can still be listed, inspected, exported and verified. */
async function withStore<T>(argv: { db?: string; stateKeys?: GlobalArgs['stateKeys'] }, body: (store: Store, blobs: ArtifactStore) => Promise<T>): Promise<T> {
  const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
  try {
    return await body(store, ArtifactStore.beside(store.path));
  } finally {
    store.close();
  }
}

function digestArgument(text: string): string {
  const digest = parseDigest(text);
  if (!digest) throw new AgentctlError('AGENTCTL_E_USAGE', `"${text}" is not a digest: expected sha256: followed by 64 hex digits`, { help: 'list digests with `agentctl artifacts list`' });
  return digest;
}

function recorded(store: Store, digest: string): BlobRecord {
  const blob = store.maintenance.blob(digest);
  if (!blob) throw new AgentctlError('AGENTCTL_E_ARTIFACT_NOT_FOUND', `no artifact ${digest} is recorded in this database`, { help: 'list digests with `agentctl artifacts list`' });
  return blob;
}

/** agentctl's blob-first view: each blob the references point at (every blob without a filter), with its references. */
function summaries(blobs: readonly BlobRecord[], references: readonly ReferenceRecord[], filtered: boolean) {
  const selected = filtered ? blobs.filter((blob) => references.some((reference) => reference.digest === blob.digest)) : blobs;
  return selected.map((blob) => ({
    digest: blob.digest,
    size: blob.sizeBytes,
    createdAt: blob.createdAt,
    references: references.filter((reference) => reference.digest === blob.digest).map((reference) => ({ runId: reference.runId, taskId: reference.taskId, path: reference.logicalPath })),
  }));
}

const list: CommandModule<GlobalArgs, ListArgs> = {
  command: 'list',
  describe: 'List stored artifacts with the runs, tasks and paths that refer to them',
  builder: (yargs) =>
    yargs
      .option('db', storeDbOption)
      .option('run', { type: 'string', describe: "only this run's references" })
      .option('task', { type: 'string', implies: 'run', describe: "only this task's references (with --run)" }) as never,
  handler: handler<ListArgs>(async (argv, output) =>
    withStore(argv, async (store) => {
      if (argv.run !== undefined) store.existingRun(argv.run);
      const references = store.maintenance.references({ ...(argv.run !== undefined ? { runId: argv.run } : {}), ...(argv.task !== undefined ? { taskId: argv.task } : {}) });
      const blobs = store.maintenance.blobs();
      const artifacts = summaries(blobs, references, argv.run !== undefined);
      emit(output, 'ArtifactList', { references, blobs, artifacts }, () =>
        artifacts
          .flatMap((artifact) => [`${artifact.digest}  ${artifact.size} bytes`, ...artifact.references.map((ref) => `  ${ref.runId}  ${ref.taskId}  ${neutralize(ref.path)}`)])
          .join('\n') || 'no artifacts',
      );
      return 0;
    }),
  ),
};

const inspect: CommandModule<GlobalArgs, DigestArgs> = {
  command: 'inspect <digest>',
  describe: 'Show one stored blob and every task reference to it',
  builder: (yargs) => yargs.positional('digest', { type: 'string', demandOption: true, describe: 'sha256:<64 hex>, or the 64 hex digits' }).option('db', storeDbOption) as never,
  handler: handler<DigestArgs>(async (argv, output) =>
    withStore(argv, async (store) => {
      const blob = recorded(store, digestArgument(argv.digest));
      const references = store.maintenance.references({ digest: blob.digest });
      emit(output, 'ArtifactInspection', { blob, references }, () =>
        [`${blob.digest}: ${blob.sizeBytes} bytes, ${references.length} reference(s)`, ...references.map((ref) => `  ${ref.runId}  ${ref.taskId}  ${neutralize(ref.logicalPath)}`)].join('\n'),
      );
      return 0;
    }),
  ),
};

const exportCommand: CommandModule<GlobalArgs, ExportArgs> = {
  command: 'export <digest> <destination>',
  describe: "Write an artifact's bytes to a file (atomically; an existing file is kept unless --overwrite)",
  builder: (yargs) =>
    yargs
      .positional('digest', { type: 'string', demandOption: true, describe: 'sha256:<64 hex>, or the 64 hex digits' })
      .positional('destination', { type: 'string', demandOption: true, describe: 'the file to write' })
      .option('overwrite', { type: 'boolean', default: false, alias: 'force', describe: 'replace the destination if it exists' })
      .option('db', storeDbOption) as never,
  handler: handler<ExportArgs>(async (argv, output) =>
    withStore(argv, async (store, blobs) => {
      const blob = recorded(store, digestArgument(argv.digest));
      // The bytes are re-hashed before they leave the store: a damaged blob is never exported.
      const bytes = await blobs.read(blob.digest, blob.sizeBytes);
      await exportBytes(argv.destination, bytes, argv.overwrite);
      const data = { digest: blob.digest, destination: argv.destination, overwritten: argv.overwrite, size: blob.sizeBytes };
      emit(output, 'ArtifactExport', data, () => `exported ${blob.digest} (${blob.sizeBytes} bytes) to ${neutralize(argv.destination)}`);
      return 0;
    }),
  ),
};

const verify: CommandModule<GlobalArgs, VerifyArgs> = {
  command: 'verify [digest]',
  describe: 'Re-hash stored blobs: exit 5 when one is missing or damaged',
  builder: (yargs) =>
    yargs
      .positional('digest', { type: 'string', describe: 'one artifact (default: every recorded artifact)' })
      .option('all', { type: 'boolean', default: false, describe: 'every recorded artifact (the default without a digest)' })
      .option('db', storeDbOption) as never,
  handler: handler<VerifyArgs>(async (argv, output) =>
    withStore(argv, async (store, blobs) => {
      if (argv.digest !== undefined && argv.all) throw new AgentctlError('AGENTCTL_E_USAGE', 'give a digest or --all, not both');
      const selected = argv.digest === undefined ? store.maintenance.blobs() : [recorded(store, digestArgument(argv.digest))];
      const checks = [];
      for (const blob of selected) checks.push({ blob, check: await blobs.check(blob.digest, blob.sizeBytes) });
      const problems = checks.filter(({ check }) => check.status !== 'ok').map(({ check }) => blobProblem(check));
      if (problems.length > 0) {
        const diagnostics = problems.map((error) => diagnostic('AGENTCTL_E_ARTIFACT_CORRUPT', { message: error.message, help: error.diagnostics[0]!.help! }));
        throw new AgentctlError('AGENTCTL_E_ARTIFACT_CORRUPT', `${problems.length} of ${checks.length} blobs failed verification`, { diagnostics });
      }
      const artifacts = checks.map(({ blob, check }) => ({ digest: blob.digest, sizeBytes: blob.sizeBytes, path: check.path, valid: true }));
      emit(output, 'ArtifactVerification', { valid: true, artifacts, checked: artifacts.length }, () => `verified ${artifacts.length} artifact blob(s)`);
      return 0;
    }),
  ),
};

export const artifactsCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'artifacts',
  describe: 'Files tasks wrote, kept by content digest beside the database',
  builder: (yargs) =>
    yargs
      .command(list)
      .command(inspect)
      .command(exportCommand)
      .command(verify)
      .command(artifactGcCommand)
      .demandCommand(1, 'name an artifacts subcommand: list, inspect, export, verify, gc') as never,
  handler: () => undefined,
};
