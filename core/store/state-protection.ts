// What an open database needs of state encryption: its recorded key (id, variable, key check), the cipher of that key
// when it is enabled, and the write guards. Every write of a protected column is sealed here and every read opened
// here (LedgerCore.seal, LedgerCore.opened); a database without encryption passes values through unchanged.
import { AgentctlError } from '@agentctl/sdk';
import type { SqliteDatabase } from './database.js';
import { PROTECTED_BY_TABLE, PROTECTED_COLUMNS, type ProtectedColumn } from './protected-columns.js';
import { ENVELOPE_PREFIX, isEnvelope, type StateCipher } from './state-cipher.js';
import { resolveKey } from './state-keys.js';

/** The database's encryption record (the `state_encryption` row). */
export interface StateKeyRecord {
  readonly keyId: string;
  readonly variable: string;
  readonly keyCheck: string;
  /** A rewrite committed, but the copies of the values it replaced may still be in the file or its log. */
  readonly scrubPending: boolean;
}

/** The encryption record, or undefined when the database's state is not encrypted. */
export function readKeyRecord(db: SqliteDatabase): StateKeyRecord | undefined {
  const row = db.prepare(`SELECT key_id, key_reference, key_check, scrub_pending FROM state_encryption WHERE singleton = 1`).get() as
    | { key_id: string; key_reference: string; key_check: string; scrub_pending: number }
    | undefined;
  return row && { keyId: row.key_id, variable: row.key_reference, keyCheck: row.key_check, scrubPending: row.scrub_pending === 1 };
}

/** Key id → the environment variable that holds that key here, when it is not the variable the database records. */
export type KeyVariables = Readonly<Record<string, string>>;

/**
 * The cipher of the database's recorded key, checked against its key check; null when it is not encrypted. The key
 * is read from the variable `variables` names for its key id (the project config's `stateKeys`), else the recorded one.
 */
export function recordedCipher(record: StateKeyRecord | undefined, variables: KeyVariables = {}, environment: NodeJS.ProcessEnv = process.env): StateCipher | null {
  if (!record) return null;
  const variable = Object.hasOwn(variables, record.keyId) ? variables[record.keyId]! : record.variable;
  const cipher = resolveKey({ keyId: record.keyId, variable }, environment);
  if (!cipher.verifies(record.keyCheck)) {
    throw new AgentctlError('AGENTCTL_E_STATE_KEY_MISMATCH', `${variable} holds another key than state key ${record.keyId}, which the database was encrypted with`, {
      help: `set ${variable} to the key of key id ${record.keyId}`,
    });
  }
  return cipher;
}

/** Seals and opens the protected columns of one open database with its key (or none). */
export class StateProtection {
  readonly #cipher: StateCipher | null;

  constructor(cipher: StateCipher | null) {
    this.#cipher = cipher;
  }

  /** Whether the database's protected columns hold envelopes. */
  get enabled(): boolean {
    return this.#cipher !== null;
  }

  /** The key id values are sealed with; null when the state is not encrypted. */
  get keyId(): string | null {
    return this.#cipher?.keyId ?? null;
  }

  /** Whether `keyCheck` (another ledger's key check) was sealed with this database's key; false without a key. */
  verifies(keyCheck: string): boolean {
    return this.#cipher?.verifies(keyCheck) ?? false;
  }

  seal(column: ProtectedColumn, text: string | null): string | null {
    if (text === null) return text;
    if (this.#cipher) return this.#cipher.seal(text, column);
    // A text that reads as an envelope could never be read back from a database without a key (see `open`).
    if (text.startsWith(ENVELOPE_PREFIX)) {
      throw new AgentctlError('AGENTCTL_E_STATE_ENVELOPE_INVALID', `${column} cannot hold a text that begins like an encrypted value (${ENVELOPE_PREFIX}) in a database without a state key`, {
        help: 'reword the text',
      });
    }
    return text;
  }

  open(column: string, stored: string): string {
    if (this.#cipher) return this.#cipher.open(stored, column);
    if (isEnvelope(stored)) {
      throw new AgentctlError('AGENTCTL_E_STATE_ENVELOPE_INVALID', `${column} holds an encrypted value, but the database records no state key`, {
        help: 'the encryption record of the database was removed; restore the database from a backup',
      });
    }
    return stored;
  }

  /** `row` with every protected column of `table` it holds opened (a copy; the row itself is left as it is). */
  opened<T extends object | undefined>(table: string, row: T): T {
    const columns = PROTECTED_BY_TABLE.get(table);
    if (!row || !columns) return row;
    let copy: Record<string, unknown> | undefined;
    for (const column of columns) {
      const value = (row as Record<string, unknown>)[column];
      if (typeof value !== 'string') continue;
      // Without a key, only a value that looks sealed needs a look (it is refused); plaintext stays as it is.
      if (!this.#cipher && !value.startsWith(ENVELOPE_PREFIX)) continue;
      copy ??= { ...(row as Record<string, unknown>) };
      copy[column] = this.open(`${table}.${column}`, value);
    }
    return (copy ?? row) as T;
  }

  openedAll<T extends object>(table: string, rows: T[]): T[] {
    return this.#cipher || rows.some((row) => hasEnvelope(table, row)) ? rows.map((row) => this.opened(table, row)) : rows;
  }
}

function hasEnvelope(table: string, row: object): boolean {
  return (PROTECTED_BY_TABLE.get(table) ?? []).some((column) => isEnvelope((row as Record<string, unknown>)[column]));
}

const guardName = (column: string, event: 'insert' | 'update') => `agentctl_protect_${column.replace('.', '_')}_${event}`;

/**
 * The write guards of an encrypted database: a trigger per protected column and write refuses a value that is not an
 * envelope of the recorded key id, so plaintext never lands in a protected column, whatever writes it.
 */
export function installWriteGuards(db: SqliteDatabase): void {
  const present = new Set(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'agentctl_protect_%'`).pluck().all() as string[]);
  const expected = `'${ENVELOPE_PREFIX}' || (SELECT key_id FROM state_encryption WHERE singleton = 1) || ':'`;
  const statements: string[] = [];
  for (const name of PROTECTED_COLUMNS) {
    const [table, column] = name.split('.') as [string, string];
    const when = `NEW.${column} IS NOT NULL AND substr(NEW.${column}, 1, length(${expected})) IS NOT ${expected}`;
    const body = `BEGIN SELECT RAISE(ABORT, 'AGENTCTL_E_STATE_ENVELOPE_INVALID: ${name} only takes envelopes of the current state key'); END`;
    if (!present.has(guardName(name, 'insert'))) statements.push(`CREATE TRIGGER ${guardName(name, 'insert')} BEFORE INSERT ON ${table} WHEN ${when} ${body};`);
    if (!present.has(guardName(name, 'update'))) statements.push(`CREATE TRIGGER ${guardName(name, 'update')} BEFORE UPDATE OF ${column} ON ${table} WHEN ${when} ${body};`);
  }
  if (statements.length > 0) db.exec(statements.join('\n'));
}
