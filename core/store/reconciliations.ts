// The reconciliations part of the ledger: operators' accounts of effects in doubt and the compensations that undid
// effects, appended with their audit events and never rewritten.
import { AgentctlError, type JsonValue } from '@agentctl/sdk';
import type { CompensationClaims } from './claims.js';
import type { RunDrive } from './doubt.js';
import type { EffectLedger } from './effects.js';
import { now, preparedOnce, type LedgerCore } from './ledger-core.js';
import type { ReconciliationRow, Row, RunRow, EffectRow } from './rows.js';

/** An operator's account of an effect in doubt, as `effects reconcile` records it. */
export interface ReconciliationEntry {
  readonly outcome: 'applied' | 'not_applied' | 'compensated';
  readonly reason: string;
  readonly actor: string;
  readonly result?: JsonValue;
  /** With `compensated`: the effect of the same run that undid it. */
  readonly compensationEffectId?: string;
  /** What backs the account (`evidence`, `resultSchema`, `authorization`): kept in its audit event. */
  readonly account?: Readonly<Record<string, JsonValue>>;
}

export class ReconciliationLedger {
  readonly #core: LedgerCore;
  readonly #effects: EffectLedger;
  readonly #claims: CompensationClaims;
  readonly #statements;

  constructor(core: LedgerCore, effects: EffectLedger, claims: CompensationClaims) {
    this.#core = core;
    this.#effects = effects;
    this.#claims = claims;
    this.#statements = preparedOnce(core.db, {
      byEffect: `SELECT * FROM reconciliations WHERE effect_id = ? ORDER BY seq`,
      run: `SELECT * FROM runs WHERE id = ?`,
      insert: `INSERT INTO reconciliations (effect_id, outcome, reason, actor, created_at, result_json, compensation_effect_id) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      byRun: `SELECT r.* FROM reconciliations r JOIN effects e ON e.id = r.effect_id WHERE e.run_id = ? ORDER BY r.seq`,
      latestOutcome: `SELECT outcome FROM reconciliations WHERE effect_id = ? ORDER BY seq DESC LIMIT 1`,
      insertCompensated: `
      INSERT INTO reconciliations (effect_id, outcome, reason, actor, created_at, compensation_run_id, compensation_task_id, compensation_effect_id)
      VALUES (?, 'compensated', ?, 'agentctl', ?, ?, ?, ?)`,
    });
  }

  reconciliationRows(effectId: string): ReconciliationRow[] {
    return this.#core.read(() => this.#core.openedAll('reconciliations', this.#statements.byEffect.all(effectId) as ReconciliationRow[]));
  }

  /** Appends an operator's account of an effect in doubt; `check` refuses contradictions against the earlier rows. */
  reconcileEffect(effectId: string, entry: ReconciliationEntry, check: (effect: EffectRow, earlier: Row[], run: RunDrive) => void, isLive: (row: RunRow) => boolean): number {
    const core = this.#core;
    return core.transaction(() => {
      const effect = this.#effects.row(effectId);
      if (!effect) throw new AgentctlError('AGENTCTL_E_EFFECT_NOT_FOUND', `effect ${effectId} does not exist in this database`, { help: 'list effects with `agentctl effects list RUN`' });
      const earlier = core.openedAll('reconciliations', this.#statements.byEffect.all(effectId) as ReconciliationRow[]);
      const run = core.opened('runs', this.#statements.run.get(effect.run_id) as RunRow);
      check(effect, earlier, { state: run.state, live: isLive(run) });
      const { lastInsertRowid } = this.#statements.insert.run(effectId, entry.outcome, core.sealText('reconciliations.reason', entry.reason), core.text(entry.actor), now(), core.sealJson('reconciliations.result_json', entry.result), entry.compensationEffectId ?? null);
      // The evidence, result schema and authorization have no column: the audit event of the reconciliation keeps them.
      const data = { outcome: entry.outcome, actor: entry.actor, reason: entry.reason, ...(entry.compensationEffectId === undefined ? {} : { compensationEffectId: entry.compensationEffectId }), ...entry.account };
      core.audit(effect.run_id, { type: 'effect.reconciled', taskId: effect.task_id, effectId, data });
      // An inverse in doubt that did not happen after all releases the claim of its ended compensation run.
      if (entry.outcome === 'not_applied') this.#claims.release(effect.run_id, now());
      return Number(lastInsertRowid);
    });
  }

  /** Every reconciliation of a run's effects, oldest first. */
  runReconciliations(runId: string): ReconciliationRow[] {
    return this.#core.read(() => this.#core.openedAll('reconciliations', this.#statements.byRun.all(runId) as ReconciliationRow[]));
  }

  /** The latest reconciliation of each effect of a run, keyed by effect id. */
  latestReconciliations(runId: string): Map<string, ReconciliationRow> {
    const rows = this.runReconciliations(runId);
    return new Map(rows.map((row) => [String(row.effect_id), row]));
  }

  /**
   * Appends a `compensated` reconciliation to each source effect a compensation task undid, linking the compensation
   * run, task and effect; call inside the transaction that records the compensation task's success. An effect
   * already reconciled `compensated` is left as it is.
   */
  recordCompensation(compensation: { runId: string; taskId: string; effectId: string | null }, sourceEffectIds: readonly string[]): void {
    const core = this.#core;
    for (const effectId of sourceEffectIds) {
      const effect = this.#effects.row(effectId);
      if (!effect || (this.#statements.latestOutcome.get(effectId) as { outcome: string } | undefined)?.outcome === 'compensated') continue;
      const reason = `compensated by task ${compensation.taskId} of run ${compensation.runId}`;
      this.#statements.insertCompensated.run(effectId, core.sealText('reconciliations.reason', reason), now(), compensation.runId, core.text(compensation.taskId), compensation.effectId);
      const data = { outcome: 'compensated', actor: 'agentctl', reason, compensationRunId: compensation.runId, compensationTaskId: compensation.taskId, compensationEffectId: compensation.effectId };
      core.audit(effect.run_id, { type: 'effect.reconciled', taskId: effect.task_id, effectId, data });
      core.audit(compensation.runId, { type: 'effect.compensated', taskId: compensation.taskId, effectId, data: { sourceRunId: effect.run_id, sourceTaskId: effect.task_id, compensationEffectId: compensation.effectId } });
    }
  }
}
