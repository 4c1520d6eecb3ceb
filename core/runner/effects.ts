// One effect's life: policy → (unchanged?) → approval → durable `requested` → `started` → outcome.
import { createHash } from 'node:crypto';
import { AgentctlError, canonicalJson, diagnostic, EffectFailure, errorMessage, isEffectFailure, type AnyErrorCode, type ContinuedCall, type EffectInterceptorInput, type EffectOptions, type EffectProfile, type EffectRequest, type JsonValue, type PerformedEffect, type PolicyRequest, type PolicyVerdict, type ProtocolCall, type ResolvedPolicy } from '@agentctl/sdk';
import type { Hooks } from '../hooks.js';
import type { Interception } from '../interceptors.js';
import type { ApprovalOverride, EffectCall, InputTexts } from './effect-call.js';
import { decidePolicy } from '../policy/engine.js';
import type { EffectRow, Store } from '../store/store.js';
import { isBudgetExceeded, type EffectBudget } from './budget.js';

/** Thrown when an effect waits for an operator: the task stops here and the run pauses. */
export class ApprovalPending extends AgentctlError {
  constructor(readonly approvalId: string, readonly effectId: string, reason: string) {
    super('AGENTCTL_E_APPROVAL_PENDING', `approval ${approvalId} is pending: ${reason}`, { help: 'an operator approves or rejects it, then the run is resumed' });
  }
}

/**
 * Thrown when an effect was performed but its outcome could not be written to the ledger. The run stops at once
 * (exit 5): the effect stays `started`, or becomes `uncertain` if the ledger still takes that, and its task is
 * neither succeeded nor failed. Nothing is dispatched after it.
 */
export class OutcomeNotRecorded extends AgentctlError {
  constructor(readonly effectId: string, taskId: string, operation: string, outcome: string, cause: unknown) {
    const message = `effect ${effectId} (${operation}) was performed and reported ${outcome}, but that could not be recorded: ${errorMessage(cause)}`;
    const help = 'the run stops and is left interrupted, with the effect in doubt (agentctl inspect RUN): check whether it took place before running the workflow again';
    super('AGENTCTL_E_OUTCOME_NOT_RECORDED', message, { cause, diagnostics: [diagnostic('AGENTCTL_E_OUTCOME_NOT_RECORDED', { message, help, taskId })] });
  }
}

/** What an operator at a terminal is asked, and answers. */
export interface ApprovalQuestion {
  readonly runId: string;
  readonly taskId: string;
  readonly operation: string;
  readonly reason: string;
  /** The recorded effect input, redacted. */
  readonly input: string;
}

export interface ApprovalAnswer {
  readonly approved: boolean;
  readonly actor: string;
  readonly reason: string;
}

/** Asks a person; present only when agentctl runs interactively. */
export type Approver = (question: ApprovalQuestion, signal: AbortSignal) => Promise<ApprovalAnswer>;

/**
 * The action an effect is performed for: its kind and profile are recorded and judged, its budget reserves, its
 * deadline bounds the work, and its kind's owner is named in what it throws. A task's own action is one; an action a
 * model runs through a tool is another, in the same task attempt.
 */
export interface EffectActor {
  readonly kind: string;
  readonly profile: EffectProfile;
  readonly signal: AbortSignal;
  /** What the kind's owner threw, as a known code naming the plugin and hook. */
  readonly normalize: (error: unknown) => AgentctlError;
  /** Reserves each fresh dispatch's worst case under the run budgets, and settles it to actual use; absent: no budget. */
  readonly budget?: EffectBudget;
}

export interface EffectScope {
  readonly hooks: Hooks;
  readonly store: Store;
  readonly runId: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly policy: ResolvedPolicy;
  readonly workspaceRoot: string;
  readonly redact: (text: string) => string;
  readonly approver?: Approver;
  /** Written in the same transaction as the task's first recorded effect (the task becomes `running`). */
  readonly firstRecord: () => void;
  /** Set when an outcome could not be recorded, even if the kind's code caught the error: the task must not go on. */
  readonly ledger: { lost?: OutcomeNotRecorded };
  /** The run's trace id and the host's composed interceptors, called around each perform. */
  readonly traceId: string;
  readonly interception: Interception;
}

