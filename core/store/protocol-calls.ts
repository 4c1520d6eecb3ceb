// The protocol part of the ledger: what a protocol client committed about an effect while performing it (the remote
// identity of the call, e.g. a remote task id) and the sessions it opened. A `started` effect whose call has a remote
// id is continued by observing that remote work, never by sending it again (docs/recovery.md).
import type { ContinuedCall, ProtocolCall } from '@agentctl/sdk';
import { parser } from './json-column.js';
import { now, preparedOnce, type LedgerCore } from './ledger-core.js';
import type { Row } from './rows.js';

/** One checkpoint of a protocol call, as the effect's `perform` commits it, with the attempt that made it. */
export interface ProtocolCallEntry extends ProtocolCall {
  readonly effectId: string;
  readonly runId: string;
  readonly taskId: string;
  readonly attempt: number;
}

/** A protocol call as recorded. */
export interface ProtocolCallRow {
  readonly effect_id: string;
  readonly run_id: string;
  readonly task_id: string;
  readonly attempt: number;
  readonly protocol: string;
  readonly operation: string;
  readonly call_identity: string;
  readonly generation: number;
  readonly remote_id: string | null;
  readonly state_json: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export class ProtocolCallLedger {
  readonly #core: LedgerCore;
  readonly #statements;

  constructor(core: LedgerCore) {
    this.#core = core;
    this.#statements = preparedOnce(core.db, {
      upsert: `INSERT INTO protocol_calls (effect_id, run_id, task_id, attempt, protocol, operation, call_identity, generation, remote_id, state_json, created_at, updated_at)
        VALUES (@effectId, @runId, @taskId, @attempt, @protocol, @operation, @callIdentity, 1, @remoteId, @state, @at, @at)
        ON CONFLICT (effect_id) DO UPDATE SET remote_id = COALESCE(excluded.remote_id, remote_id), state_json = excluded.state_json, updated_at = excluded.updated_at`,
      takenUp: `UPDATE protocol_calls SET generation = generation + 1, updated_at = ? WHERE effect_id = ?`,
      session: `INSERT INTO protocol_sessions (run_id, task_id, protocol, endpoint, state_json, updated_at) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (run_id, task_id, protocol, endpoint) DO UPDATE SET state_json = excluded.state_json, updated_at = excluded.updated_at`,
      byEffect: `SELECT * FROM protocol_calls WHERE effect_id = ?`,
      byRun: `SELECT * FROM protocol_calls WHERE run_id = ? ORDER BY created_at, effect_id`,
      sessionsByRun: `SELECT * FROM protocol_sessions WHERE run_id = ? ORDER BY updated_at, task_id, protocol, endpoint`,
    });
  }

  /** Commits the checkpoint and syncs it before returning: a process that dies after this continues from it. */
  record(entry: ProtocolCallEntry): void {
    const core = this.#core;
    core.durableTransaction(() => {
      const at = now();
      this.#statements.upsert.run({
        effectId: entry.effectId,
        runId: entry.runId,
        taskId: entry.taskId,
        attempt: entry.attempt,
        protocol: core.text(entry.protocol),
        operation: core.text(entry.operation),
        callIdentity: core.text(entry.callIdentity),
        remoteId: entry.remoteId === undefined ? null : core.text(entry.remoteId),
        state: core.sealJson('protocol_calls.state_json', entry.state),
        at,
      });
      if (entry.session) this.#statements.session.run(entry.runId, entry.taskId, core.text(entry.protocol), core.text(entry.session.endpoint), core.sealJson('protocol_sessions.state_json', entry.session.state), at);
      core.audit(entry.runId, { type: 'protocol.call_recorded', taskId: entry.taskId, effectId: entry.effectId, data: { protocol: entry.protocol, operation: entry.operation, remoteId: entry.remoteId ?? null } });
    });
  }

  /** A later process takes the call up (call inside its transaction): the call's generation counts the processes. */
  takenUp(effectId: string): void {
    this.#statements.takenUp.run(now(), effectId);
  }

  /** The call as a later process continues it: its remote id and parsed state; undefined without a remote id. */
  continuation(effectId: string): ContinuedCall | undefined {
    const call = this.call(effectId);
    if (call?.remote_id == null) return undefined;
    const state = parser(call.run_id)('protocol_calls', 'state_json', call as unknown as Row, `protocol call of ${effectId}`);
    return { protocol: call.protocol, operation: call.operation, callIdentity: call.call_identity, remoteId: call.remote_id, state };
  }

  call(effectId: string): ProtocolCallRow | undefined {
    return this.#core.read(() => this.#core.opened('protocol_calls', this.#statements.byEffect.get(effectId) as ProtocolCallRow | undefined));
  }

  callRows(runId: string): ProtocolCallRow[] {
    return this.#core.read(() => this.#core.openedAll('protocol_calls', this.#statements.byRun.all(runId) as ProtocolCallRow[]));
  }

  sessionRows(runId: string): Row[] {
    return this.#core.read(() => this.#core.openedAll('protocol_sessions', this.#statements.sessionsByRun.all(runId) as Row[]));
  }
}
