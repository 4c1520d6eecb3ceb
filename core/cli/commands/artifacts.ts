// `artifacts list|export|verify`: the blobs tasks wrote, read from the database and the store beside it.
import type { CommandModule } from 'yargs';
import { AgentctlError, diagnostic } from '../../../sdk/index.js';
import { ArtifactStore, blobProblem, exportBytes, parseDigest, type BlobCheck } from '../../store/artifacts.js';
import { Store, type Row } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit, formatDiagnostics, neutralize, palette } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';

interface ListArgs extends GlobalArgs {
  db?: string;
  run?: string;
}

interface ExportArgs extends GlobalArgs {
  db?: string;
  digest: string;
  destination: string;
  force: boolean;
}

interface VerifyArgs extends GlobalArgs {
  db?: string;
  digest?: string;
  all: boolean;
}

const storeDbOption = dbOption('SQLite database file (the store is artifacts/ beside it)');

/** Opens the database read-only for `body`: a read-only database can still be listed, exported and verified. */
async function withStore<T>(db: string | undefined, body: (store: Store, blobs: ArtifactStore) => Promise<T>): Promise<T> {
  const path = databasePath(db);
  const store = Store.open(path, { create: false, readonly: true });
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

function recorded(store: Store, digest: string): Row {
  const row = store.artifactRow(digest);
  if (!row) throw new AgentctlError('AGENTCTL_E_ARTIFACT_NOT_FOUND', `no artifact ${digest} is recorded in this database`, { help: 'list digests with `agentctl artifacts list`' });
  return row;
}

const list: CommandModule<GlobalArgs, ListArgs> = {
  command: 'list',
  describe: 'List stored artifacts with the runs, tasks and paths that refer to them',
  builder: (yargs) => yargs.option('db', storeDbOption).option('run', { type: 'string', describe: "only this run's artifacts and references" }) as never,
  handler: handler<ListArgs>(async (argv, output) =>
    withStore(argv.db, async (store) => {
      if (argv.run !== undefined && !store.runRow(argv.run)) {
        throw new AgentctlError('AGENTCTL_E_RUN_NOT_FOUND', `run ${argv.run} does not exist in this database`, { help: 'list runs with `agentctl runs list`' });
      }
      const { blobs, references } = store.artifactRows(argv.run);
      const artifacts = blobs.map((blob) => ({
        digest: String(blob.digest),
        size: Number(blob.size),
        createdAt: String(blob.created_at),
        references: references.filter((row) => row.digest === blob.digest).map((row) => ({ runId: String(row.run_id), taskId: String(row.task_id), path: String(row.path) })),
      }));
      emit(output, 'ArtifactList', { artifacts }, () =>
        artifacts
          .flatMap((artifact) => [`${artifact.digest}  ${artifact.size} bytes`, ...artifact.references.map((ref) => `  ${ref.runId}  ${ref.taskId}  ${neutralize(ref.path)}`)])
          .join('\n') || 'no artifacts',
      );
      return 0;
    }),
  ),
};

const exportCommand: CommandModule<GlobalArgs, ExportArgs> = {
  command: 'export <digest> <destination>',
  describe: "Write an artifact's bytes to a file (atomically; an existing file is kept unless --force)",
  builder: (yargs) =>
    yargs
      .positional('digest', { type: 'string', demandOption: true, describe: 'sha256:<64 hex>, or the 64 hex digits' })
      .positional('destination', { type: 'string', demandOption: true, describe: 'the file to write' })
      .option('force', { type: 'boolean', default: false, describe: 'replace the destination if it exists' })
      .option('db', storeDbOption) as never,
  handler: handler<ExportArgs>(async (argv, output) =>
    withStore(argv.db, async (store, blobs) => {
      const digest = digestArgument(argv.digest);
      const size = Number(recorded(store, digest).size);
      // The bytes are re-hashed before they leave the store: a damaged blob is never exported.
      const bytes = await blobs.read(digest, size);
      await exportBytes(argv.destination, bytes, argv.force);
      emit(output, 'ArtifactExport', { digest, size, destination: argv.destination }, () => `exported ${digest} (${size} bytes) to ${neutralize(argv.destination)}`);
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
    withStore(argv.db, async (store, blobs) => {
      if (argv.digest !== undefined && argv.all) throw new AgentctlError('AGENTCTL_E_USAGE', 'give a digest or --all, not both');
      const rows = argv.digest === undefined ? store.artifactRows().blobs : [recorded(store, digestArgument(argv.digest))];
      const checks: BlobCheck[] = [];
      for (const row of rows) checks.push(await blobs.check(String(row.digest), Number(row.size)));
      const problems = checks.filter((check) => check.status !== 'ok');
      const diagnostics = problems.map((check) => {
        const error = blobProblem(check);
        return diagnostic('AGENTCTL_E_ARTIFACT_CORRUPT', { message: error.message, help: error.diagnostics[0]!.help! });
      });
      const data = { checked: checks.length, ok: checks.length - problems.length, blobs: checks.map((check) => ({ digest: check.digest, path: check.path, status: check.status, ...(check.found ? { found: check.found } : {}), ...(check.reason && check.status !== 'ok' ? { reason: check.reason } : {}) })) };
      emit(output, 'ArtifactVerification', data, () => checks.map((check) => `${check.status.padEnd(10)} ${check.digest}`).join('\n') || 'no artifacts', { ok: problems.length === 0, diagnostics });
      if (problems.length === 0) return 0;
      const failure = new AgentctlError('AGENTCTL_E_ARTIFACT_CORRUPT', `${problems.length} of ${checks.length} blobs failed verification`, { diagnostics });
      if (output.mode === 'human') process.stderr.write(formatDiagnostics(failure, palette(output.color)));
      return failure.exitCode;
    }),
  ),
};

export const artifactsCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'artifacts',
  describe: 'Files tasks wrote, kept by content digest beside the database',
  builder: (yargs) => yargs.command(list).command(exportCommand).command(verify).demandCommand(1, 'name an artifacts subcommand: list, export, verify') as never,
  handler: () => undefined,
};
