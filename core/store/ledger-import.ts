// Importing runs from another ledger of the same family: the named runs (default: all) with the runs they stand on,
// every row they own, their artifact rows and blobs, copied as stored (ids, envelopes and digests byte for byte) into
// the target in one transaction, with the provenance of each. Everything is checked before anything is written.
import { createHash } from 'node:crypto';
import { AgentctlError, type JsonValue } from '@agentctl/sdk';
import { ArtifactStore, type BlobReference } from './artifacts.js';
import { holdsBlob, readSourceBlob, writeBlob } from './blob-copy.js';
import { parser } from './json-column.js';
import { SourceLedger } from './ledger-source.js';
import type { RunTable } from './ledger-tables.js';
import type { RunImportLedger } from './run-imports.js';
import { recordedCipher, StateProtection } from './state-protection.js';
import type { Row, Store } from './store.js';

export interface ImportedRun {
  readonly runId: string;
  readonly state: string;
  readonly workflowName: string;
  /** sha256 (hex) of the run's recorded plan: `inspect`'s `run.planDigest`. */
  readonly planDigest: string;
  /** `runs.stage_json` parsed; null when the run records no stage (or the ledger has no such column). */
  readonly stage: JsonValue | null;
  /** false: the run was already there, identical. */
  readonly imported: boolean;
}

export interface ImportOptions {
  /** The runs to import (each with the runs it stands on); default: every run of the source. */
  readonly runIds?: readonly string[];
  /**
   * Chooses the runs to import (each with the runs it stands on) from the source's run rows as stored (oldest first;
   * identifiers, states, modes, times and stages are readable, protected columns stay sealed). Instead of `runIds`.
   */
  readonly select?: (runs: readonly Row[]) => readonly string[];
}

/** An import as the `runs import` command reports it. */
export interface LedgerImport {
  readonly source: string;
  readonly sourceLedgerId: string | null;
  readonly ledgerId: string;
  /** Each run considered, oldest first; `replaced`: an earlier imported copy was replaced by the source's newer one. */
  readonly runs: readonly (ImportedRun & { readonly replaced: boolean })[];
  /** Blobs written into the target's artifact store (those it already held intact are not counted). */
  readonly blobsCopied: number;
}

/** Imports runs of the ledger at `sourcePath` into `target` (see LedgerImport), or refuses and writes nothing. */
export function importLedger(target: Store, sourcePath: string, options: ImportOptions = {}): ImportedRun[] {
  return importRuns(target, sourcePath, options).runs.map(({ replaced: _replaced, ...run }) => run);
}

/**
 * The import itself, reported as `runs import` prints it. Order: open and check the source, gather the runs with
 * their lineage, check the family, decide per run (copy, replace, leave, refuse), refuse a target with a driven run
 * when anything is to be written, check and write the blobs, then commit every row in one transaction.
 */
export function importRuns(target: Store, sourcePath: string, options: ImportOptions = {}): LedgerImport {
  const source = SourceLedger.open(sourcePath, target.path);
  try {
    const imports = target.imports;
    const tables = imports.tables();
    checkTables(source, tables);
    const runIds = source.withLineage(options.select ? options.select(source.runIds().map((runId) => source.runRow(runId))) : (options.runIds ?? source.runIds()));
    const family = joinFamily(target, imports, source);
    const copy: string[] = [];
    const replace: string[] = [];
    const digests = new Map<string, string>();
    const origins = new Map<string, string | null>();
    const expected = new Map<string, string | null>();
    for (const runId of runIds) {
      const digest = source.digest(runId);
      const present = imports.storedRun(runId);
      const current = present ? imports.digest(runId, tables) : null;
      if (current === digest) continue;
      if (present) {
        checkReplaceable(imports, source, runId, present.updated_at, current!);
        replace.push(runId);
      }
      expected.set(runId, current);
      copy.push(runId);
      digests.set(runId, digest);
      origins.set(runId, source.originOf(runId) ?? source.ledgerId);
    }
    // An import that has something to write waits until no run of its target is driven; one that finds every run
    // already here, unchanged, writes nothing and needs no wait (a shard continuing its own run takes in its prepare
    // run again).
    const driven = copy.length > 0 ? imports.drivenRun() : undefined;
    if (driven) {
      throw new AgentctlError('AGENTCTL_E_RUN_LEASED', `run ${String(driven.id)} of ${target.path} is being driven by ${String(driven.lease_owner)}: an import waits until no run of its target is driven; nothing was imported`, {
        help: 'let the run finish, pause or be cancelled, then import again',
      });
    }
    const blobs = copyBlobs(source, target.path, copy);
    const ledgerId = imports.ledgerId();
    if (copy.length > 0) imports.write({ source, copy, replace, digests, origins, expected, ...family }, tables);
    const runs = runIds.map((runId) => ({ ...importedRun(imports, runId, copy.includes(runId)), replaced: replace.includes(runId) }));
    return { source: source.path, sourceLedgerId: source.ledgerId, ledgerId, runs, blobsCopied: blobs };
  } finally {
    source.close();
  }
}