/** The effects of one task attempt: one ordinal sequence and one ledger lookup, whichever action each is for. */
export interface EffectRunner {
  /** The `effect` function of a dispatch context: every effect it records is performed for `actor`. */
  actingFor(actor: EffectActor): EffectCall;
}

/** Canonical JSON: sorted keys, so equal inputs have equal digests. */
export { canonicalJson };

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function effectId(parts: { runId: string; taskId: string; attempt: number; ordinal: number; operation: string; inputDigest: string }): string {
  return `eff_${sha256(JSON.stringify([parts.runId, parts.taskId, parts.attempt, parts.ordinal, parts.operation, parts.inputDigest])).slice(0, 40)}`;
}

/** Inputs written by canonicalJson alone; the ledger's record is then JSON.stringify's. */
const CANONICAL: InputTexts = { text: canonicalJson };

/** Creates the effect runner of one task attempt. */
export function createEffectRunner(scope: EffectScope): EffectRunner {
  let ordinal = 0;
  // Whether the ledger held effects of this attempt before its first effect here (a resumed attempt). If it held none,
  // it holds only what this runner records, under ids no later effect can have (the ordinal is in the id): no lookups.
  let resumed: boolean | undefined;
  // Whether the task's first record (task `running`) was written in this attempt.
  const recorded_ = { value: false };
  const withFirstRecord = (extra?: () => void) => (): void => {
    if (!recorded_.value) scope.firstRecord();
    recorded_.value = true;
    extra?.();
  };
  return { actingFor: (actor) => (request, perform, options, approval, texts) => effect(actor, request, perform, options, approval, texts) };

  async function effect<T extends JsonValue>(
    actor: EffectActor,
    request: EffectRequest,
    perform: (signal: AbortSignal, effect: PerformedEffect) => Promise<T>,
    options: EffectOptions<T> = {},
    approval: ApprovalOverride = 'policy',
    texts: InputTexts = CANONICAL,
  ): Promise<T> {
    ordinal += 1;
    const profile: EffectProfile = { ...actor.profile, ...request.profile };
    const inputDigest = sha256(texts.text(request.input));
    const id = effectId({ runId: scope.runId, taskId: scope.taskId, attempt: scope.attempt, ordinal, operation: request.operation, inputDigest });

    const inputJson = texts.json?.(request.input);
    const record = { id, runId: scope.runId, taskId: scope.taskId, attempt: scope.attempt, ordinal, kind: actor.kind, operation: request.operation, profile, input: request.input, inputDigest, ...(inputJson === undefined ? {} : { inputJson }) };
    resumed ??= scope.store.attemptHasEffects(scope.runId, scope.taskId, scope.attempt);
    const existing = resumed ? scope.store.effect(id) : undefined;
    if (existing) {
      // A resumed task body reproduces its effect ids: the record decides, and nothing confirmed is dispatched again.
      const continued = continuedCall(scope, existing);
      if (continued) return start(actor, record, perform, continued);
      const recorded = recordedEffect(scope, existing);
      if ('value' in recorded) return recorded.value as T;
      if (actor.signal.aborted) throw new AgentctlError('AGENTCTL_E_CANCELLED', `${request.operation} was not started: the run was cancelled`);
      const release = recorded.approved ? () => scope.store.releaseApprovedEffect(scope.runId, id, scope.taskId, request.operation) : undefined;
      // A recorded effect not yet started is dispatched now: it reserves (once: the key is its id) like a fresh one.
      await reserving(actor, () => scope.store.durableTransaction(reserved(actor, id, request.operation, withFirstRecord(release))));
      return start(actor, record, perform);
    }

    const verdict = await decide(scope, actor.kind, request, profile, approval);
    if (verdict.decision === 'deny') {
      scope.store.transaction(() => scope.store.audit(scope.runId, { type: 'policy.denied', taskId: scope.taskId, data: { operation: request.operation, code: verdict.diagnostic.code, message: verdict.diagnostic.message } }));
      throw new AgentctlError(verdict.diagnostic.code, verdict.diagnostic.message, { diagnostics: [{ ...verdict.diagnostic, taskId: scope.taskId }] });
    }
    if (options.unchanged) {
      const unchanged = await options.unchanged();
      if (unchanged !== undefined) {
        scope.store.transaction(() => scope.store.audit(scope.runId, { type: 'effect.unchanged', taskId: scope.taskId, data: { operation: request.operation } }));
        return unchanged;
      }
    }
    let approved: (() => void) | undefined;
    if (verdict.decision === 'needs_approval') {
      if (!scope.approver) return requireApproval(scope, record, verdict.reason, withFirstRecord);
      approved = await askOperator(scope, actor.signal, record, verdict.reason);
    }

    // Nothing new starts once the run is cancelled or the task deadline passed.
    if (actor.signal.aborted) {
      const deadline = (actor.signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
      throw deadline
        ? new AgentctlError('AGENTCTL_E_TASK_TIMEOUT', `${request.operation} was not started: the task deadline passed`)
        : new AgentctlError('AGENTCTL_E_CANCELLED', `${request.operation} was not started: the run was cancelled`);
    }
    // Durable before dispatch; intents of tasks running side by side share one commit and one sync. The reservation
    // commits with the `requested` record, or neither does: a refused effect is never recorded.
    await reserving(actor, () => scope.store.recordEffectSoon(record, reserved(actor, id, request.operation, withFirstRecord(approved))));
    return start(actor, record, perform);
  }

  /** Runs `body` after reserving under the budget (in body's transaction). */
  function reserved(actor: EffectActor, effectId: string, operation: string, body: () => void): () => void {
    return () => {
      actor.budget?.reserve(effectId, operation);
      body();
    };
  }
  /** Runs the transaction `write`; a budget refusal that rolled it back is recorded, then rethrown. */
  async function reserving(actor: EffectActor, write: () => void | Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (actor.budget && isBudgetExceeded(error)) actor.budget.refused(error);
      throw error;
    }
  }

  /** `requested` is durable: the effect starts, runs, and its outcome is recorded. */
  async function start<T extends JsonValue>(
    actor: EffectActor,
    record: { id: string; operation: string; profile: EffectProfile; input?: JsonValue },
    perform: (signal: AbortSignal, effect: PerformedEffect) => Promise<T>,
    continued?: ContinuedCall & { from: string },
  ): Promise<T> {
    const id = record.id;
    const request = { operation: record.operation };
    if (continued) {
      // This process takes the effect up from its recorded call (`started` again), observing what it began.
      const audit = () => {
        scope.store.protocols.takenUp(id);
        scope.store.audit(scope.runId, { type: 'protocol.call_continued', taskId: scope.taskId, effectId: id, data: { protocol: continued.protocol, operation: continued.operation, remoteId: continued.remoteId } });
      };
      if (continued.from === 'uncertain') scope.store.updateEffect(scope.runId, id, 'started', { taskId: scope.taskId, facts: request });
      scope.store.transaction(withFirstRecord(audit));
    } else {
      scope.store.updateEffect(scope.runId, id, 'started', { taskId: scope.taskId, facts: request });
    }
    const performed: PerformedEffect = {
      id,
      ...(continued ? { continued: { protocol: continued.protocol, operation: continued.operation, callIdentity: continued.callIdentity, remoteId: continued.remoteId, state: continued.state } } : {}),
      recordCall: (call: ProtocolCall) =>
        scope.store.protocols.record({ ...call, effectId: id, runId: scope.runId, taskId: scope.taskId, attempt: scope.attempt, ...(call.remoteId === undefined ? {} : { remoteId: call.remoteId }) }),
    };
    // The outcome write: if the ledger refuses it, the effect happened (or may have) without a record of how it ended.
    const recordOutcome = (outcome: 'succeeded' | 'failed' | 'uncertain', update: Parameters<Store['updateEffect']>[3]) => {
      try {
        scope.store.updateEffect(scope.runId, id, outcome, { taskId: scope.taskId, ...update });
      } catch (error) {
        throw (scope.ledger.lost ??= new OutcomeNotRecorded(id, scope.taskId, request.operation, outcome, error));
      }
    };
    let result: T;
    try {
      // Without interceptors or propagators there is nothing to compose: perform is called as it is.
      const intercept = scope.interception.effect;
      result = intercept
        ? ((await intercept(effectInput(scope, actor, record), () => perform(actor.signal, performed), scope.redact)) as T)
        : await perform(actor.signal, performed);
    } catch (thrown) {
      const error = actor.normalize(thrown);
      const outcome = isEffectFailure(error) ? error.outcome : 'uncertain';
      const details = isEffectFailure(error) ? error.details : null;
      const code = String(error.code);
      recordOutcome(outcome, { result: details, error: { code, message: scope.redact(errorMessage(error)) }, facts: { ...request, code } });
      actor.budget?.settle(id);
      throw error;
    }
    recordOutcome('succeeded', { result, facts: request });
    actor.budget?.settle(id);
    return result;
  }
}

