// The ledger's rows in the shapes the reference implementation prints them (`inspect`, `effects ...`, `approvals
// ...`), each with agentctl's own fields beside them. The reference's field names keep the reference's types; where
// agentctl's record is richer under the same name (an error object), agentctl's value moves to a field of its own.
import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '@agentctl/sdk';
import { mayHaveHappened, type RunDrive } from './doubt.js';
import type { ColumnParser } from './json-column.js';
import type { Row } from './rows.js';
import type { ProtocolCallRow } from './protocol-calls.js';

type Parse = ColumnParser;

/** The version of these record shapes, as the reference numbers its own (`formatVersion`). */
const FORMAT_VERSION = 1;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A recorded error object as the reference's `error` string: its message (null when there is no error). */
export function errorText(error: JsonValue): string | null {
  if (error === null || error === undefined) return null;
  if (typeof error === 'object' && !Array.isArray(error) && typeof error.message === 'string') return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** What the run lends each of its records: its trace and whether anybody drives it. */
export interface RunContext {
  readonly traceId: string;
  readonly drive: RunDrive;
}

/**
 * One effect: the reference's EffectRecord (`request`, `status`, `result`, `error`, ...) and agentctl's flat view.
 * In doubt: it may or may not have happened (doubt.ts) and no operator has reconciled it.
 */
export function effectRecord(effect: Row, run: RunContext, reconciled: string | null, parse: Parse) {
  const key = `effect ${String(effect.id)}`;
  const state = String(effect.state);
  const input = parse('effects', 'input_json', effect, key);
  const failure = parse('effects', 'error_json', effect, key);
  return {
    request: {
      formatVersion: FORMAT_VERSION,
      id: effect.id,
      runId: effect.run_id,
      taskId: effect.task_id,
      attempt: effect.attempt,
      ordinal: effect.ordinal,
      operation: effect.operation,
      effectClass: effect.effect_class,
      risk: effect.risk,
      idempotency: effect.idempotency,
      // The id is derived from run, task, attempt, ordinal, operation and input: it is the effect's idempotency key.
      idempotencyKey: effect.id,
      inputDigest: effect.input_digest,
      input,
      // agentctl records no expected-effect text: the effect class says what kind of change it makes.
      expectedEffect: effect.effect_class,
      traceId: run.traceId,
    },
    status: state,
    // An effect id is dispatched at most once: a repeat is a new task attempt with new ids.
    attemptNumber: effect.started_at === null ? 0 : 1,
    requestedAt: effect.requested_at,
    startedAt: effect.started_at,
    completedAt: effect.finished_at,
    result: parse('effects', 'result_json', effect, key),
    error: errorText(failure),
    confirmed: state === 'succeeded' || reconciled === 'applied',
    effectId: effect.id,
    runId: effect.run_id,
    taskId: effect.task_id,
    attempt: effect.attempt,
    ordinal: effect.ordinal,
    kind: effect.kind,
    operation: effect.operation,
    effectClass: effect.effect_class,
    risk: effect.risk,
    idempotency: effect.idempotency,
    state,
    inDoubt: mayHaveHappened(effect, run.drive) && reconciled === null,
    reconciled,
    input,
    inputDigest: effect.input_digest,
    failure,
    finishedAt: effect.finished_at,
  };
}

export type EffectRecord = ReturnType<typeof effectRecord>;

/** The data of each `effect.reconciled` audit event, by effect id, oldest first: it holds what backs each account. */
export function reconciliationAccounts(audit: readonly Row[], parse: Parse): Map<string, JsonObject[]> {
  const accounts = new Map<string, JsonObject[]>();
  for (const event of audit) {
    if (event.type !== 'effect.reconciled' || typeof event.effect_id !== 'string') continue;
    const data = parse('audit_events', 'data_json', event, `audit event ${String(event.seq)}`) as JsonObject;
    accounts.set(event.effect_id, [...(accounts.get(event.effect_id) ?? []), data]);
  }
  return accounts;
}

/**
 * The reconciliations of a run's effects as the reference's EffectReconciliationRecords, oldest first. Each row and
 * its audit event are written in one transaction, so the n-th row of an effect goes with its n-th event.
 */
export function reconciliationRecords(rows: readonly Row[], run: RunContext & { readonly runId: string }, accounts: Map<string, JsonObject[]>, parse: Parse) {
  const seen = new Map<string, { id: string; count: number }>();
  return rows.map((row) => {
    const effectId = String(row.effect_id);
    const earlier = seen.get(effectId);
    const id = `rcn_${String(row.seq)}`;
    const position = earlier?.count ?? 0;
    const account = accounts.get(effectId)?.[position] ?? {};
    seen.set(effectId, { id, count: position + 1 });
    const byCompensation = row.compensation_run_id !== null && row.compensation_run_id !== undefined;
    const evidence: JsonValue = account.evidence ?? (byCompensation ? { kind: 'compensation_run', runId: row.compensation_run_id as string, taskId: row.compensation_task_id as string } : { kind: 'operator_statement', statement: String(row.reason) });
    return {
      reconciliationId: id,
      effectId,
      runId: run.runId,
      formatVersion: FORMAT_VERSION,
      status: row.outcome,
      actor: row.actor,
      reason: row.reason,
      evidence,
      result: parse('reconciliations', 'result_json', row, `reconciliation ${String(row.seq)}`),
      resultSchema: account.resultSchema ?? null,
      authorization: account.authorization ?? { kind: byCompensation ? 'compensation_run' : 'operator', actor: String(row.actor), explicitApproval: false },
      compensationEffectId: row.compensation_effect_id ?? null,
      supersedesId: earlier?.id ?? null,
      traceId: run.traceId,
      createdAt: row.created_at,
      seq: row.seq,
      outcome: row.outcome,
      compensationRunId: row.compensation_run_id ?? null,
      compensationTaskId: row.compensation_task_id ?? null,
      at: row.created_at,
    };
  });
}

export type ReconciliationRecord = ReturnType<typeof reconciliationRecords>[number];

/** An approval as the reference's ApprovalRequest (`tool`, `capability`, `redactedInput`, ...) and agentctl's fields. */
export function approvalRecord(row: Row, effect: Row | undefined, traceId: string, parse: Parse) {
  const input = effect ? parse('effects', 'input_json', effect, `effect ${String(effect.id)}`) : null;
  const fields = typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
  const operation = effect?.operation ?? null;
  return {
    approvalId: row.id,
    runId: row.run_id,
    effectId: row.effect_id,
    taskId: row.task_id,
    agent: typeof fields.agent === 'string' ? fields.agent : null,
    // A tool call is approved as its tool; any other effect as its operation (what policy's toolsAllow names).
    tool: typeof fields.tool === 'string' ? fields.tool : operation,
    capability: operation,
    risk: effect?.risk ?? null,
    redactedInput: input,
    expectedEffect: effect?.effect_class ?? null,
    reason: row.reason,
    traceId,
    requestedAt: row.requested_at,
    status: row.state,
    state: row.state,
    operation,
    input,
    actor: row.actor,
    decisionReason: row.decision_reason,
    decidedAt: row.decided_at,
  };
}

/** A checkpoint as the reference prints it; agentctl keeps no checksum column, so it is the state's SHA-256 here. */
export function checkpointRecord(row: Row, parse: Parse) {
  return {
    sequence: row.seq,
    formatVersion: FORMAT_VERSION,
    state: parse('checkpoints', 'state_json', row, `checkpoint ${String(row.seq)}`),
    checksum: sha256(String(row.state_json)),
    createdAt: row.at,
    taskId: row.task_id,
  };
}

/** Tool calls: the `tool.call` effects, as the reference's ToolCallRecords. */
export function toolCallRecords(effects: readonly EffectRecord[]) {
  return effects
    .filter((effect) => effect.operation === 'tool.call')
    .map((effect) => {
      const input = objectOf(effect.input);
      return {
        callId: typeof input.callId === 'string' ? input.callId : effect.effectId,
        taskId: effect.taskId,
        effectId: effect.effectId,
        toolId: typeof input.tool === 'string' ? input.tool : null,
        inputDigest: effect.inputDigest,
        outputDigest: effect.result === null ? null : sha256(JSON.stringify(effect.result)),
        status: effect.state,
        createdAt: effect.requestedAt,
        completedAt: effect.completedAt,
      };
    });
}

/** Provider sessions: one per task and provider its agent spoke to, from the task's `model.request` effects (its turns). */
export function providerSessionRecords(effects: readonly EffectRecord[]) {
  const sessions = new Map<string, { taskId: unknown; provider: string; agent: string | null; kind: string | null; turns: JsonObject[]; updatedAt: unknown }>();
  for (const effect of effects) {
    if (effect.operation !== 'model.request') continue;
    const input = objectOf(effect.input);
    const provider = String(input.provider ?? '');
    const key = JSON.stringify([effect.taskId, provider]);
    const session = sessions.get(key) ?? { taskId: effect.taskId, provider, agent: typeof input.agent === 'string' ? input.agent : null, kind: typeof input.kind === 'string' ? input.kind : null, turns: [], updatedAt: null };
    session.turns.push({ effectId: String(effect.effectId), turn: input.turn ?? null, attempt: input.attempt ?? null, status: effect.state });
    session.updatedAt = effect.completedAt ?? effect.startedAt ?? effect.requestedAt;
    sessions.set(key, session);
  }
  return [...sessions.values()].map((session) => ({
    taskId: session.taskId,
    provider: session.provider,
    formatVersion: FORMAT_VERSION,
    // agentctl continues a conversation from its recorded turns: the continuation is the list of them.
    continuation: { agent: session.agent, kind: session.kind, turns: session.turns },
    updatedAt: session.updatedAt,
  }));
}

/** The protocols whose calls are effects named `<protocol>.<operation>` (a protocol name, not an action kind). */
const PROTOCOLS = ['mcp', 'a2a'];

/** What a protocol client committed about an effect while performing it (protocol-calls.ts), by effect id. */
export type ProtocolCallRows = ReadonlyMap<string, ProtocolCallRow>;

/** Protocol calls: the effects of a protocol client, as the reference's ProtocolCallRecords. */
export function protocolCallRecords(effects: readonly EffectRecord[], calls: ProtocolCallRows = new Map(), parse?: ColumnParser) {
  return effects.flatMap((effect) => {
    const protocol = String(effect.operation).split('.')[0]!;
    return PROTOCOLS.includes(protocol) ? [protocolCallRecord(effect, protocol, calls.get(String(effect.effectId)), parse)] : [];
  });
}

/**
 * One protocol call. With a committed call record, its identity, generation, remote id and protocol state are the
 * record's; without one (a call that never committed any), the call is the effect and its state the recorded input.
 */
export function protocolCallRecord(effect: EffectRecord, protocol: string, call?: ProtocolCallRow, parse?: ColumnParser) {
  const committed = call !== undefined && parse !== undefined;
  return {
    effectId: effect.effectId,
    runId: effect.runId,
    taskId: effect.taskId,
    taskAttempt: effect.attempt,
    protocol,
    operation: effect.operation,
    callIdentity: committed ? call.call_identity : effect.effectId,
    generation: committed ? call.generation : 1,
    idempotency: effect.idempotency,
    status: effect.state,
    formatVersion: FORMAT_VERSION,
    // What agentctl recorded of the call (secret header values are recorded as references and digests).
    state: committed ? { request: effect.input, protocolOperation: call.operation, call: parse('protocol_calls', 'state_json', call as unknown as Row, `protocol call of ${call.effect_id}`) } : effect.input,
    remoteId: committed ? call.remote_id : null,
    sourceRunId: null,
    sourceEffectId: null,
    updatedAt: committed ? call.updated_at : (effect.completedAt ?? effect.startedAt ?? effect.requestedAt),
  };
}

/** The protocol call an effect is, or null. */
export function protocolCallOf(effect: EffectRecord, call?: ProtocolCallRow, parse?: ColumnParser) {
  const protocol = String(effect.operation).split('.')[0]!;
  return PROTOCOLS.includes(protocol) ? protocolCallRecord(effect, protocol, call, parse) : null;
}

/** Protocol sessions: what a protocol client kept per task and endpoint (e.g. the interface it selected from a card). */
export function protocolSessionRecords(rows: readonly Row[], parse: ColumnParser) {
  return rows.map((row) => ({
    runId: row.run_id,
    taskId: row.task_id,
    protocol: row.protocol,
    endpoint: row.endpoint,
    formatVersion: FORMAT_VERSION,
    state: parse('protocol_sessions', 'state_json', row, `protocol session ${String(row.endpoint)}`),
    updatedAt: row.updated_at,
  }));
}

const objectOf = (value: unknown): JsonObject => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {});
