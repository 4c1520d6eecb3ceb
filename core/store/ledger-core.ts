// The ledger's core: the one database handle, its transactions, the redaction of what is written and the append of
// audit events. Every part of the ledger (runs.ts, tasks.ts, effects.ts, ...) receives this core and owns its statements.
import type Database from 'better-sqlite3';
import { isAgentctlError, type AuditEventType, type JsonValue } from '@agentctl/sdk';
import { databaseError, openDatabase, type SqliteDatabase } from './database.js';
import { EventSequence } from './event-sequence.js';
import { LogSync } from './log-sync.js';
import { collectGarbage, isLargeValue } from './garbage.js';
import type { ProtectedColumn } from './protected-columns.js';
import { installWriteGuards, readKeyRecord, recordedCipher, StateProtection, type KeyVariables } from './state-protection.js';
import { predecessorList } from './transitions.js';

export interface AuditEvent {
  /** One of the SDK's audit event names: a new kind of event is declared there first. */
  readonly type: AuditEventType;
  readonly taskId?: string;
  readonly effectId?: string;
  readonly data?: Record<string, JsonValue>;
}

export const now = () => new Date().toISOString();

/** A prepared statement; parameters are checked by SQLite. */
export type Statement = Database.Statement<unknown[]>;

/**
 * Statements by name, each prepared the first time it is used and kept: a part names its SQL once, and no call
 * prepares a statement again. Preparing on first use keeps a prepare failure inside the caller's transaction or read.
 */
export function preparedOnce<K extends string>(db: SqliteDatabase, sql: Readonly<Record<K, string>>): Readonly<Record<K, Statement>> {
  const statements = {} as Record<K, Statement>;
  for (const name of Object.keys(sql) as K[]) {
    Object.defineProperty(statements, name, {
      configurable: true,
      get: () => {
        const statement = db.prepare(sql[name]);
        Object.defineProperty(statements, name, { value: statement });
        return statement;
      },
    });
  }
  return statements;
}

/** Statements prepared once per distinct SQL text: for a part whose SQL is built from its arguments (a filter, a table). */
export function statementCache(db: SqliteDatabase): (sql: string) => Statement {
  const cache = new Map<string, Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) cache.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
}

/** A guarded UPDATE per target state (`WHERE state IN (its predecessors)`, transitions.ts), prepared once per target. */
export function guardedStatements<S extends string>(db: SqliteDatabase, sql: (from: string) => string, table: Readonly<Record<S, readonly S[]>>): (target: S) => Statement {
  const cache = new Map<S, Statement>();
  return (target) => {
    let statement = cache.get(target);
    if (!statement) cache.set(target, (statement = db.prepare(sql(predecessorList(table, target)))));
    return statement;
  };
}

/**
 * One open database. Every JSON document (plan, inputs, outputs, results, errors, audit data) is redacted value by
 * value before it is serialized, and every free-text column (workflow source, paths, operation, approval reasons) as
 * text, as a last line of defence: secret values must never reach the file even if a plugin forgot to redact, or a
 * run input repeats a secret. The handle is shared with the ledger's parts only; it never leaves core/store/.
 * On an encrypted database every protected column (protected-columns.ts) is sealed as it is written (`seal`) and opened
 * as it is read (`opened`); the key is resolved, and checked, when the database is opened.
 */
export class LedgerCore {
  readonly db: SqliteDatabase;
  /** The database file, absolute. */
  readonly path: string;
  #redact: <T>(value: T) => T = (value) => value;
  /** Changes whenever the redactor learns a value: JSON written before then may hold what it would now hide. */
  #redactions: () => number = () => 0;
  /** A large value was serialized: its dead copies are collected when the transaction ends. */
  #collectAfterCommit = false;
  /** One transaction function for every body: better-sqlite3 builds four wrappers each time one is made. */
  readonly #immediate: (body: () => unknown) => unknown;
  /** Inside a durable transaction: a nested one is a savepoint of it. */
  #durable = false;
  /** Set by `syncedOffThread`: the outermost durable transaction commits unsynced and leaves its sync owed. */
  #syncLater = false;
  #syncOwed = false;
  readonly #log: LogSync;
  readonly #statements;
  /** The audit events of each commit, in order, for the commit observers (core/runner/publisher.ts). */
  readonly events = new EventSequence();
  /** The database's state key, when its state is encrypted (state-protection.ts). */
  #protection: StateProtection;

