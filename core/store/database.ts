// Opens the SQLite database: WAL, foreign keys, busy timeout, migrations; a newer schema is refused.
import { accessSync, constants, existsSync, mkdirSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { AgentctlError, errorMessage, isAgentctlError, type ErrorCode } from '@agentctl/sdk';
import { createAtomically, removeLeftoverDrafts } from './atomic-create.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { sqliteBindingError } from './sqlite-binding.js';

export type SqliteDatabase = Database.Database;

export interface OpenOptions {
  /** When false, a missing database is an error instead of being created. */
  readonly create: boolean;
  /** Read-only views (inspect, runs list): no journal-mode change, no migration, no write. */
  readonly readonly?: boolean;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5000;
const MAX_BUSY_TIMEOUT_MS = 600_000;

/**
 * How long a statement waits for another connection's lock before it fails (exit 5): `AGENTCTL_DB_BUSY_TIMEOUT_MS`,
 * default 5000. A tuning knob for shared databases and slow disks, documented in docs/cli.md.
 */
export function busyTimeoutMs(environment: NodeJS.ProcessEnv = process.env): number {
  const text = environment.AGENTCTL_DB_BUSY_TIMEOUT_MS;
  if (text === undefined || text === '') return DEFAULT_BUSY_TIMEOUT_MS;
  if (!/^\d{1,7}$/.test(text) || Number(text) > MAX_BUSY_TIMEOUT_MS) {
    throw new AgentctlError('AGENTCTL_E_USAGE', `AGENTCTL_DB_BUSY_TIMEOUT_MS must be a whole number of milliseconds from 0 to ${MAX_BUSY_TIMEOUT_MS}, got "${text}"`, {
      help: 'unset it for the default of 5000',
    });
  }
  return Number(text);
}

/**
 * A database failure as an agentctl error: a damaged file is AGENTCTL_E_DB_CORRUPT whatever was being done, a missing
 * or foreign native binding AGENTCTL_E_SQLITE_BINDING; anything else gets `code`. All exit 5.
 */
export function databaseError(error: unknown, message: string, code: ErrorCode): AgentctlError {
  if (isAgentctlError(error)) return error;
  const binding = sqliteBindingError(error);
  if (binding) return binding;
  const sqliteCode = (error as { code?: unknown } | undefined)?.code;
  // A write guard of an encrypted database (state-protection.ts) refused a value that is not an envelope of its key.
  const guard = /^AGENTCTL_E_STATE_ENVELOPE_INVALID: (.*)$/.exec(errorMessage(error));
  if (guard) return new AgentctlError('AGENTCTL_E_STATE_ENVELOPE_INVALID', `${message}: ${guard[1]}`, { cause: error, help: 'every write of a protected column must be sealed with the current state key (core/store/protected-columns.ts)' });
  if (typeof sqliteCode === 'string' && sqliteCode.startsWith('SQLITE_CORRUPT')) {
    return new AgentctlError('AGENTCTL_E_DB_CORRUPT', `${message}: the database file is damaged (${errorMessage(error)})`, {
      cause: error,
      help: 'restore it from a backup; `sqlite3 FILE "PRAGMA integrity_check"` shows the damage, and `.recover` may save what is left',
    });
  }
  return new AgentctlError(code, `${message}: ${errorMessage(error)}`, { cause: error });
}

export function openDatabase(givenPath: string, options: OpenOptions): SqliteDatabase {
  // Always absolute: agentctl opens no SQLite URI but its own (see `construct`), and a relative `file:...` name would be one.
  const path = resolve(givenPath);
  const timeout = busyTimeoutMs();
  if (!options.create && !existsSync(path)) {
    throw new AgentctlError('AGENTCTL_E_DB_OPEN', `database ${path} does not exist`, { help: 'pass the --db used for the run' });
  }
  let db: SqliteDatabase;
  try {
    loadBinding();
    if (options.readonly) {
      db = openReadonly(path, timeout);
    } else {
      mkdirSync(dirname(path), { recursive: true });
      removeLeftoverDrafts(path);
      if (!existsSync(path)) createAtomically(path, (draft) => initialise(draft, path, timeout));
      db = construct(path, { timeout });
    }
  } catch (error) {
    throw databaseError(error, `database ${path} cannot be opened`, 'AGENTCTL_E_DB_OPEN');
  }
  try {
    // The version is checked before anything could change the file: a newer database stays untouched.
    refuseNewer(db, path);
    // Reads the schema: a damaged schema page is reported here, before any statement is prepared.
    const objects = (db.prepare('SELECT COUNT(*) AS n FROM sqlite_master').get() as { n: number }).n;
    if (options.readonly) {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version === SCHEMA_VERSION) return db;
      // A file whose creation was cut short (an older agentctl, or an empty file) holds no runs: it reads as empty.
      if (version === 0 && objects === 0) {
        db.close();
        return emptyDatabase(path);
      }
      throw new AgentctlError('AGENTCTL_E_DB_OPEN', `database ${path} has schema version ${version}, not ${SCHEMA_VERSION}`, { help: '`agentctl db migrate --db FILE` (or a run with this agentctl) migrates it' });
    }
    configure(db);
    migrate(db, path);
  } catch (error) {
    if (db.open) db.close();
    throw databaseError(error, `database ${path} cannot be opened`, 'AGENTCTL_E_DB_OPEN');
  }
  return db;
}

function configure(db: SqliteDatabase): void {
  db.pragma('journal_mode = WAL');
  // SQLite's own default page cache (2 MB; better-sqlite3 builds with 16 MB): a 16 MiB process output written in one
  // row would otherwise hold up to 16 MB more while it commits.
  db.pragma('cache_size = -2000');
  db.pragma('foreign_keys = ON');
  // NORMAL: a commit survives a crash of agentctl; effect intents are additionally synced (see Store).
  db.pragma('synchronous = NORMAL');
}

/** Builds a new database in `draft` (see createAtomically): the current schema, in WAL mode, closed. */
function initialise(draft: string, path: string, timeout: number): void {
  const db = construct(draft, { timeout });
  try {
    configure(db);
    migrate(db, path);
  } finally {
    db.close();
  }
}

/** What an uninitialised database reads as: the current schema with no rows, in memory, never written. */
function emptyDatabase(path: string): SqliteDatabase {
  const db = construct(':memory:', {});
  migrate(db, path);
  db.pragma('query_only = ON');
  return db;
}

let bindingLoaded = false;

/** Loads better-sqlite3's native binding before any file or folder is made, so a missing binding leaves nothing behind. */
function loadBinding(): void {
  if (bindingLoaded) return;
  construct(':memory:', {}).close();
  bindingLoaded = true;
}

/**
 * better-sqlite3 decides whether file names may be URIs once, when its native addon loads (at the first open in the
 * process), from SQLITE_USE_URI. agentctl needs its URIs (`vfs=unix-none`, `immutable=1`, below); every other name
 * it opens is absolute.
 */
function construct(filename: string, options: Database.Options): SqliteDatabase {
  const previous = process.env.SQLITE_USE_URI;
  process.env.SQLITE_USE_URI = '1';
  try {
    return new Database(filename, options);
  } finally {
    if (previous === undefined) delete process.env.SQLITE_USE_URI;
    else process.env.SQLITE_USE_URI = previous;
  }
}

/**
 * A WAL database is read through its `-shm` index, which a reader creates when missing. In a read-only folder or
 * mount it cannot, and an index it may not write can be unusable. Then, when the database has a `-wal` file, it is
 * opened with locking off (`unix-none`) in exclusive locking mode, where SQLite builds the log's index in private
 * memory: every committed transaction is read, the log's included, and nothing is written. Without a `-wal` file
 * (a cleanly closed database) it is opened `immutable`, which is then exact. Without locks either view is exact only
 * while no writer works on the database from elsewhere; a live writer keeps a `-shm`, and then the first open works.
 */
function openReadonly(path: string, timeout: number): SqliteDatabase {
  const db = construct(path, { readonly: true, fileMustExist: true, timeout });
  try {
    db.pragma('user_version', { simple: true });
    return db;
  } catch (error) {
    db.close();
    const code = String((error as { code?: unknown }).code ?? '');
    if (code !== 'SQLITE_CANTOPEN' && !code.startsWith('SQLITE_READONLY')) throw error;
  }
  return openWithoutCompanions(path, timeout);
}

/**
 * Opens an existing database file read-only, as it is: its schema is neither checked nor migrated (a ledger import
 * reads a source of any version and says what is wrong with it). A file or folder this process may not write is
 * opened without companions (see openReadonly), so no -wal or -shm file appears beside a source it cannot write.
 */
export function openReadonlyFile(givenPath: string): SqliteDatabase {
  const path = resolve(givenPath);
  if (!existsSync(path)) throw new AgentctlError('AGENTCTL_E_DB_OPEN', `database ${path} does not exist`, { help: 'name an existing database file' });
  try {
    loadBinding();
    const timeout = busyTimeoutMs();
    return writable(path) ? openReadonly(path, timeout) : openWithoutCompanions(path, timeout);
  } catch (error) {
    throw databaseError(error, `database ${path} cannot be opened`, 'AGENTCTL_E_DB_OPEN');
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    accessSync(dirname(realpathSync(path)), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The read-only view of openReadonly's second attempt: nothing is created beside the database. */
function openWithoutCompanions(path: string, timeout: number): SqliteDatabase {
  // SQLite follows a symlinked database name: its log lies beside the real file.
  const logged = existsSync(`${realpathSync(path)}-wal`);
  const uri = `file:${path.replace(/[%?#]/g, (char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`)}?${logged ? 'vfs=unix-none' : 'immutable=1'}`;
  const fallback = construct(uri, { readonly: true, fileMustExist: true, timeout });
  try {
    // Before the first read: the log's index then lives in this connection's memory, never in a -shm file.
    if (logged) fallback.pragma('locking_mode = EXCLUSIVE');
    fallback.pragma('user_version', { simple: true });
    return fallback;
  } catch (error) {
    fallback.close();
    throw new AgentctlError('AGENTCTL_E_DB_OPEN', `database ${path} cannot be read in its read-only folder: ${errorMessage(error)}`, {
      cause: error,
      help: 'inspect it where its folder is writable, or check that agentctl may read the database and its -wal file',
    });
  }
}

function refuseNewer(db: SqliteDatabase, path: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new AgentctlError(
      'AGENTCTL_E_DB_SCHEMA_NEWER',
      `database ${path} has schema version ${current}; this agentctl understands up to ${SCHEMA_VERSION}`,
      { help: 'use the agentctl version that created this database, or a newer one' },
    );
  }
}

function migrate(db: SqliteDatabase, path: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const pending = MIGRATIONS.filter((migration) => migration.version > current);
  if (pending.length === 0) return;
  // A table rebuild drops a table others refer to: foreign keys are off for it (the pragma is a no-op inside a
  // transaction) and checked, all of them, before the migration commits.
  const rebuilds = pending.some((migration) => migration.rebuildsTables);
  if (rebuilds) db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      // Re-read inside the write transaction: another process may have migrated meanwhile.
      const version = db.pragma('user_version', { simple: true }) as number;
      for (const migration of pending) {
        if (migration.version <= version) continue;
        db.exec(migration.sql);
        db.pragma(`user_version = ${migration.version}`);
      }
      if (rebuilds && (db.pragma('foreign_key_check') as unknown[]).length > 0) throw new Error('the migrated tables break a foreign key');
    }).immediate();
  } catch (error) {
    throw databaseError(error, `database ${path} could not be migrated`, 'AGENTCTL_E_DB_WRITE');
  } finally {
    if (rebuilds) db.pragma('foreign_keys = ON');
  }
}
