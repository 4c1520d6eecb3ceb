// The ledger a run import reads: opened read-only (also in a read-only folder, creating nothing beside it), checked to
// be an agentctl ledger of this schema version, and read in one snapshot: its family (secret digest key, state
// encryption), its ledger id, the runs to copy with the runs they stand on, and each run's rows.
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AgentctlError, errorMessage } from '@agentctl/sdk';
import { databaseError, openReadonlyFile, type SqliteDatabase } from './database.js';
import { referencedRuns, runDigest, runTables, type RunTable } from './ledger-tables.js';
import { SCHEMA_VERSION } from './migrations.js';
import type { Row } from './rows.js';
import { readKeyRecord, type StateKeyRecord } from './state-protection.js';

/** The state-encryption settings of a ledger, as its `state_encryption` row records them (the key is never there). */
export interface EncryptionSettings extends StateKeyRecord {
  readonly formatVersion: number;
}

/** What makes two ledgers one family: the key of their secret digests and their state-encryption settings. */
export interface LedgerFamily {
  readonly digestKey: Buffer | null;
  readonly encryption: EncryptionSettings | null;
}

export const invalidSource = (path: string, why: string) =>
  new AgentctlError('AGENTCTL_E_IMPORT_SOURCE_INVALID', `${path} cannot be imported: ${why}`, {
    help: 'name the runtime database (runtime.db) of an agentctl run, made by this version of agentctl',
  });

/** A source ledger, open read-only inside one read transaction until `close`. */
export class SourceLedger {
  readonly path: string;
  readonly db: SqliteDatabase;
  readonly tables: readonly RunTable[];
  readonly family: LedgerFamily;
  /** The source's own id (metadata `ledger_id`), or null when nothing made one yet. */
  readonly ledgerId: string | null;

  private constructor(path: string, db: SqliteDatabase) {
    this.path = path;
    this.db = db;
    this.tables = runTables(db);
    const metadata = (key: string) => (db.prepare(`SELECT value FROM metadata WHERE key = ?`).pluck().get(key) as Buffer | string | undefined) ?? null;
    const digestKey = metadata('secret_digest_key');
    const ledgerId = metadata('ledger_id');
    this.ledgerId = ledgerId === null ? null : Buffer.from(ledgerId).toString('utf8');
    this.family = { digestKey: digestKey === null ? null : Buffer.from(digestKey), encryption: encryptionSettings(db) };
  }

  /** Opens `path` and checks it; `targetPath` (the target's file) may not be the same file. */
  static open(path: string, targetPath: string): SourceLedger {
    const absolute = resolve(path);
    if (sameFile(absolute, targetPath)) {
      throw new AgentctlError('AGENTCTL_E_USAGE', `${absolute} is the --db itself: a ledger cannot import its own runs`, { help: 'name another ledger to import from, or another --db to import into' });
    }
    let db: SqliteDatabase;
    try {
      db = openReadonlyFile(absolute);
    } catch (error) {
      throw readError(error, absolute);
    }
    try {
      checkSchema(db, absolute);
      // One snapshot for every read that follows: a writer of the source changes nothing the import sees.
      db.exec('BEGIN');
      return new SourceLedger(absolute, db);
    } catch (error) {
      db.close();
      throw readError(error, absolute);
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** A read of the source; a damaged file is AGENTCTL_E_DB_CORRUPT, like any ledger read. */
  read<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw readError(error, this.path);
    }
  }

  /** Every run of the source, oldest first. */
  runIds(): string[] {
    return this.read(() => this.db.prepare(`SELECT id FROM runs ORDER BY created_at, id`).pluck().all() as string[]);
  }

