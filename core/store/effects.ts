// The effects part of the ledger: an effect's intent recorded (synced) before it is dispatched, then its outcome.
import type { EffectProfile, EffectState, JsonValue } from '@agentctl/sdk';
import { isLargeValue } from './garbage.js';
import { groupCommit } from './group-commit.js';
import { guardedStatements, now, preparedOnce, type LedgerCore } from './ledger-core.js';
import { outputDigestOf } from './lineage.js';
import type { EffectRow, UsageRow } from './rows.js';
import { EFFECT_TRANSITIONS, illegalTransition } from './transitions.js';

export interface NewEffect {
  readonly id: string;
  readonly runId: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly ordinal: number;
  readonly kind: string;
  readonly operation: string;
  readonly profile: EffectProfile;
  readonly input: JsonValue;
  readonly inputDigest: string;
  /** `JSON.stringify(input)`, when the caller has it without serializing the input again (the agent loop does). */
  readonly inputJson?: string;
}

/** The effect whose recorded result a task output is, unchanged, and that result's digest. */
/** What an effect's new state records: its result or error, and the facts its audit event carries. */
export interface EffectUpdate {
  readonly result?: JsonValue;
  readonly error?: JsonValue;
  readonly taskId?: string;
  /** The audit event's data (e.g. the operation, and the code of a failure). */
  readonly facts?: Record<string, JsonValue>;
}

export interface RecordedResult {
  readonly effectId: string;
  readonly digest: string;
}

export class EffectLedger {
  readonly #core: LedgerCore;
  /**
   * Succeeded effect results as recorded: object → the effect whose result_json is its JSON, the redactor's
   * generation and the object's members then. A task whose output is that very object, unchanged, copies the column
   * inside SQLite instead of serializing it a second time (a 16 MiB process output would otherwise be stringified,
   * redacted and copied into the binding twice). Only objects of scalars qualify: their members say they are unchanged.
   */
  readonly #recordedResults = new WeakMap<object, RecordedResult & { redactions: number; members: unknown[] }>();
  readonly #durable: <T>(body: () => T) => T;
  readonly #soon: (body: () => void) => Promise<void>;
  readonly #statements;
  readonly #update;

