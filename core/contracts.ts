// Types shared by the host and plugins. The SDK re-exports them; plugins never import this file directly.
import type { z } from 'zod';
import type { Diagnostic } from './errors.js';

/** Any value that survives a JSON round trip. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** What kind of change an effect makes to the world (SPEC §4). */
export type EffectClass =
  | 'observe'
  | 'workspace_mutate'
  | 'external_mutate'
  | 'process_execution'
  | 'network'
  | 'model'
  | 'internal_state'
  | 'pure';
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

/** A reference to a secret value: exactly one key naming the form, e.g. `{ env: 'TOKEN' }`. */
export type SecretReference = Readonly<Record<string, JsonValue>>;

/** The process an effect wants to start, as policy sees it. */
export interface ProcessAccess {
  /** Absolute path of the executable that will run. */
  readonly executable: string;
  /** The command as written in the workflow. */
  readonly command: string;
  /** Working directory as written (relative to the workspace root). */
  readonly cwd: string;
  /** Names of the environment entries the child receives. */
  readonly environment: readonly string[];
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
   * Called after policy allowed the effect and before it is recorded or sent for approval. Returning a
   * value means the effect is not needed (e.g. a write whose content is already in place).
   */
  readonly unchanged?: () => Promise<T | undefined>;
}

/** Secrets resolved for the task being dispatched. */
export interface TaskSecrets {
  /** The value of a reference the action declared through `secretReferences`. */
  value(reference: SecretReference): string;
  /** sha256 of the value, safe to record. */
  digest(reference: SecretReference): string;
}

/** The read-only view a dispatch function gets of one task execution. */
export interface DispatchContext<Action = unknown, Input = unknown> {
  readonly kind: string;
  readonly actionName: string;
  readonly action: Readonly<Action>;
  readonly input: Readonly<Input>;
  readonly task: { readonly id: string; readonly attempt: number; readonly timeoutSeconds: number };
  readonly run: { readonly id: string; readonly workspaceRoot: string };
  /** Aborted on cancellation, `--timeout-seconds` or the task deadline. */
  readonly signal: AbortSignal;
  readonly secrets: TaskSecrets;
  /** Absolute form of a workspace-relative path; policy authorizes it when an effect declares it. */
  resolvePath(path: string): string;
  /**
   * Replaces every secret value known to the run with `[REDACTED]`. With `truncated`, a trailing piece of a
   * secret (text cut at a byte limit) is hidden too.
   */
  redact(text: string, options?: { readonly truncated?: boolean }): string;
  /**
   * Authorizes, records and performs one effect. The request is committed to the ledger before `perform`
   * runs; its outcome is committed after. Throw an `EffectFailure` to report a failed or uncertain outcome.
   */
  effect<T extends JsonValue>(
    request: EffectRequest,
    perform: (signal: AbortSignal) => Promise<T>,
    options?: EffectOptions<T>,
  ): Promise<T>;
}

/** Resource bounds of a process action, as `plan` shows them. */
export interface ProcessLimits {
  readonly timeoutSeconds: number;
  readonly stdoutLimitBytes: number;
  readonly stderrLimitBytes: number;
  readonly combinedOutputLimitBytes: number;
}

/** How an action kind describes a process it will start, for `agentctl plan`. */
export interface ProcessDescription {
  readonly command: string;
  readonly executable: string | null;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly environment: readonly string[];
  readonly isolation: string;
  readonly limits: ProcessLimits;
}

/** Facts the host gives `describe` about where an action will run. */
export interface DescribeContext {
  readonly defaultTimeoutSeconds: number;
  readonly taskTimeoutSeconds?: number;
}

/** What `plan` shows about an action beyond its kind's profile. */
export interface ActionDescription {
  readonly process?: ProcessDescription;
}

/** An action kind: its schemas, effect profile and dispatch function. */
export interface ActionKind<ActionSchema extends z.ZodType = z.ZodType, InputSchema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  /** Fields of the action object besides `kind`. Must reject unknown fields. */
  readonly actionSchema: ActionSchema;
  /** Shape of the task's rendered `with`. */
  readonly inputSchema: InputSchema;
  readonly effect: EffectProfile;
  /** Secret references the host must resolve (during preflight) before the action runs. */
  secretReferences?(action: z.output<ActionSchema>): SecretReference[];
  /** Plan-time description; may throw an AgentctlError (e.g. a command that does not resolve). */
  describe?(action: z.output<ActionSchema>, context: DescribeContext): ActionDescription;
  dispatch(context: DispatchContext<z.output<ActionSchema>, z.output<InputSchema>>): Promise<JsonValue>;
}

/** Context handed to a secret resolver. */
export interface SecretResolverContext {
  readonly workspaceRoot: string;
  readonly environment: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
}

/** Resolves one reference form (the key of the reference object) to a value, or throws. */
export type SecretResolver = (reference: SecretReference, context: SecretResolverContext) => Promise<string>;

/** What policy decides about one effect. */
export type PolicyVerdict =
  | { readonly decision: 'allow'; readonly reason?: string }
  | { readonly decision: 'deny'; readonly diagnostic: Diagnostic }
  | { readonly decision: 'approval'; readonly reason: string };

/** The run-wide policy after defaults, as in SPEC §3. */
export interface ResolvedPolicy {
  readonly workspaceRoot: string;
  readonly writableRoots: readonly string[];
  readonly processAllowlist: readonly string[];
  readonly environmentAllowlist: readonly string[];
  readonly toolsAllow: readonly string[];
  readonly toolsDeny: readonly string[];
  readonly approval: 'never' | 'mutations' | 'high_risk' | 'always';
  readonly nonInteractive: 'pause' | 'deny_approval' | 'fail';
}

/** The read-only payload of the `policy` hook. */
export interface PolicyRequest {
  readonly runId: string;
  readonly taskId: string;
  readonly kind: string;
  readonly operation: string;
  readonly access: EffectAccess;
  readonly profile: EffectProfile;
  readonly policy: ResolvedPolicy;
  /** Absolute workspace root (policy.workspaceRoot resolved against --workspace). */
  readonly workspaceRoot: string;
}

/** The read-only payload of the `preflight` hook. */
export interface PreflightContext {
  readonly workflowName: string;
  /** Tasks that will execute, with their action kind and action fields. */
  readonly tasks: readonly { readonly id: string; readonly kind: string; readonly action: Readonly<Record<string, unknown>> }[];
  readonly workspaceRoot: string;
  readonly signal: AbortSignal;
  /** Adds a problem; preflight ends with all of them before any run state exists. */
  report(diagnostic: Diagnostic): void;
}

/** The payload of the `commit` hook: a fact that is already durable. */
export interface CommitEvent {
  readonly type: string;
  readonly runId: string;
  readonly taskId?: string;
  readonly effectId?: string;
  readonly data: Readonly<Record<string, JsonValue>>;
}
