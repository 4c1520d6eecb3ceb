// The documents of the commands that keep the state: artifacts, the database, garbage collection. The fields are the
// reference implementation's (`opensourceops/agentctl`), so its readers read these unchanged; the fields agentctl
// prints in addition are marked "agentctl:". Every object stays loose: a reader must accept fields it does not know.
import { z } from 'zod';

const count = z.number().int().nonnegative();
const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
/** An ISO 8601 / RFC 3339 instant in UTC. */
const instant = z.string();

/** One stored blob, as `artifacts list` and `artifacts inspect` print it. */
const ArtifactBlobRecord = z.looseObject({
  digest,
  algorithm: z.literal('sha256'),
  sizeBytes: count,
  /** The blob's path below the store folder: `sha256/<2 hex>/<64 hex>`. */
  relativePath: z.string(),
  createdAt: instant,
  /** agentctl records no verification time (verify reads the database read-only): always null. */
  lastVerifiedAt: instant.nullable(),
  /** How many task references (every run's) point at the blob. */
  referenceCount: count,
});

/** One file a task wrote: the run, task and path that refer to a blob. */
const ArtifactReference = z.looseObject({
  runId: z.string(),
  taskId: z.string(),
  /** The path as the task wrote it, relative to the workspace root. */
  logicalPath: z.string(),
  /** The path's last segment. */
  logicalName: z.string(),
  mediaType: z.string(),
  digest,
  /** For a task reused from an earlier run (retry, repair): that run and task; null otherwise. */
  sourceRunId: z.string().nullable(),
  sourceTaskId: z.string().nullable(),
  createdAt: instant,
});

/** agentctl: the blob-first view `artifacts list` printed before the reference's fields were added. */
const ArtifactSummary = z.looseObject({
  digest,
  size: count,
  createdAt: instant,
  references: z.array(z.looseObject({ runId: z.string(), taskId: z.string(), path: z.string() })),
});

/** One blob `artifacts verify` re-hashed: it is intact (a damaged one fails the command instead). */
const ArtifactCheck = z.looseObject({ digest, sizeBytes: count, path: z.string(), valid: z.boolean() });

/** What `artifacts gc` found and did. */
const ArtifactGcReport = z.looseObject({
  /** Unreferenced blobs old enough to be removed. */
  considered: count,
  /** The digests removed (none with --dry-run). */
  removed: z.array(digest),
  /** Bytes removed, or that would be with --dry-run. */
  reclaimedBytes: count,
  /** Leftover temporary files of interrupted writes, old enough to be removed. */
  temporaryFilesConsidered: count,
  temporaryFilesRemoved: count,
});

/** The reference's row counts, by its table names; a table agentctl does not have counts 0. */
const referenceCounts = {
  runs: count,
  tasks: count,
  effects: count,
  approvals: count,
  checkpoints: count,
  auditEvents: count,
  providerSessions: count,
  streamEvents: count,
  protocolSessions: count,
  protocolCalls: count,
  toolCalls: count,
  traceEvents: count,
  longTermMemory: count,
  artifactBlobs: count,
  artifactReferences: count,
  artifactIngests: count,
  runUpgrades: count,
  effectReconciliations: count,
  runBudgets: count,
  budgetReservations: count,
};