/** The one read-only input of the effect interceptors. */
function effectInput(scope: EffectScope, actor: EffectActor, record: { id: string; operation: string; profile: EffectProfile; input?: JsonValue }): EffectInterceptorInput {
  const { runId, traceId, taskId, attempt } = scope;
  const input = redactedInput(record.input ?? null, scope.redact);
  return { runId, traceId, taskId, attempt, kind: actor.kind, signal: actor.signal, effectId: record.id, operation: record.operation, profile: Object.freeze({ ...record.profile }), input };
}

/** A deep, frozen copy of an effect's input with every string (keys too) passed through the run's redactor. */
function redactedInput(value: JsonValue, redact: (text: string) => string): JsonValue {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Object.freeze(value.map((item) => redactedInput(item, redact))) as JsonValue[];
  return Object.freeze(Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactedInput(item, redact)])));
}

/**
 * What the ledger says about an effect recorded earlier in this attempt: its confirmed result (`succeeded`, or in
 * doubt and reconciled `applied`), its recorded failure, or that it may now start (`requested`, or approved). A
 * pending approval pauses again; a rejection fails the task. Anything else is never repeated.
 */
function recordedEffect(scope: EffectScope, existing: EffectRow): { value: JsonValue } | { approved: boolean } {
  const id = existing.id;
  if (existing.state === 'succeeded') return { value: JSON.parse(existing.result_json ?? 'null') as JsonValue };
  if (existing.state === 'requested') return { approved: false };
  if (existing.state === 'failed') {
    const error = JSON.parse(existing.error_json ?? 'null') as { code?: string; message?: string } | null;
    throw new EffectFailure('failed', (error?.code ?? 'AGENTCTL_E_RUN_FAILED') as AnyErrorCode, error?.message ?? `effect ${id} failed`, { details: JSON.parse(existing.result_json ?? 'null') as JsonValue });
  }
  if (existing.state === 'waiting_for_approval') {
    const approval = scope.store.approvalForEffect(id);
    if (approval?.state === 'approved') return { approved: true };
    if (approval?.state === 'rejected') {
      throw new AgentctlError('AGENTCTL_E_APPROVAL_REJECTED', `${existing.operation} was rejected by ${String(approval.actor)}: ${String(approval.decision_reason)}`);
    }
    if (approval?.state === 'pending') throw new ApprovalPending(String(approval.id), id, String(approval.reason));
  }
  const reconciled = scope.store.reconciliationRows(id).at(-1);
  if (reconciled?.outcome === 'applied') return { value: JSON.parse(String(reconciled.result_json ?? 'null')) as JsonValue };
  throw new AgentctlError('AGENTCTL_E_RUN_FAILED', `effect ${id} is already recorded as ${existing.state}; it is not repeated`, { help: 'inspect the effect and reconcile it' });
}