/** Both ledgers must define the same run-scoped tables and columns (the same schema version makes them so). */
function checkTables(source: SourceLedger, tables: readonly RunTable[]): void {
  const shape = (list: readonly RunTable[]) => JSON.stringify(list.map((table) => [table.name, table.columns]));
  if (shape(source.tables) === shape(tables)) return;
  throw new AgentctlError('AGENTCTL_E_LEDGER_SCHEMA_MISMATCH', `${source.path} records runs in other tables or columns than the target, at the same schema version`, {
    help: 'import between ledgers written by the same agentctl version',
  });
}

const refuseFamily = (source: SourceLedger, target: Store, why: string, help: string) =>
  new AgentctlError('AGENTCTL_E_LEDGER_FAMILY', `${source.path} and ${target.path} are not one ledger family: ${why}; nothing was imported`, { help });

/**
 * The family settings the target takes from the source, or a refusal. The target takes the source's secret digest
 * key when it has recorded no digest yet (it has no key), or has no run; the source's state encryption when it has
 * no run and no long-term memory. Otherwise the keys and the encryption (key id, and the key itself) must be equal.
 */
function joinFamily(target: Store, imports: RunImportLedger, source: SourceLedger): { adoptDigestKey?: Buffer; adoptEncryption?: { settings: NonNullable<SourceLedger['family']['encryption']>; protection: StateProtection } } {
  const mine = imports.family();
  const theirs = source.family;
  const empty = !imports.hasRuns();
  const fresh = 'import into a new --db (it joins the source\'s family), or from a ledger made from the same prepare ledger';
  let adoptDigestKey: Buffer | undefined;
  if (theirs.digestKey && !(mine.digestKey && mine.digestKey.equals(theirs.digestKey))) {
    if (mine.digestKey && !empty) throw refuseFamily(source, target, 'their secret digest keys differ (metadata secret_digest_key), so their recorded secret digests cannot be compared', fresh);
    adoptDigestKey = theirs.digestKey;
  }
  const [a, b] = [theirs.encryption, mine.encryption];
  if (a && !b) {
    if (!empty || imports.hasMemoryEntries()) throw refuseFamily(source, target, `the source's state is encrypted (key id ${a.keyId}) and the target's is not`, fresh);
    // The target is sealed with the source's key from now on: the key must be here, and be that key.
    return { ...(adoptDigestKey ? { adoptDigestKey } : {}), adoptEncryption: { settings: a, protection: new StateProtection(recordedCipher(a, target.stateKeys)) } };
  }
  if (!a && b) throw refuseFamily(source, target, `the target's state is encrypted (key id ${b.keyId}) and the source's is not`, fresh);
  if (a && b && (a.keyId !== b.keyId || !imports.sharesKey(a))) {
    const why = a.keyId === b.keyId ? `both name key id ${a.keyId}, but with different keys` : `the source's state is encrypted with key id ${a.keyId}, the target's with ${b.keyId}`;
    throw refuseFamily(source, target, why, fresh);
  }
  return adoptDigestKey ? { adoptDigestKey } : {};
}

const conflict = (runId: string, why: string, help: string) =>
  new AgentctlError('AGENTCTL_E_IMPORT_CONFLICT', `run ${runId} is already in the target, and ${why}; nothing was imported`, { help });

/** A run already present is replaced only when an earlier import copied it, it is unchanged since, and the source's copy is newer. */
function checkReplaceable(imports: RunImportLedger, source: SourceLedger, runId: string, presentUpdatedAt: unknown, presentDigest: string): void {
  const record = imports.record(runId);
  if (!record) throw conflict(runId, 'the target drove it (it was not imported)', 'import the other runs with --run, or import into another --db');
  if (presentDigest !== record.contentDigest) {
    throw conflict(runId, `it changed there since it was imported from ${record.sourcePath}`, 'a run resumed or reconciled after its import is the target\'s own now; import the other runs with --run');
  }
  if (String(source.runRow(runId).updated_at) < String(presentUpdatedAt)) {
    throw conflict(runId, `the target's copy is newer than the one in ${source.path}`, 'import from the ledger that holds the newest copy of the run');
  }
}

/** Checks every blob the copied runs need and the target lacks, then writes them; returns how many were written. */
function copyBlobs(source: SourceLedger, targetPath: string, runIds: readonly string[]): number {
  const from = ArtifactStore.beside(source.path);
  const into = ArtifactStore.beside(targetPath);
  const needed: BlobReference[] = source
    .blobRows(runIds)
    .map((row) => ({ digest: String(row.digest), size: Number(row.size) }))
    .filter((blob) => !holdsBlob(into, blob));
  // Every blob is checked before the first is written: a damaged source leaves the target as it was.
  for (const blob of needed) readSourceBlob(from, blob);
  for (const blob of needed) writeBlob(into, readSourceBlob(from, blob), blob);
  return needed.length;
}

function importedRun(imports: RunImportLedger, runId: string, imported: boolean): ImportedRun {
  const run = imports.openedRun(runId)!;
  // A ledger without the column has no stage for any run.
  const stage = 'stage_json' in run ? parser(runId)('runs', 'stage_json', run) : null;
  return {
    runId,
    state: String(run.state),
    workflowName: String(run.workflow_name),
    planDigest: createHash('sha256').update(String(run.plan_json)).digest('hex'),
    stage,
    imported,
  };
}
