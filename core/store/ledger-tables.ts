// Which rows of a ledger belong to a run, read from the schema itself (sqlite_master, table_info, foreign_key_list)
// each time: a column a later migration adds is copied with the rest, and a table no rule here places fails the
// import loudly instead of being left behind. Used on both sides of an import (ledger-import.ts).
import { createHash } from 'node:crypto';
import { AgentctlError } from '@agentctl/sdk';
import type { SqliteDatabase } from './database.js';

/** The runs a statement is about: bound as `@ids`, a JSON array of run ids. */
const IDS = '(SELECT value FROM json_each(@ids))';

/**
 * How a table's row names the run that owns it, as an SQL expression over the row aliased `x`. A table with a
 * `run_id` column is owned through it; the others are placed here by name.
 */
const OWNER_BY_TABLE: Readonly<Record<string, string>> = {
  runs: 'x.id',
  // An operator's account of an effect belongs to the effect's run.
  reconciliations: '(SELECT e.run_id FROM effects e WHERE e.id = x.effect_id)',
  // A claim is taken by the compensation run that may undo the source effect.
  compensation_claims: 'x.compensation_run_id',
};

/** Tables that belong to the ledger, not to a run: the import handles them itself (or leaves them alone). */
const NOT_RUN_SCOPED = new Set(['metadata', 'state_encryption', 'artifacts', 'long_term_memory', 'run_imports']);

/** One table whose rows belong to runs. */
export interface RunTable {
  readonly name: string;
  /** The columns copied, in schema order: every column but an AUTOINCREMENT key, which each ledger numbers itself. */
  readonly columns: readonly string[];
  /** The rows of the runs in `@ids`, aliased `x`. */
  readonly owned: string;
  /** A stable order of a run's rows: the primary key (the AUTOINCREMENT key keeps the order the rows were written). */
  readonly order: string;
  /** Queries (bound with `@ids`) that return the ids of the runs the owned rows refer to, through foreign keys. */
  readonly references: readonly string[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

interface ColumnInfo {
  readonly name: string;
  readonly type: string;
  readonly pk: number;
}

interface ForeignKey {
  readonly id: number;
  readonly table: string;
  readonly from: string;
  readonly to: string;
}

/** The expression of the run that owns a row of `table` (aliased `alias`), or undefined for a table no run owns. */
function ownerOf(db: SqliteDatabase, table: string, alias: string): string | undefined {
  const known = OWNER_BY_TABLE[table];
  if (known !== undefined) return known.replace(/\bx\./g, `${alias}.`);
  if (NOT_RUN_SCOPED.has(table)) return undefined;
  const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
  if (columns.includes('run_id')) return `${alias}.run_id`;
  throw new AgentctlError('AGENTCTL_E_INTERNAL', `the ledger table ${table} has no run_id column and no rule of the ledger import places it`, {
    help: 'this is a bug in agentctl: core/store/ledger-tables.ts must say whether the table belongs to a run',
  });
}

/** Every table of the ledger whose rows belong to runs, as the schema of `db` defines it now. */
export function runTables(db: SqliteDatabase): RunTable[] {
  const tables = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string; sql: string }[];
  const result: RunTable[] = [];
  for (const { name, sql } of tables) {
    const owner = ownerOf(db, name, 'x');
    if (owner === undefined) continue;
    const info = db.prepare(`SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid`).all(name) as ColumnInfo[];
    const keys = info.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk);
    const surrogate = keys.length === 1 && keys[0]!.type.toUpperCase() === 'INTEGER' && /\bAUTOINCREMENT\b/i.test(sql) ? keys[0]!.name : undefined;
    const columns = info.map((column) => column.name).filter((column) => column !== surrogate);
    const order = (keys.length > 0 ? keys.map((column) => column.name) : columns).map((column) => `x.${quote(column)}`).join(', ');
    result.push({ name, columns, owned: `${owner} IN ${IDS}`, order, references: referencesOf(db, name, owner) });
  }
  return result;
}

/** For each foreign key of `table` to a table runs own: the runs that the rows of `@ids` refer to through it. */
function referencesOf(db: SqliteDatabase, table: string, owner: string): string[] {
  const keys = db.prepare(`SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq`).all(table) as ForeignKey[];
  const byId = new Map<number, ForeignKey[]>();
  for (const key of keys) byId.set(key.id, [...(byId.get(key.id) ?? []), key]);
  const queries: string[] = [];
  for (const parts of byId.values()) {
    const referenced = parts[0]!.table;
    const target = ownerOf(db, referenced, 'y');
    if (target === undefined) continue;
    // A foreign key without named columns refers to the primary key of the other table.
    const join = parts.map((part) => `y.${quote(part.to ?? 'id')} = x.${quote(part.from)}`).join(' AND ');
    queries.push(`SELECT DISTINCT ${target} AS run_id FROM ${quote(table)} x JOIN ${quote(referenced)} y ON ${join} WHERE ${owner} IN ${IDS}`);
  }
  return queries;
}

/** The rows of `table` that the runs in `ids` own, in their stable order; integers as BigInt, exactly. */
export function ownedRows(db: SqliteDatabase, table: RunTable, ids: readonly string[]): IterableIterator<unknown[]> {
  const select = db.prepare(`SELECT ${table.columns.map((column) => `x.${quote(column)}`).join(', ')} FROM ${quote(table.name)} x WHERE ${table.owned} ORDER BY ${table.order}`);
  return select.raw(true).safeIntegers(true).iterate({ ids: JSON.stringify(ids) }) as IterableIterator<unknown[]>;
}

/** The rowids of the rows of `table` that the runs in `ids` own. */
export function ownedRowids(db: SqliteDatabase, table: RunTable, ids: readonly string[]): bigint[] {
  return db.prepare(`SELECT x.rowid FROM ${quote(table.name)} x WHERE ${table.owned}`).pluck().safeIntegers(true).all({ ids: JSON.stringify(ids) }) as bigint[];
}

/** An INSERT of one row of `table`, its values in `table.columns` order. */
export const insertSql = (table: RunTable) => `INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})`;

/** A DELETE of one row of `table` by rowid. */
export const deleteSql = (table: RunTable) => `DELETE FROM ${quote(table.name)} WHERE rowid = ?`;

/** The ids of the runs that the rows of the runs in `ids` refer to (their source runs, reused and compensated runs). */
export function referencedRuns(db: SqliteDatabase, tables: readonly RunTable[], ids: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const table of tables) {
    for (const query of table.references) {
      for (const id of db.prepare(query).pluck().all({ ids: JSON.stringify(ids) }) as unknown[]) if (typeof id === 'string') found.add(id);
    }
  }
  return found;
}

/**
 * The digest of everything a run owns, table by table and row by row, with the values as stored (envelopes stay
 * envelopes). An AUTOINCREMENT key is left out: each ledger numbers its own rows, so a faithful copy digests the same.
 */
export function runDigest(db: SqliteDatabase, tables: readonly RunTable[], runId: string): string {
  const hash = createHash('sha256');
  for (const table of tables) {
    hash.update(`${JSON.stringify([table.name, table.columns])}\n`);
    for (const row of ownedRows(db, table, [runId])) hash.update(`${JSON.stringify(row.map(encodeValue))}\n`);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** A stored value as digested: the type is part of it, so 1 and "1" differ. */
function encodeValue(value: unknown): unknown {
  if (typeof value === 'bigint') return { i: value.toString() };
  if (Buffer.isBuffer(value)) return { b: value.toString('base64') };
  if (typeof value === 'number') return { r: value };
  return value;
}