  /** `durable` is the facade's durable transaction: every intent's sync goes through it. */
  constructor(core: LedgerCore, durable: <T>(body: () => T) => T) {
    this.#core = core;
    this.#durable = durable;
    this.#soon = groupCommit(durable, (commit) => core.syncedOffThread(commit));
    this.#statements = preparedOnce(core.db, {
      select: `SELECT * FROM effects WHERE id = ?`,
      attemptHasEffects: `SELECT 1 FROM effects WHERE run_id = ? AND task_id = ? AND attempt = ? LIMIT 1`,
      insert: `
        INSERT INTO effects (id, run_id, task_id, attempt, ordinal, kind, operation, effect_class, risk, idempotency,
          input_json, input_digest, state, requested_at, updated_at)
        VALUES (@id, @runId, @taskId, @attempt, @ordinal, @kind, @operation, @effectClass, @risk, @idempotency,
          @input, @inputDigest, @state, @at, @at)`,
      byRun: `SELECT * FROM effects WHERE run_id = ? ORDER BY requested_at, task_id, attempt, ordinal`,
      usage: `SELECT operation, state, CASE WHEN operation = 'model.request' AND state = 'succeeded' THEN result_json END AS result_json FROM effects WHERE run_id = ?`,
    });
    this.#update = guardedStatements<EffectState>(
      core.db,
      (from) => `
        UPDATE effects SET state = @state, result_json = COALESCE(@result, result_json), error_json = COALESCE(@error, error_json),
          started_at = CASE WHEN @state = 'started' THEN @at ELSE started_at END,
          finished_at = CASE WHEN @state IN ('succeeded','failed','uncertain','cancelled') THEN @at ELSE finished_at END,
          updated_at = @at WHERE id = @id AND state IN (${from})`,
      EFFECT_TRANSITIONS,
    );
  }

  /** The effect's row, read inside the caller's transaction (no read wrapper). */
  row(id: string): EffectRow | undefined {
    return this.#core.opened('effects', this.#statements.select.get(id) as EffectRow | undefined);
  }

  effect(id: string): EffectRow | undefined {
    return this.#core.read(() => this.row(id));
  }

  /** Whether a task attempt has recorded any effect. */
  attemptHasEffects(runId: string, taskId: string, attempt: number): boolean {
    return this.#core.read(() => this.#statements.attemptHasEffects.get(runId, taskId, attempt) !== undefined);
  }

  /** Records an effect before it is dispatched, synced to disk. */
  recordEffect(effect: NewEffect, state: 'requested' | 'waiting_for_approval', extra?: () => void): void {
    this.#durable(() => this.#insert(effect, state, extra));
  }

  /**
   * Records an effect intent, synced to disk, with the intents other tasks asked for in the same turn of the event
   * loop (group-commit.ts). The promise settles once that commit is synced (off the main thread), so
   * every intent is durable before its own dispatch; an intent whose rows are refused fails alone.
   */
  recordEffectSoon(effect: NewEffect, extra?: () => void): Promise<void> {
    return this.#soon(() => this.#insert(effect, 'requested', extra));
  }

  #insert(effect: NewEffect, state: 'requested' | 'waiting_for_approval', extra?: () => void): void {
    const core = this.#core;
    this.#statements.insert.run({
      id: effect.id,
      runId: effect.runId,
      taskId: effect.taskId,
      attempt: effect.attempt,
      ordinal: effect.ordinal,
      kind: effect.kind,
      operation: core.text(effect.operation),
      effectClass: effect.profile.effectClass,
      risk: effect.profile.risk,
      idempotency: effect.profile.idempotency,
      input: core.seal('effects.input_json', effect.inputJson !== undefined && core.redactions() === 0 && !isLargeValue(effect.input) ? effect.inputJson : core.json(effect.input)),
      inputDigest: effect.inputDigest,
      state,
      at: now(),
    });
    // After `extra`: the task becomes running (and an approval is asked) before its effect is requested.
    extra?.();
    core.audit(effect.runId, { type: `effect.${state}`, taskId: effect.taskId, effectId: effect.id, data: { operation: effect.operation } });
  }

  /** `facts` are the audit event's data (e.g. the operation, and the code of a failure). */
  updateEffect(runId: string, effectId: string, state: EffectState, update: EffectUpdate = {}): void {
    const core = this.#core;
    const redactions = core.redactions();
    const result = core.json(update.result);
    core.transaction(() => {
      this.change(effectId, state, { result: core.seal('effects.result_json', result), error: core.sealJson('effects.error_json', update.error), at: now() });
      core.audit(runId, { type: `effect.${state}`, effectId, ...(update.taskId ? { taskId: update.taskId } : {}), ...(update.facts ? { data: update.facts } : {}) });
    });
    const members = state === 'succeeded' && result !== null ? scalarMembers(update.result) : undefined;
    // The digest the task row records if its output is this result, taken while the text is at hand.
    if (members) this.#recordedResults.set(update.result as object, { effectId, digest: outputDigestOf(result!), redactions, members });
  }

  /** The approved effect goes back to `requested` with the task's first record; call inside a transaction. */
  releaseApprovedEffect(runId: string, effectId: string, taskId: string, operation: string): void {
    this.change(effectId, 'requested', { result: null, error: null, at: now() });
    this.#core.audit(runId, { type: 'effect.requested', taskId, effectId, data: { approved: true, operation } });
  }

  /** The effect whose recorded result is exactly the JSON `value` would be written as now, if there is one. */
  recordedResult(value: JsonValue | undefined): RecordedResult | null {
    const recorded = typeof value === 'object' && value !== null ? this.#recordedResults.get(value) : undefined;
    if (!recorded || recorded.redactions !== this.#core.redactions()) return null;
    const members = scalarMembers(value);
    const same = members !== undefined && members.length === recorded.members.length && members.every((member, index) => member === recorded.members[index]);
    return same ? recorded : null;
  }

  /** Moves an effect to `state` through the transition table, without an audit event; call inside a transaction. */
  change(id: string, state: EffectState, values: { result: string | null; error: string | null; at: string }): void {
    const { changes } = this.#update(state).run({ id, state, ...values });
    if (changes !== 1) throw illegalTransition('effect', id, this.effect(id)?.state, state);
  }

  effectRows(runId: string): EffectRow[] {
    return this.#core.read(() => this.#core.openedAll('effects', this.#statements.byRun.all(runId) as EffectRow[]));
  }

  /** What modelUsage reads of a run's effects: operation and state, and the recorded response of each model turn. */
  usageRows(runId: string): UsageRow[] {
    return this.#core.read(() => this.#core.openedAll('effects', this.#statements.usage.all(runId) as UsageRow[]));
  }
}

/** Keys and values, in order, of an object or array whose members are all scalars; otherwise undefined. */
function scalarMembers(value: JsonValue | undefined): unknown[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const members: unknown[] = [];
  for (const [key, member] of Object.entries(value)) {
    if (typeof member === 'object' && member !== null) return undefined;
    members.push(key, member);
  }
  return members;
}