/**
 * An effect of this attempt in doubt (`started` by a lost process, or `uncertain`) whose protocol call committed a
 * remote id, not reconciled since: this process continues it by observing that remote work, never sending it again.
 */
function continuedCall(scope: EffectScope, existing: EffectRow): (ContinuedCall & { from: string }) | undefined {
  if (existing.state !== 'started' && existing.state !== 'uncertain') return undefined;
  const call = scope.store.protocols.continuation(existing.id);
  if (call === undefined || scope.store.reconciliationRows(existing.id).length > 0) return undefined;
  return { ...call, from: String(existing.state) };
}

/** Approval ids follow from the effect: the same effect always has the same approval id. */
export const approvalIdFor = (effectId: string) => `apr_${sha256(`approval:${effectId}`).slice(0, 24)}`;

/**
 * `approval` is a tool contract's own rule (core-internal: plugins cannot set it): `always` asks for every call the
 * policy allows; `never` waives the policy's approval for it (a denial still stands, and so does a plugin's vote).
 */
async function decide(scope: EffectScope, kind: string, request: EffectRequest, profile: EffectProfile, approval: ApprovalOverride): Promise<PolicyVerdict> {
  const payload: PolicyRequest = Object.freeze({
    runId: scope.runId,
    taskId: scope.taskId,
    kind,
    operation: request.operation,
    access: request.access,
    profile,
    policy: scope.policy,
    workspaceRoot: scope.workspaceRoot,
    statePaths: scope.store.statePaths,
  });
  try {
    const verdict = await decidePolicy(scope.hooks, payload, approval === 'never');
    if (approval === 'always' && verdict.decision === 'allow') return { decision: 'needs_approval', reason: `tool ${request.access.tool} requires approval for every call (approval: always)` };
    return verdict;
  } catch (error) {
    return { decision: 'deny', diagnostic: diagnostic('AGENTCTL_E_POLICY_NO_VERDICT', { message: `policy failed for ${request.operation} and denies it: ${errorMessage(error)}` }) };
  }
}

