// How an effect is classified, and what a plugin asks the host for when it wants one.
import type { JsonValue } from './json.js';

/** What kind of change an effect makes to the world (SPEC §4). */
export type EffectClass = 'observe' | 'workspace_mutate' | 'external_mutate' | 'process_execution' | 'network' | 'model' | 'remote_agent' | 'internal_state' | 'pure';
/** How much harm an effect can do if it goes wrong. */
export type Risk = 'low' | 'medium' | 'high' | 'critical';
/** Whether repeating an effect is safe. */
export type Idempotency = 'pure' | 'idempotent' | 'keyed' | 'at_most_once' | 'unknown';

/** The classification every action kind declares for its effects. */
export interface EffectProfile {
  readonly effectClass: EffectClass;
  readonly risk: Risk;
  readonly idempotency: Idempotency;
}

/** The process an effect wants to start, as policy sees it. */
export interface ProcessAccess {
  /** What will be executed, as the isolation mode resolved it (an absolute path in process mode). */
  readonly executable: string;
  /** The command as written in the workflow. */
  readonly command: string;
  /** Working directory as written (relative to the workspace root). */
  readonly cwd: string;
  /** Names of the environment entries the child receives. */
  readonly environment: readonly string[];
  /** The isolation mode the process runs under. */
  readonly isolation: string;
}

/** Everything policy needs to decide about one effect. Paths are as written in the workflow. */
export interface EffectAccess {
  /** Tool identity checked against toolsAllow/toolsDeny, e.g. `process.exec`, `filesystem.write`. */
  readonly tool: string;
  readonly process?: ProcessAccess;
  readonly reads?: readonly string[];
  readonly writes?: readonly string[];
}

/** An effect a plugin asks the host to record, authorize and perform. */
export interface EffectRequest {
  /** Operation name, stable across versions: part of the effect id. */
  readonly operation: string;
  /** What is recorded in the ledger. Never a secret value: use references and digests. */
  readonly input: JsonValue;
  readonly access: EffectAccess;
  /** Overrides of the action kind's declared profile for this one effect. */
  readonly profile?: Partial<EffectProfile>;
}

/** Options of one `effect` call. */
export interface EffectOptions<T> {
  /**
   * Called after policy allowed the effect and before it is recorded or sent for approval. Returning a value means
   * the effect is not needed (e.g. a write whose content is already in place).
   */
  readonly unchanged?: () => Promise<T | undefined>;
}
