// What a protocol client commits about an effect while performing it, so that a later process can take the effect up
// by observing the remote work it started instead of sending it again.
import type { JsonValue } from './json.js';

/**
 * The protocol identity of one effect, committed (and synced) by `PerformedEffect.recordCall` before the call returns.
 * Record it as soon as the remote side names its work (e.g. the task id a peer answered with) and before waiting for
 * that work: an effect whose call has a `remoteId` is continued by `resume` when its process was lost, not refused.
 */
export interface ProtocolCall {
  /** The protocol, e.g. `a2a`. */
  readonly protocol: string;
  /** The protocol operation that started the remote work, e.g. `SendMessage`. */
  readonly operation: string;
  /** What identifies the call to the remote side (e.g. the message id it was sent with): stable across processes. */
  readonly callIdentity: string;
  /** The remote work the call started, once known (e.g. a remote task id). */
  readonly remoteId?: string;
  /** What a later process needs to observe the remote work (never a secret value); replaced by each record. */
  readonly state: JsonValue;
  /** The session the call went through (e.g. the interface selected from a peer's card), kept per task and endpoint. */
  readonly session?: { readonly endpoint: string; readonly state: JsonValue };
}

/** A protocol call committed by an earlier process that performed the same effect and was lost while it waited. */
export interface ContinuedCall {
  readonly protocol: string;
  readonly operation: string;
  readonly callIdentity: string;
  readonly remoteId: string;
  readonly state: JsonValue;
}
