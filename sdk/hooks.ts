// The payloads of the hooks, as a plugin's taps receive them. Every payload is read-only.
import type { Diagnostic } from './errors.js';
import type { ProcessService } from './isolation.js';
import type { JsonValue } from './json.js';

/** Read-only facts about the document being compiled (second argument of a `compile` tap). */
export interface CompileContext {
  readonly file: string;
  readonly source: string;
}

/** The read-only payload of the `preflight` hook. */
export interface PreflightContext {
  readonly workflowName: string;
  /** The plan's tasks, with their action kind and action fields (a task a `when` skips at run time is included). */
  readonly tasks: readonly { readonly id: string; readonly kind: string; readonly action: Readonly<Record<string, unknown>> }[];
  readonly workspaceRoot: string;
  readonly signal: AbortSignal;
  /** Resolves commands the way the isolation mode will at run time. */
  readonly process: ProcessService;
  /** Adds a problem; preflight ends with all of them before any run state exists. */
  report(diagnostic: Diagnostic): void;
}

/**
 * The payload of the `commit` hook: a fact that is already durable (an audit event of the ledger), or a notice that
 * is not one (`plugin.log`, an agent's `stream.*` pieces). Observers receive both in the order they happened.
 */
export interface CommitEvent {
  /**
   * The audit event's sequence number in the ledger (`audit_events.seq`): strictly increasing in commit order.
   * Absent on a notice, which is never recorded.
   */
  readonly seq?: number;
  /** When the fact was recorded, or the notice given (ISO 8601). */
  readonly at: string;
  readonly type: string;
  readonly runId: string;
  readonly taskId?: string;
  readonly effectId?: string;
  readonly data: Readonly<Record<string, JsonValue>>;
}
