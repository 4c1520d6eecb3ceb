// The ledger of a run as the test kit returns it: the JSON document of `agentctl inspect RUN --output json`, narrowed
// to what a test of a plugin reads. Declared here, not inferred from the store, so the kit's published types do not
// change when the store's internals do.
import type { JsonValue } from '@agentctl/sdk';

/** The run record. */
export interface LedgerRun {
  readonly runId: string;
  readonly traceId: string;
  readonly state: string;
  readonly output: JsonValue;
  readonly error: JsonValue;
}

/** One task record. */
export interface LedgerTask {
  readonly taskId: string;
  readonly kind: string;
  readonly state: string;
  readonly attempt: number;
  /** `executed`, `reused` or `recorded`. */
  readonly disposition: string | null;
  readonly input: JsonValue;
  readonly output: JsonValue;
  readonly error: JsonValue;
  /** Files kept in the artifact store for the task. */
  readonly artifacts: readonly { readonly path: string; readonly digest: string; readonly size: number }[];
}

/** One effect record: what was requested (redacted), its profile, and how it ended. */
export interface LedgerEffect {
  readonly effectId: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly operation: string;
  readonly effectClass: string;
  readonly risk: string;
  readonly idempotency: string;
  readonly state: string;
  readonly input: JsonValue;
  readonly result: JsonValue;
  readonly error: JsonValue;
}

/** One approval request. */
export interface LedgerApproval {
  readonly approvalId: string;
  readonly taskId: string;
  readonly effectId: string | null;
  readonly state: string;
  readonly reason: string;
}

/** One audit event. */
export interface LedgerAuditEvent {
  readonly seq: number;
  readonly type: string;
  readonly taskId: string | null;
  readonly effectId: string | null;
  readonly data: JsonValue;
}

/** The ledger of one run. */
export interface LedgerView {
  readonly run: LedgerRun;
  readonly tasks: readonly LedgerTask[];
  readonly effects: readonly LedgerEffect[];
  readonly approvals: readonly LedgerApproval[];
  readonly audit: readonly LedgerAuditEvent[];
}