/** The `data` schema of each state command's kind, by kind. */
export const storeDocuments = {
  ArtifactList: z.looseObject({
    /** Every reference, or those of `--run` (and `--task`). */
    references: z.array(ArtifactReference),
    /** Every blob of the database, whatever the filter. */
    blobs: z.array(ArtifactBlobRecord),
    /** agentctl: the blobs the selected references point at, each with its references, oldest first. */
    artifacts: z.array(ArtifactSummary),
  }),
  ArtifactInspection: z.looseObject({ blob: ArtifactBlobRecord, references: z.array(ArtifactReference) }),
  ArtifactVerification: z.looseObject({
    valid: z.literal(true),
    artifacts: z.array(ArtifactCheck),
    /** agentctl: how many blobs were checked. */
    checked: count,
  }),
  ArtifactExport: z.looseObject({
    digest,
    destination: z.string(),
    /** Whether --overwrite was given. */
    overwritten: z.boolean(),
    /** agentctl: the bytes written. */
    size: count,
  }),
  ArtifactGarbageCollection: z.looseObject({ dryRun: z.boolean(), before: instant, report: ArtifactGcReport }),
  DatabaseStats: z.looseObject({
    schemaVersion: count,
    ...referenceCounts,
    /** agentctl: the database file, absolute. */
    path: z.string(),
    /** agentctl: every table of agentctl's schema → its row count. */
    tables: z.record(z.string(), count),
  }),
  DatabaseMigration: z.looseObject({
    /** The schema version after the command. */
    schemaVersion: count,
    migrated: z.literal(true),
    /** agentctl: the version before (0 for a database this command created). */
    previousSchemaVersion: count,
    /** agentctl: the migrations applied, oldest first; empty when the database was current. */
    migrationsApplied: z.array(z.looseObject({ version: count, description: z.string() })),
  }),
  EncryptionInventory: z.looseObject({
    /** Whether the database's state is encrypted (it records a key id and variable). */
    enabled: z.boolean(),
    keyId: z.string().nullable(),
    /** The name of the environment variable that holds the key (never the key). */
    keyReference: z.string().nullable(),
    protectedValues: count,
    encryptedValues: count,
    plaintextValues: count,
    invalidEnvelopes: count,
    /** agentctl: envelopes by the key id they name. */
    keysInUse: z.record(z.string(), count),
    /** agentctl: a rewrite committed and the values it replaced may still be in the file or its log. */
    scrubPending: z.boolean(),
    /** agentctl: the same counts for each protected column (`table.column`). */
    columns: z.array(z.looseObject({ column: z.string(), values: count, encrypted: count, plaintext: count, invalid: count })),
  }),
  EncryptionMigration: z.looseObject({
    operation: z.enum(['enable', 'rotate']),
    dryRun: z.boolean(),
    keyId: z.string(),
    keyReference: z.string(),
    valuesScanned: count,
    valuesRewritten: count,
    /** agentctl: the key id a rotation replaced (null for enable). */
    previousKeyId: z.string().nullable(),
    /** agentctl: whether the replaced values were removed from the file and its log (false for a dry run). */
    scrubbed: z.boolean(),
  }),
  GarbageCollection: z.looseObject({
    /** Records removed: runs (with everything they own) plus expired long-term memory entries. */
    removed: count,
    before: instant,
    /** agentctl: the runs removed. */
    runsRemoved: z.array(z.string()),
    /** agentctl: expired long-term memory entries removed. */
    memoryRemoved: count,
    /** agentctl: old terminal runs kept because a kept run still refers to them (a retry's, repair's or fork's source). */
    runsKept: z.array(z.string()),
    /** agentctl: the blobs no kept run refers to any more, removed with the runs. */
    artifactsRemoved: z.array(digest),
    reclaimedBytes: count,
  }),
  /** agentctl: what `runs import LEDGER` copied into `--db` (the reference has no such command). */
  RunImport: z.looseObject({
    /** The ledger imported from, absolute. */
    source: z.string(),
    /** Its id (metadata `ledger_id`), or null when it has none yet. */
    sourceLedgerId: z.string().nullable(),
    /** The id of the ledger imported into. */
    ledgerId: z.string(),
    /** Every run considered: the named ones (or all) and the runs they stand on, oldest first. */
    runs: z.array(
      z.looseObject({
        runId: z.string(),
        state: z.string(),
        workflowName: z.string(),
        /** sha256 (hex) of the recorded plan, as `inspect` prints it in `run.planDigest`. */
        planDigest: z.string(),
        /** The stage the run records (a staged or sharded run), or null. */
        stage: z.unknown().nullable(),
        /** false: the run was already there, identical, and was left alone. */
        imported: z.boolean(),
        /** true: an earlier imported copy was replaced whole by the source's newer one. */
        replaced: z.boolean(),
      }),
    ),
    /** How many runs were copied (new or replaced), and how many were already there, identical. */
    imported: count,
    unchanged: count,
    /** Blobs written into the target's artifact store (those it already held intact are not counted). */
    blobsCopied: count,
  }),
} satisfies Record<string, z.ZodType>;