  constructor(path: string, options: { create: boolean; readonly?: boolean; stateKeys?: KeyVariables }) {
    this.path = path;
    this.#log = new LogSync(path);
    this.db = openDatabase(path, options);
    try {
      const record = readKeyRecord(this.db);
      this.#protection = new StateProtection(recordedCipher(record, options.stateKeys));
      if (record && !options.readonly) installWriteGuards(this.db);
    } catch (error) {
      this.db.close();
      if (isAgentctlError(error)) throw error;
      throw databaseError(error, `database ${path} cannot be opened`, 'AGENTCTL_E_DB_OPEN');
    }
    this.#immediate = this.db.transaction((body: () => unknown) => body()).immediate;
    this.#statements = preparedOnce(this.db, {
      insertAudit: `INSERT INTO audit_events (run_id, task_id, effect_id, type, data_json, at) VALUES (?, ?, ?, ?, ?, ?)`,
      synchronousFull: 'PRAGMA synchronous = FULL',
      synchronousNormal: 'PRAGMA synchronous = NORMAL',
    });
  }

  /** Sets the value redactor; `redactions` counts what it redacts (while it is 0, the redactor changes nothing). */
  setRedactor(redact: <T>(value: T) => T, redactions: () => number): void {
    this.#redact = redact;
    this.#redactions = redactions;
  }

  /** How many values the redactor has redacted so far (see `setRedactor`). */
  redactions(): number {
    return this.#redactions();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  json(value: JsonValue | undefined): string | null {
    if (value === undefined) return null;
    if (!isLargeValue(value)) return JSON.stringify(this.#redact(value));
    // What made this value (a process's output buffer) is dead by now: free it before the copies are made, and the
    // copies themselves once the transaction ends.
    collectGarbage();
    this.#collectAfterCommit = true;
    return JSON.stringify(this.#redact(value));
  }

  text(value: string): string {
    return this.#redact(value);
  }

  /** Whether the protected columns hold envelopes: a value is then sealed for its own column and copied by no SQL. */
  get encrypted(): boolean {
    return this.#protection.enabled;
  }

  /** How protected columns are sealed and opened now. */
  get protection(): StateProtection {
    return this.#protection;
  }

  /** The protection after `db encryption enable` or `rotate` committed: later writes and reads use the new key. */
  useProtection(protection: StateProtection): void {
    this.#protection = protection;
  }

  /** `text` as `column` stores it: sealed on an encrypted database, as it is otherwise. */
  seal(column: ProtectedColumn, text: string | null): string | null {
    return this.#protection.seal(column, text);
  }

  /** `value` redacted and serialized (see `json`), then sealed for `column`. */
  sealJson(column: ProtectedColumn, value: JsonValue | undefined): string | null {
    return this.#protection.seal(column, this.json(value));
  }

  /** `text` redacted (see `text`), then sealed for `column`. */
  sealText(column: ProtectedColumn, value: string): string {
    return this.#protection.seal(column, this.#redact(value))!;
  }

  /** A row of `table` as read, with its protected columns opened (exit 5 for a value that fails to open). */
  opened<T extends object | undefined>(table: string, row: T): T {
    return this.#protection.opened(table, row);
  }

  /** Rows of `table` as read, with their protected columns opened. */
  openedAll<T extends object>(table: string, rows: T[]): T[] {
    return this.#protection.openedAll(table, rows);
  }

  /** Runs `body` in one IMMEDIATE transaction (a savepoint inside another); database failures become exit-5 errors. */
  transaction<T>(body: () => T): T {
    const mark = this.events.mark();
    try {
      const result = this.#immediate(body) as T;
      // Only the outermost commit makes its events facts; a savepoint's wait for it.
      if (!this.db.inTransaction) this.events.release();
      return result;
    } catch (error) {
      this.events.rollback(mark);
      if (isAgentctlError(error)) throw error;
      throw databaseError(error, 'database write failed', 'AGENTCTL_E_DB_WRITE');
    } finally {
      if (this.#collectAfterCommit) {
        this.#collectAfterCommit = false;
        collectGarbage();
      }
    }
  }

  /** A read outside a transaction; a damaged file is AGENTCTL_E_DB_CORRUPT, never an internal error. */
  read<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw databaseError(error, `database ${this.path} cannot be read`, 'AGENTCTL_E_DB_OPEN');
    }
  }

  /**
   * Like `transaction`, but the commit is synced to disk before returning (for effect intents). Inside another durable
   * transaction it is a savepoint of that one, whose commit is the synced one.
   */
  durableTransaction<T>(body: () => T): T {
    if (this.#durable) return this.transaction(body);
    if (this.#syncLater) {
      this.#durable = true;
      try {
        const result = this.transaction(body);
        this.#syncOwed = true;
        return result;
      } finally {
        this.#durable = false;
      }
    }
    this.#statements.synchronousFull.run();
    this.#durable = true;
    try {
      return this.transaction(body);
    } finally {
      this.#durable = false;
      this.#statements.synchronousNormal.run();
    }
  }

  /**
   * Runs `commit`, whose outermost durable transaction then commits without waiting for its sync: the write-ahead log
   * is synced on the thread pool instead (log-sync.ts), and `synced` settles once that commit is on disk. What waits
   * for `synced` (an effect's dispatch) sees its rows as durable as a synced commit makes them, while the process
   * spawns, reads and commits other work. If `commit` committed nothing durable, nothing is owed and `synced` is settled.
   */
  syncedOffThread<T>(commit: () => T): { result: T; synced: Promise<void> } {
    this.#syncLater = true;
    this.#syncOwed = false;
    let result: T;
    try {
      result = commit();
    } finally {
      this.#syncLater = false;
    }
    if (!this.#syncOwed) return { result, synced: Promise.resolve() };
    this.#syncOwed = false;
    const synced = this.#log.sync().catch((error: unknown) => {
      throw databaseError(error, `database ${this.path} could not be synced to disk`, 'AGENTCTL_E_DB_WRITE');
    });
    return { result, synced };
  }

  /**
   * Appends an audit event of a run; call inside the transaction of the change it describes. When anyone observes
   * (see `events`), the event is queued for them and released when the outermost transaction commits.
   */
  audit(runId: string, event: AuditEvent): void {
    const at = now();
    const data = event.data ?? {};
    const row = this.#statements.insertAudit.run(runId, event.taskId ?? null, event.effectId ?? null, event.type, this.sealJson('audit_events.data_json', data), at);
    if (!this.events.observed) return;
    const { taskId, effectId } = event;
    this.events.append({ seq: Number(row.lastInsertRowid), at, runId, type: event.type, ...(taskId ? { taskId } : {}), ...(effectId ? { effectId } : {}), data: this.#redact(data) });
    if (!this.db.inTransaction) this.events.release();
  }
}