  /**
   * `named` with every run they stand on (the source of a derived run, the runs its reused tasks and compensations
   * name, and theirs in turn), oldest first. A name the source does not hold is AGENTCTL_E_RUN_NOT_FOUND.
   */
  withLineage(named: readonly string[]): string[] {
    return this.read(() => {
      const exists = this.db.prepare(`SELECT 1 FROM runs WHERE id = ?`).pluck();
      for (const id of named) {
        if (exists.get(id) === undefined) throw new AgentctlError('AGENTCTL_E_RUN_NOT_FOUND', `run ${id} does not exist in ${this.path}`, { help: `list its runs with \`agentctl runs list --db ${this.path}\`` });
      }
      const all = new Set(named);
      for (let added = [...all]; added.length > 0; ) {
        added = [...referencedRuns(this.db, this.tables, added)].filter((id) => !all.has(id));
        for (const id of added) all.add(id);
      }
      const order = this.db.prepare(`SELECT id FROM runs WHERE id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id`).pluck();
      return order.all(JSON.stringify([...all])) as string[];
    });
  }

  /** The run's row as stored (protected columns stay sealed). */
  runRow(runId: string): Row {
    return this.read(() => this.db.prepare(`SELECT * FROM runs WHERE id = ?`).get(runId) as Row);
  }

  /** The digest of every row the run owns (ledger-tables.ts). */
  digest(runId: string): string {
    return this.read(() => runDigest(this.db, this.tables, runId));
  }

  /** Where the run came from, when the source imported it itself: the ledger that ledger recorded. */
  originOf(runId: string): string | null {
    return this.read(() => (this.db.prepare(`SELECT origin_ledger_id FROM run_imports WHERE run_id = ?`).pluck().get(runId) as string | null | undefined) ?? null);
  }

  /** The artifact rows (digest, size, ...) the runs' task artifacts refer to. */
  blobRows(runIds: readonly string[]): Row[] {
    return this.read(() => this.db.prepare(`SELECT * FROM artifacts WHERE digest IN (SELECT digest FROM task_artifacts WHERE run_id IN (SELECT value FROM json_each(?))) ORDER BY digest`).all(JSON.stringify(runIds)) as Row[]);
  }
}

function sameFile(path: string, other: string): boolean {
  try {
    const [a, b] = [statSync(realpathSync(path)), statSync(realpathSync(other))];
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/** A source at another schema version, empty, or not agentctl's is refused before anything is read from it. */
function checkSchema(db: SqliteDatabase, path: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[];
  if (version === 0 && tables.length === 0) throw invalidSource(path, 'the file holds no ledger (it is empty)');
  if (version === 0 || !tables.includes('runs') || !tables.includes('metadata')) throw invalidSource(path, 'the file is an SQLite database, but not an agentctl ledger');
  if (version > SCHEMA_VERSION) {
    throw new AgentctlError('AGENTCTL_E_DB_SCHEMA_NEWER', `${path} has schema version ${version}; this agentctl understands up to ${SCHEMA_VERSION}, and imports only from ledgers of its own version`, {
      help: 'import with the agentctl version that wrote the ledger, or a newer one',
    });
  }
  if (version < SCHEMA_VERSION) {
    throw new AgentctlError('AGENTCTL_E_LEDGER_SCHEMA_MISMATCH', `${path} has schema version ${version}, the target ${SCHEMA_VERSION}: runs are imported only between ledgers of the same version`, {
      help: `migrate a copy of the source first (\`cp ${path} upgraded.db && agentctl db migrate --db upgraded.db\`), then import from the copy`,
    });
  }
}

function encryptionSettings(db: SqliteDatabase): EncryptionSettings | null {
  const record = readKeyRecord(db);
  if (!record) return null;
  const formatVersion = db.prepare(`SELECT format_version FROM state_encryption WHERE singleton = 1`).pluck().get() as number;
  return { ...record, formatVersion };
}

/** A failure reading the source: a file that is not SQLite at all is not an agentctl ledger; damage is damage. */
function readError(error: unknown, path: string): AgentctlError {
  const failure = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = String(failure?.code === 'AGENTCTL_E_DB_OPEN' ? (failure.cause?.code ?? '') : (failure?.code ?? ''));
  if (code === 'SQLITE_NOTADB') return invalidSource(path, `the file is not an SQLite database (${errorMessage(error)})`);
  return databaseError(error, `ledger ${path} cannot be read`, 'AGENTCTL_E_DB_OPEN');
}
