// Opens the SQLite database: WAL, foreign keys, busy timeout, migrations; a newer schema is refused.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { AgentctlError, errorMessage, isAgentctlError } from '../../sdk/index.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';

export type SqliteDatabase = Database.Database;

export interface OpenOptions {
  /** When false, a missing database is an error instead of being created. */
  readonly create: boolean;
  /** Read-only views (inspect, runs list): no journal-mode change, no migration, no write. */
  readonly readonly?: boolean;
}

export function openDatabase(path: string, options: OpenOptions): SqliteDatabase {
  if (!options.create && !existsSync(path)) {
    throw new AgentctlError('AGENTCTL_E_DB_OPEN', `database ${path} does not exist`, { help: 'pass the --db used for the run' });
  }
  let db: SqliteDatabase;
  try {
    mkdirSync(dirname(path), { recursive: true });
    db = new Database(path, options.readonly ? { readonly: true, fileMustExist: true } : {});
    db.pragma('busy_timeout = 5000');
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_DB_OPEN', `database ${path} cannot be opened: ${errorMessage(error)}`, { cause: error });
  }
  try {
    // The version is checked before anything could change the file: a newer database stays untouched.
    refuseNewer(db, path);
    if (options.readonly) {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version !== SCHEMA_VERSION) throw new AgentctlError('AGENTCTL_E_DB_OPEN', `database ${path} has schema version ${version}, not ${SCHEMA_VERSION}`, { help: 'a run with this agentctl migrates it; an empty file is not an agentctl database' });
      return db;
    }
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    // NORMAL: a commit survives a crash of agentctl; effect intents are additionally synced (see Store).
    db.pragma('synchronous = NORMAL');
    migrate(db, path);
  } catch (error) {
    db.close();
    if (isAgentctlError(error)) throw error;
    throw new AgentctlError('AGENTCTL_E_DB_OPEN', `database ${path} cannot be opened: ${errorMessage(error)}`, { cause: error });
  }
  return db;
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
  try {
    db.transaction(() => {
      // Re-read inside the write transaction: another process may have migrated meanwhile.
      const version = db.pragma('user_version', { simple: true }) as number;
      for (const migration of pending) {
        if (migration.version <= version) continue;
        db.exec(migration.sql);
        db.pragma(`user_version = ${migration.version}`);
      }
    }).immediate();
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_DB_WRITE', `database ${path} could not be migrated: ${errorMessage(error)}`, { cause: error });
  }
}
