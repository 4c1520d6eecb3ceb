// The run budget ledger: reservations of worst-case amounts before an effect, reconciled to actual use after it.
// Generic on purpose: a dimension is any string, so a new kind of usage needs no schema change.
import type { SqliteDatabase } from './database.js';
import { preparedOnce } from './ledger-core.js';

/** Amounts by dimension, e.g. `{ processOutputBytes: 2097152 }`. */
export type Amounts = Readonly<Record<string, number>>;

/** Why a reservation was refused: the first dimension it would take over its limit. */
export interface BudgetDenial {
  readonly dimension: string;
  readonly limit: number;
  /** Consumed by settled reservations. */
  readonly used: number;
  /** Held by active reservations. */
  readonly reserved: number;
  readonly requested: number;
}

/** Consumed and actively reserved amounts of one dimension of a run. */
export interface DimensionUsage {
  readonly used: number;
  readonly reserved: number;
}

export interface ReservationRow {
  readonly key: string;
  readonly dimension: string;
  readonly reserved: number;
  readonly used: number | null;
  readonly state: 'active' | 'consumed' | 'released';
  readonly createdAt: string;
}

const now = () => new Date().toISOString();

/**
 * Reads and writes `budget_reservations`. `reserve` reads usage and active reservations and inserts the new rows in
 * one IMMEDIATE transaction (or inside the caller's), so no two dispatches, in this process or another, can both take
 * the same remaining unit. Every write is keyed by run, reservation key and dimension, so repeating one (a resumed
 * task reproducing its effect ids) changes nothing.
 */
export class BudgetLedger {
  readonly #transaction: <T>(body: () => T) => T;
  readonly #statements;

  constructor(db: SqliteDatabase, transaction: <T>(body: () => T) => T) {
    this.#transaction = transaction;
    this.#statements = preparedOnce(db, {
      existing: `SELECT dimension FROM budget_reservations WHERE run_id = ? AND reservation_key = ?`,
      totals: `SELECT COALESCE(SUM(CASE WHEN state = 'consumed' THEN used ELSE 0 END), 0) AS used,
                COALESCE(SUM(CASE WHEN state = 'active' THEN reserved ELSE 0 END), 0) AS reserved
         FROM budget_reservations WHERE run_id = ? AND dimension = ?`,
      insert: `INSERT INTO budget_reservations (run_id, reservation_key, dimension, reserved, used, state, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, 'active', ?, ?)`,
      settle: `UPDATE budget_reservations SET state = 'consumed', used = ?, updated_at = ? WHERE run_id = ? AND reservation_key = ? AND dimension = ? AND state = 'active'`,
      release: `UPDATE budget_reservations SET state = 'released', used = 0, updated_at = ? WHERE run_id = ? AND reservation_key = ? AND state = 'active'`,
      byRun: `SELECT dimension, COALESCE(SUM(CASE WHEN state = 'consumed' THEN used ELSE 0 END), 0) AS used, COALESCE(SUM(CASE WHEN state = 'active' THEN reserved ELSE 0 END), 0) AS reserved FROM budget_reservations WHERE run_id = ? GROUP BY dimension ORDER BY dimension`,
      active: `SELECT reservation_key AS key, dimension, reserved, used, state, created_at AS createdAt FROM budget_reservations WHERE run_id = ? AND state = 'active' ORDER BY created_at, reservation_key, dimension`,
    });
  }

  /**
   * Reserves `amounts` under `key`, only in the dimensions `limits` names. All or nothing: when one dimension would go
   * over its limit, nothing is written and the denial says which. A dimension already reserved under this key (in any
   * state) is not counted again.
   */
  reserve(runId: string, key: string, amounts: Amounts, limits: Amounts): BudgetDenial | undefined {
    return this.#transaction(() => {
      const done = new Set((this.#statements.existing.all(runId, key) as { dimension: string }[]).map((row) => row.dimension));
      const fresh = Object.entries(amounts).filter(([dimension]) => limits[dimension] !== undefined && !done.has(dimension));
      for (const [dimension, requested] of fresh) {
        const limit = limits[dimension]!;
        const { used, reserved } = this.#statements.totals.get(runId, dimension) as DimensionUsage;
        if (used + reserved + requested > limit) return { dimension, limit, used, reserved, requested };
      }
      const at = now();
      for (const [dimension, requested] of fresh) this.#statements.insert.run(runId, key, dimension, requested, at, at);
      return undefined;
    });
  }

  /** Replaces the active reservations of `key` by actual use; a dimension `actual` does not name used nothing. */
  settle(runId: string, key: string, actual: Amounts): void {
    this.#transaction(() => {
      const at = now();
      for (const { dimension } of this.#statements.existing.all(runId, key) as { dimension: string }[]) {
        this.#statements.settle.run(Math.max(0, Math.ceil(actual[dimension] ?? 0)), at, runId, key, dimension);
      }
    });
  }

  /** Gives back the active reservations of `key` unused (the work it reserved for never happened). */
  release(runId: string, key: string): void {
    this.#transaction(() => void this.#statements.release.run(now(), runId, key));
  }

  /** Consumed and reserved amounts of every dimension the run has reserved in. */
  usage(runId: string): Record<string, DimensionUsage> {
    const rows = this.#statements.byRun.all(runId) as (DimensionUsage & { dimension: string })[];
    return Object.fromEntries(rows.map((row) => [row.dimension, { used: row.used, reserved: row.reserved }]));
  }

  /** The run's active reservations. */
  activeReservations(runId: string): ReservationRow[] {
    return this.#statements.active.all(runId) as ReservationRow[];
  }
}
