// `db stats` and `db migrate`: the database's schema version and row counts, and bringing its schema up to date;
// `db encryption` is db-encryption.ts.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { CommandModule } from 'yargs';
import { databaseError } from '../../store/database.js';
import { MIGRATIONS } from '../../store/migrations.js';
import { Store } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';
import { encryptionCommand } from './db-encryption.js';

interface DbArgs extends GlobalArgs {
  db?: string;
}

// The reference's counts by its table names, and the agentctl table each is counted in (a table agentctl does not
// have counts 0; `tables` has agentctl's own counts by name).
const COUNTED: Record<string, string> = {
  runs: 'runs', tasks: 'tasks', effects: 'effects', approvals: 'approvals', checkpoints: 'checkpoints', auditEvents: 'audit_events',
  providerSessions: 'provider_sessions', streamEvents: 'stream_events', protocolSessions: 'protocol_sessions', protocolCalls: 'protocol_calls',
  toolCalls: 'tool_calls', traceEvents: 'trace_events', longTermMemory: 'long_term_memory', artifactBlobs: 'artifacts',
  artifactReferences: 'task_artifacts', artifactIngests: 'artifact_ingests', runUpgrades: 'run_upgrades', effectReconciliations: 'reconciliations',
  budgetReservations: 'budget_reservations',
};

const stats: CommandModule<GlobalArgs, DbArgs> = {
  command: 'stats',
  describe: "Show the database's schema version and how many rows each kind of record has",
  builder: (yargs) => yargs.option('db', dbOption()) as never,
  handler: handler<DbArgs>(async (argv, output) => {
    // Read-only, like inspect: a database in a read-only folder can still be counted.
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
    try {
      const maintenance = store.maintenance;
      const tables = maintenance.tableCounts();
      const counts: Record<string, number> = Object.fromEntries(Object.entries(COUNTED).map(([field, table]) => [field, tables[table] ?? 0]));
      const schemaVersion = maintenance.schemaVersion();
      const data = { schemaVersion, ...counts, runBudgets: maintenance.budgetedRuns(), path: store.path, tables };
      emit(output, 'DatabaseStats', data, () =>
        `schema ${schemaVersion}: ${counts.runs} runs, ${counts.effects} effects, ${counts.effectReconciliations} reconciliations, ${counts.artifactBlobs} artifact blobs, ${counts.artifactReferences} artifact references`,
      );
      return 0;
    } finally {
      store.close();
    }
  }),
};

/** The schema version of an existing database file, read without changing it; 0 for a file that is not there yet. */
function versionOf(path: string): number {
  if (!existsSync(path)) return 0;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return db.pragma('user_version', { simple: true }) as number;
    } finally {
      db.close();
    }
  } catch (error) {
    throw databaseError(error, `database ${path} cannot be opened`, 'AGENTCTL_E_DB_OPEN');
  }
}

const migrate: CommandModule<GlobalArgs, DbArgs> = {
  command: 'migrate',
  describe: "Bring the database's schema to this agentctl's version (creating the database when there is none)",
  builder: (yargs) => yargs.option('db', dbOption()) as never,
  handler: handler<DbArgs>(async (argv, output) => {
    const path = resolve(databasePath(argv.db));
    const previous = versionOf(path);
    // Opening migrates, in one transaction; a newer schema is refused before anything is written (exit 5).
    const store = Store.open(path, { create: true, stateKeys: argv.stateKeys });
    try {
      const schemaVersion = store.maintenance.schemaVersion();
      const applied = MIGRATIONS.filter((migration) => migration.version > previous && migration.version <= schemaVersion).map(({ version, description }) => ({ version, description }));
      const data = { schemaVersion, migrated: true, previousSchemaVersion: previous, migrationsApplied: applied };
      emit(output, 'DatabaseMigration', data, () =>
        applied.length === 0 ? `database schema is at version ${schemaVersion}` : `database schema migrated from version ${previous} to ${schemaVersion}`,
      );
      return 0;
    } finally {
      store.close();
    }
  }),
};

export const dbCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'db',
  describe: 'The runtime database: row counts, schema migration and state encryption',
  builder: (yargs) => yargs.command(stats).command(migrate).command(encryptionCommand).demandCommand(1, 'name a db subcommand: stats, migrate, encryption') as never,
  handler: () => undefined,
};
