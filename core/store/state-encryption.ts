// `db encryption inventory|enable|rotate` on the ledger: counts of protected values, and the rewrite of every one of
// them in one IMMEDIATE transaction (plaintext → envelopes, or one key's envelopes → another's). A crash inside the
// rewrite leaves the database as it was; after the commit the copies of the replaced values are scrubbed from the
// file and its log (VACUUM, then a truncating checkpoint), and `scrub_pending` says whether that is still to do.
import { AgentctlError } from '@agentctl/sdk';
import { now, type LedgerCore } from './ledger-core.js';
import { liveness } from './liveness.js';
import { PROTECTED_BY_TABLE, PROTECTED_COLUMNS, type ProtectedColumn } from './protected-columns.js';
import type { Row } from './rows.js';
import { envelopeKeyId, isEnvelope } from './state-cipher.js';
import { resolveKey, type KeyReference } from './state-keys.js';
import { installWriteGuards, readKeyRecord, StateProtection } from './state-protection.js';

/** One protected column's values, by what they hold. */
export interface ColumnInventory {
  readonly column: ProtectedColumn;
  readonly values: number;
  readonly encrypted: number;
  readonly plaintext: number;
  readonly invalid: number;
}

/** The `EncryptionInventory` document's data. */
export interface EncryptionInventory {
  readonly enabled: boolean;
  readonly keyId: string | null;
  readonly keyReference: string | null;
  readonly protectedValues: number;
  readonly encryptedValues: number;
  readonly plaintextValues: number;
  readonly invalidEnvelopes: number;
  /** Envelopes by the key id they name (a well-formed envelope's, whether or not it opens). */
  readonly keysInUse: Record<string, number>;
  /** A rewrite committed and the file or its log may still hold the values it replaced. */
  readonly scrubPending: boolean;
  readonly columns: readonly ColumnInventory[];
}

/** The `EncryptionMigration` document's data (enable and rotate). */
export interface EncryptionMigration {
  readonly operation: 'enable' | 'rotate';
  readonly dryRun: boolean;
  readonly keyId: string;
  readonly keyReference: string;
  readonly previousKeyId: string | null;
  readonly valuesScanned: number;
  readonly valuesRewritten: number;
  /** Whether the replaced values were scrubbed from the file and its log (false for a dry run). */
  readonly scrubbed: boolean;
}

const PAGE = 256;

export class StateEncryption {
  readonly #core: LedgerCore;

  constructor(core: LedgerCore) {
    this.#core = core;
  }

  /** Counts every protected value: envelopes that open with the database's key, plaintext, and invalid envelopes. */
  inventory(): EncryptionInventory {
    const core = this.#core;
    return core.read(() => {
      const record = readKeyRecord(core.db);
      const keysInUse: Record<string, number> = {};
      const columns = PROTECTED_COLUMNS.map((name): ColumnInventory => {
        const [table, column] = name.split('.') as [string, string];
        const counts = { column: name, values: 0, encrypted: 0, plaintext: 0, invalid: 0 };
        for (const value of core.db.prepare(`SELECT ${column} FROM ${table} WHERE ${column} IS NOT NULL`).pluck().iterate() as Iterable<unknown>) {
          counts.values += 1;
          if (!isEnvelope(value)) {
            counts.plaintext += 1;
            continue;
          }
          counts.encrypted += 1;
          const keyId = envelopeKeyId(value);
          if (keyId !== null) keysInUse[keyId] = (keysInUse[keyId] ?? 0) + 1;
          if (keyId === null || (core.encrypted && !opens(core.protection, name, value))) counts.invalid += 1;
        }
        return counts;
      });
      const sum = (field: 'values' | 'encrypted' | 'plaintext' | 'invalid') => columns.reduce((total, entry) => total + entry[field], 0);
      return {
        enabled: record !== undefined,
        keyId: record?.keyId ?? null,
        keyReference: record?.variable ?? null,
        protectedValues: sum('values'),
        encryptedValues: sum('encrypted'),
        plaintextValues: sum('plaintext'),
        invalidEnvelopes: sum('invalid'),
        keysInUse,
        scrubPending: record?.scrubPending ?? false,
        columns,
      };
    });
  }

