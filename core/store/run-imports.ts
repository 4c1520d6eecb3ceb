// The target side of a run import: the ledger's own id, the provenance of the runs it imported (`run_imports`), its
// family (the secret digest key and state encryption) and the one transaction that copies runs in. What to copy and
// whether it may be copied is decided by ledger-import.ts; this part only reads and writes the target.
import { randomBytes } from 'node:crypto';
import { AgentctlError } from '@agentctl/sdk';
import { now, preparedOnce, type LedgerCore } from './ledger-core.js';
import type { EncryptionSettings, LedgerFamily, SourceLedger } from './ledger-source.js';
import { deleteSql, insertSql, ownedRowids, ownedRows, runDigest, runTables, type RunTable } from './ledger-tables.js';
import { liveness } from './liveness.js';
import type { Row } from './rows.js';
import { installWriteGuards, readKeyRecord, type StateProtection } from './state-protection.js';

/** Where an imported run came from (a `run_imports` row). */
export interface ImportRecord {
  readonly runId: string;
  readonly sourceLedgerId: string | null;
  readonly originLedgerId: string | null;
  readonly sourcePath: string;
  readonly contentDigest: string;
  readonly importedAt: string;
}

/** What one import writes, decided before the transaction. */
export interface ImportWrite {
  readonly source: SourceLedger;
  /** The runs to copy; those in `replace` are removed whole first. */
  readonly copy: readonly string[];
  readonly replace: readonly string[];
  /** Each copied run's digest and the ledger that drove it. */
  readonly digests: ReadonlyMap<string, string>;
  /** What the target held of each copied run when the import decided (its digest; null: nothing). */
  readonly expected: ReadonlyMap<string, string | null>;
  readonly origins: ReadonlyMap<string, string | null>;
  /** The family the target joins: set when the target takes the source's digest key or encryption settings. */
  readonly adoptDigestKey?: Buffer;
  readonly adoptEncryption?: { readonly settings: EncryptionSettings; readonly protection: StateProtection };
}

export class RunImportLedger {
  readonly #core: LedgerCore;
  readonly #statements;