/** Interactive approval: an approval is recorded with the effect intent; a rejection fails the task. */
async function askOperator(scope: EffectScope, signal: AbortSignal, record: Parameters<Store['recordEffect']>[0], reason: string): Promise<() => void> {
  const answer = await scope.approver!({ runId: scope.runId, taskId: scope.taskId, operation: record.operation, reason, input: scope.redact(JSON.stringify(record.input)) }, signal);
  const approvalId = approvalIdFor(record.id);
  if (!answer.approved) {
    scope.store.transaction(() =>
      scope.store.audit(scope.runId, { type: 'approval.rejected', taskId: scope.taskId, data: { approvalId, operation: record.operation, actor: answer.actor, reason: answer.reason } }),
    );
    throw new AgentctlError('AGENTCTL_E_APPROVAL_REJECTED', `${record.operation} was rejected by ${answer.actor}: ${answer.reason}`);
  }
  return () => scope.store.insertApproval({ id: approvalId, runId: scope.runId, taskId: scope.taskId, effectId: record.id, reason, decision: { actor: answer.actor, reason: answer.reason } });
}

function requireApproval(scope: EffectScope, record: Parameters<Store['recordEffect']>[0], reason: string, withFirstRecord: (extra: () => void) => () => void): never {
  const mode = scope.policy.nonInteractive;
  if (mode === 'pause') {
    const approvalId = approvalIdFor(record.id);
    scope.store.recordEffect(
      record,
      'waiting_for_approval',
      withFirstRecord(() => scope.store.insertApproval({ id: approvalId, runId: scope.runId, taskId: scope.taskId, effectId: record.id, reason })),
    );
    throw new ApprovalPending(approvalId, record.id, reason);
  }
  scope.store.transaction(() => scope.store.audit(scope.runId, { type: 'approval.denied', taskId: scope.taskId, data: { operation: record.operation, reason, nonInteractive: mode } }));
  const code = mode === 'fail' ? 'AGENTCTL_E_APPROVAL_REQUIRED' : 'AGENTCTL_E_APPROVAL_DENIED';
  throw new AgentctlError(code, `${record.operation} needs approval (${reason}) and policy.nonInteractive is ${mode}`, {
    diagnostics: [diagnostic(code, { message: `${record.operation} needs approval and no operator can give it (nonInteractive: ${mode})`, help: 'set policy.approval or policy.nonInteractive: pause', taskId: scope.taskId })],
  });
}