  /**
   * Seals every protected value with the key `reference` names, records the key id and variable, and installs the
   * write guards, in one transaction. Enabling again with the same key id after a crash between the commit and the
   * scrub finishes the scrub; otherwise an encrypted database is refused.
   */
  enable(reference: KeyReference, options: { readonly dryRun: boolean; readonly killAfter?: number }): EncryptionMigration {
    const core = this.#core;
    const record = readKeyRecord(core.db);
    if (record && !(record.scrubPending && record.keyId === reference.keyId && !options.dryRun)) {
      throw new AgentctlError('AGENTCTL_E_STATE_ENCRYPTION_ENABLED', `state encryption is already enabled on ${core.path}, with key id ${record.keyId}`, {
        help: 'to change the key, use `agentctl db encryption rotate --key-id ID --key-env VAR`',
      });
    }
    if (record) return { ...this.#report('enable', reference, record.keyId, this.inventory().protectedValues, 0, options.dryRun), scrubbed: this.scrub() };
    const cipher = resolveKey(reference);
    const inventory = this.inventory();
    if (inventory.encryptedValues > 0) {
      throw new AgentctlError('AGENTCTL_E_STATE_ENVELOPE_INVALID', `the database records no state key, but ${inventory.encryptedValues} protected value(s) are envelopes`, {
        help: 'the encryption record of the database was removed; restore the database from a backup',
      });
    }
    const report = this.#report('enable', reference, null, inventory.protectedValues, options.dryRun ? 0 : inventory.plaintextValues, options.dryRun);
    if (options.dryRun) return report;
    const next = new StateProtection(cipher);
    core.transaction(() => {
      this.#refuseDrivenRuns('enable');
      const at = now();
      core.db
        .prepare(`INSERT INTO state_encryption (singleton, format_version, key_id, key_reference, key_check, scrub_pending, enabled_at, updated_at) VALUES (1, 1, ?, ?, ?, 1, ?, ?)`)
        .run(reference.keyId, reference.variable, cipher.keyCheck(), at, at);
      installWriteGuards(core.db);
      this.#rewrite((column, value) => next.seal(column, value)!, options.killAfter);
    });
    core.useProtection(next);
    return { ...report, scrubbed: this.scrub() };
  }

  /**
   * Opens every protected value with the current key and seals it again with the key `reference` names, and records
   * that key, in one transaction: any value that fails to open rolls the whole rotation back.
   */
  rotate(reference: KeyReference, options: { readonly dryRun: boolean; readonly killAfter?: number }): EncryptionMigration {
    const core = this.#core;
    const record = readKeyRecord(core.db);
    if (!record) {
      throw new AgentctlError('AGENTCTL_E_STATE_ENCRYPTION_DISABLED', `state encryption is not enabled on ${core.path}: there is no key to rotate`, {
        help: 'enable it with `agentctl db encryption enable --key-id ID --key-env VAR`',
      });
    }
    if (record.keyId === reference.keyId) {
      if (record.scrubPending && !options.dryRun) return { ...this.#report('rotate', reference, record.keyId, this.inventory().protectedValues, 0, false), scrubbed: this.scrub() };
      throw new AgentctlError('AGENTCTL_E_STATE_KEY_UNCHANGED', `the database already uses key id ${reference.keyId}: a rotation needs a new key id`, {
        help: 'rotate to a new key id, with its own key in its own variable',
      });
    }
    const cipher = resolveKey(reference);
    const inventory = this.inventory();
    if (inventory.plaintextValues > 0 || inventory.invalidEnvelopes > 0) {
      throw new AgentctlError('AGENTCTL_E_STATE_ENVELOPE_INVALID', `the database is not fully protected: ${inventory.plaintextValues} plaintext and ${inventory.invalidEnvelopes} invalid protected value(s); nothing was rotated`, {
        help: '`agentctl db encryption inventory --output json` shows the columns; restore the database from a backup',
      });
    }
    const report = this.#report('rotate', reference, record.keyId, inventory.protectedValues, options.dryRun ? 0 : inventory.encryptedValues, options.dryRun);
    if (options.dryRun) return report;
    const current = core.protection;
    const next = new StateProtection(cipher);
    core.transaction(() => {
      this.#refuseDrivenRuns('rotate');
      core.db
        .prepare(`UPDATE state_encryption SET key_id = ?, key_reference = ?, key_check = ?, scrub_pending = 1, updated_at = ? WHERE singleton = 1`)
        .run(reference.keyId, reference.variable, cipher.keyCheck(), now());
      this.#rewrite((column, value) => next.seal(column, current.open(column, value))!, options.killAfter);
    });
    core.useProtection(next);
    return { ...report, scrubbed: this.scrub() };
  }

  /**
   * Removes the copies of replaced values: VACUUM rebuilds the file from its live rows (no free page keeps an old
   * value) and a truncating checkpoint empties the log. False when another connection kept the log from being reset.
   */
  scrub(): boolean {
    const db = this.#core.db;
    const checkpoint = () => (db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]?.busy === 0;
    try {
      db.exec('VACUUM');
      if (!checkpoint()) return false;
      db.prepare(`UPDATE state_encryption SET scrub_pending = 0 WHERE singleton = 1`).run();
      return checkpoint();
    } catch (error) {
      throw new AgentctlError('AGENTCTL_E_DB_WRITE', `the new envelopes are committed, but the old values could not be scrubbed from ${this.#core.path}: ${String((error as Error).message)}`, {
        cause: error,
        help: 'run the same command again once no other agentctl uses the database: it finishes the scrub',
      });
    }
  }

  #report(operation: 'enable' | 'rotate', reference: KeyReference, previousKeyId: string | null, scanned: number, rewritten: number, dryRun: boolean): EncryptionMigration {
    return { operation, dryRun, keyId: reference.keyId, keyReference: reference.variable, previousKeyId, valuesScanned: scanned, valuesRewritten: rewritten, scrubbed: false };
  }

  /**
   * A run another process drives keeps the key it opened the database with: its next write would be refused. So the
   * rewrite waits until no run is driven (a lease that has not expired); called inside the rewrite's transaction.
   */
  #refuseDrivenRuns(operation: 'enable' | 'rotate'): void {
    const leased = this.#core.db.prepare(`SELECT id, state, lease_owner, lease_expires_at FROM runs WHERE state = 'running' AND lease_owner IS NOT NULL ORDER BY id`).all() as Row[];
    // A run whose owner died is not driven (liveness.ts): it is resumed later, with the key.
    const driven = leased.find((run) => liveness(run) === 'active') as { id: string; lease_owner: string } | undefined;
    if (!driven) return;
    throw new AgentctlError('AGENTCTL_E_RUN_LEASED', `run ${driven.id} is being driven by ${driven.lease_owner}: ${operation} rewrites every protected value, and waits until no run is driven`, {
      help: `let the run finish (or cancel it), then run db encryption ${operation} again; nothing was changed`,
    });
  }