  constructor(core: LedgerCore) {
    this.#core = core;
    this.#statements = preparedOnce(core.db, {
      ledgerId: `SELECT value FROM metadata WHERE key = 'ledger_id'`,
      // OR IGNORE: another process may have made it meanwhile; everyone then reads the one stored.
      createLedgerId: `INSERT OR IGNORE INTO metadata (key, value) VALUES ('ledger_id', ?)`,
      digestKey: `SELECT value FROM metadata WHERE key = 'secret_digest_key'`,
      setDigestKey: `INSERT INTO metadata (key, value) VALUES ('secret_digest_key', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      record: `SELECT * FROM run_imports WHERE run_id = ?`,
      insertRecord: `INSERT INTO run_imports (run_id, source_ledger_id, origin_ledger_id, source_path, content_digest, imported_at) VALUES (?, ?, ?, ?, ?, ?)`,
      deleteRecord: `DELETE FROM run_imports WHERE run_id = ?`,
      run: `SELECT * FROM runs WHERE id = ?`,
      runCount: `SELECT COUNT(*) FROM runs`,
      // A copy keeps its source's lease as recorded; only a run of this ledger can be driven here.
      leased: `SELECT id, state, lease_owner, lease_expires_at FROM runs WHERE state = 'running' AND lease_owner IS NOT NULL
        AND id NOT IN (SELECT run_id FROM run_imports) ORDER BY id`,
      memoryEntries: `SELECT COUNT(*) FROM long_term_memory`,
      insertEncryption: `INSERT INTO state_encryption (singleton, format_version, key_id, key_reference, key_check, scrub_pending, enabled_at, updated_at) VALUES (1, ?, ?, ?, ?, 0, ?, ?)`,
    });
  }

  /** This ledger's id: 16 random bytes in hex, made the first time it is asked for and kept in the metadata. */
  ledgerId(): string {
    const read = () => (this.#statements.ledgerId.get() as { value: Buffer } | undefined)?.value?.toString('utf8');
    const existing = read();
    if (existing !== undefined) return existing;
    return this.#core.transaction(() => {
      // The column is a BLOB: the id's text is stored as its UTF-8 bytes.
      this.#statements.createLedgerId.run(Buffer.from(randomBytes(16).toString('hex'), 'utf8'));
      return read()!;
    });
  }

  /** Where an imported run came from; undefined for a run this ledger drove (or does not hold). */
  record(runId: string): ImportRecord | undefined {
    const row = this.#core.read(() => this.#statements.record.get(runId) as Row | undefined);
    if (!row) return undefined;
    return {
      runId: String(row.run_id),
      sourceLedgerId: row.source_ledger_id === null ? null : String(row.source_ledger_id),
      originLedgerId: row.origin_ledger_id === null ? null : String(row.origin_ledger_id),
      sourcePath: String(row.source_path),
      contentDigest: String(row.content_digest),
      importedAt: String(row.imported_at),
    };
  }

  /** The tables whose rows belong to runs, by this ledger's schema. */
  tables(): RunTable[] {
    return this.#core.read(() => runTables(this.#core.db));
  }

  /** The digest of every row the run owns here (ledger-tables.ts). */
  digest(runId: string, tables: readonly RunTable[]): string {
    return this.#core.read(() => runDigest(this.#core.db, tables, runId));
  }

  /** The run's row as stored (protected columns sealed), or undefined. */
  storedRun(runId: string): Row | undefined {
    return this.#core.read(() => this.#statements.run.get(runId) as Row | undefined);
  }

  /** The run's row with its protected columns opened. */
  openedRun(runId: string): Row | undefined {
    return this.#core.opened('runs', this.storedRun(runId));
  }

  hasRuns(): boolean {
    return this.#core.read(() => Number(this.#statements.runCount.pluck().get()) > 0);
  }

  /** Whether the ledger holds long-term memory entries: values a change of its encryption would have to reseal. */
  hasMemoryEntries(): boolean {
    return this.#core.read(() => Number(this.#statements.memoryEntries.pluck().get()) > 0);
  }

  /** A run a live process drives here now, if any (liveness.ts). */
  drivenRun(): Row | undefined {
    return this.#core.read(() => (this.#statements.leased.all() as Row[]).find((run) => liveness(run) === 'active'));
  }

  /** The target's family as it stands. */
  family(): LedgerFamily {
    return this.#core.read(() => {
      const key = (this.#statements.digestKey.get() as { value: Buffer } | undefined)?.value;
      const record = readKeyRecord(this.#core.db);
      const formatVersion = record ? (this.#core.db.prepare(`SELECT format_version FROM state_encryption WHERE singleton = 1`).pluck().get() as number) : 0;
      return { digestKey: key === undefined ? null : Buffer.from(key), encryption: record ? { ...record, formatVersion } : null };
    });
  }

  /** Whether the ledger's key opens the key check of another ledger's settings: both then seal with the same key. */
  sharesKey(settings: EncryptionSettings): boolean {
    return this.#core.protection.verifies(settings.keyCheck);
  }

  /**
   * Copies the runs in one durable transaction: the family settings the target adopts, the removal of each run it
   * replaces, every row of every run-scoped table, the artifact rows, and the provenance of each run. Foreign keys
   * are checked at the commit, once every row is in: the order of the tables does not matter.
   */
  write(plan: ImportWrite, tables: readonly RunTable[]): void {
    const core = this.#core;
    const db = core.db;
    const importedAt = now();
    core.durableTransaction(() => {
      // The decisions were made before this transaction took the write lock: another writer may have come between.
      for (const runId of plan.copy) {
        const held = this.#statements.run.get(runId) === undefined ? null : runDigest(db, tables, runId);
        if (held !== plan.expected.get(runId)) {
          throw new AgentctlError('AGENTCTL_E_IMPORT_CONFLICT', `run ${runId} changed in the target while it was being imported; nothing was imported`, { help: 'import again' });
        }
      }
      db.pragma('defer_foreign_keys = ON');
      if (plan.adoptDigestKey) this.#statements.setDigestKey.run(plan.adoptDigestKey);
      if (plan.adoptEncryption) {
        const { settings } = plan.adoptEncryption;
        this.#statements.insertEncryption.run(settings.formatVersion, settings.keyId, settings.variable, settings.keyCheck, importedAt, importedAt);
        installWriteGuards(db);
      }
      if (plan.replace.length > 0) {
        // Every owned row is found before any is removed: a table's rows may be found through another's (reconciliations).
        const doomed = tables.map((table) => [table, ownedRowids(db, table, plan.replace)] as const);
        for (const [table, rowids] of doomed) {
          const remove = db.prepare(deleteSql(table));
          for (const rowid of rowids) remove.run(rowid);
        }
        for (const runId of plan.replace) this.#statements.deleteRecord.run(runId);
      }
      for (const table of tables) {
        const insert = db.prepare(insertSql(table));
        for (const row of ownedRows(plan.source.db, table, plan.copy)) insert.run(...row);
      }
      const blobs = plan.source.blobRows(plan.copy);
      if (blobs.length > 0) {
        const columns = Object.keys(blobs[0]!);
        const insertBlob = db.prepare(`INSERT OR IGNORE INTO artifacts (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
        for (const blob of blobs) insertBlob.run(...columns.map((column) => blob[column]));
      }
      for (const runId of plan.copy) {
        this.#statements.insertRecord.run(runId, plan.source.ledgerId, plan.origins.get(runId) ?? null, core.text(plan.source.path), plan.digests.get(runId)!, importedAt);
      }
    });
    if (plan.adoptEncryption) core.useProtection(plan.adoptEncryption.protection);
  }
}