  /** Replaces every non-null protected value with `change(column, value)`, table by table, row by row. */
  #rewrite(change: (column: ProtectedColumn, value: string) => string, killAfter?: number): void {
    const db = this.#core.db;
    let rewritten = 0;
    for (const [table, columns] of PROTECTED_BY_TABLE) {
      const select = db.prepare(`SELECT rowid AS agentctl_rowid, ${columns.join(', ')} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ${PAGE}`);
      const update = db.prepare(`UPDATE ${table} SET ${columns.map((column) => `${column} = ?`).join(', ')} WHERE rowid = ?`);
      let after = Number.MIN_SAFE_INTEGER;
      for (;;) {
        const rows = select.all(after) as Record<string, unknown>[];
        if (rows.length === 0) break;
        for (const row of rows) {
          after = Number(row.agentctl_rowid);
          const values = columns.map((column) => {
            const value = row[column];
            if (value === null || value === undefined) return null;
            rewritten += 1;
            // A test-only crash point (AGENTCTL_TEST_ENCRYPTION_KILL_AFTER): the rewrite dies half done.
            if (killAfter !== undefined && rewritten > killAfter) process.kill(process.pid, 'SIGKILL');
            return change(`${table}.${column}` as ProtectedColumn, String(value));
          });
          if (values.some((value) => value !== null)) update.run(...values, after);
        }
      }
    }
  }
}

function opens(protection: StateProtection, column: string, value: string): boolean {
  try {
    protection.open(column, value);
    return true;
  } catch {
    return false;
  }
}
