// Interceptors and propagators: how a plugin wraps what the core performs (an effect, a kind's dispatch) and adds
// context to what leaves the machine (a child process's environment, an HTTP request's headers), e.g. for tracing.
import type { EffectProfile } from './effects.js';
import type { JsonValue } from './json.js';

/** What every interceptor input carries: which run, trace and task attempt the call belongs to. */
export interface InterceptedTask {
  readonly runId: string;
  /** The run's trace id: 32 lower-case hex digits, as `inspect` shows it. */
  readonly traceId: string;
  readonly taskId: string;
  readonly attempt: number;
  /** The action's kind, e.g. `builtin.shell.exec`. */
  readonly kind: string;
  /** Aborted on cancellation and at the deadline of the work. */
  readonly signal: AbortSignal;
}

/** The read-only (frozen) input of an effect interceptor: one effect, about to be performed. */
export interface EffectInterceptorInput extends InterceptedTask {
  /** The effect's id, as the ledger records it (stable across resumes). */
  readonly effectId: string;
  /** The effect's operation, e.g. `process.exec`. */
  readonly operation: string;
  /** The effect's class, risk and idempotency, as recorded and judged by policy. */
  readonly profile: EffectProfile;
  /**
   * The effect's input as the ledger records it: secret values of the run already redacted, frozen. Read what an
   * attribute needs from it (e.g. a model request's `request.model`); it is never the whole request to copy out.
   */
  readonly input: JsonValue;
}

/** The read-only (frozen) input of a dispatch interceptor: one action dispatched to its kind's owner. */
export interface DispatchInterceptorInput extends InterceptedTask {
  /** The action's name in `spec.actions`. */
  readonly actionName: string;
  /** The action's fields besides `kind`, as compiled. */
  readonly action: Readonly<unknown>;
}

/**
 * Calls what an interceptor wraps: the next interceptor, and at the end the core's own call. Calling it again returns
 * the same promise: what it wraps runs once.
 */
export type InterceptorNext = () => Promise<JsonValue>;

/**
 * A plugin's wrappers around the core's calls, Temporal-style: each gets one frozen input and `next`, and must return
 * what `next` returned. It may observe, time, keep context of its own around `next` (e.g. an active span) or throw to
 * fail. Interceptors run in plugin registration order, the first registered outermost.
 */
export interface Interceptor {
  /** Names the interceptor in errors, e.g. `otel-spans`. */
  readonly name: string;
  /**
   * Wraps the perform of one effect whose `requested` record is durable (`started` is recorded before). A throw
   * before `next` fails the effect (`failed`: nothing was performed); a throw after it makes the effect `uncertain`.
   */
  effect?(input: EffectInterceptorInput, next: InterceptorNext): Promise<JsonValue>;
  /**
   * Wraps one dispatch of an action kind: a task's own action, or one a model runs through a `kind: action` tool. A
   * throw fails the task, naming the plugin; the effects recorded inside keep their outcomes.
   */
  dispatch?(input: DispatchInterceptorInput, next: InterceptorNext): Promise<JsonValue>;
}

/** What a propagator is told about the work a process or a request belongs to. */
export interface PropagationContext {
  readonly runId: string;
  /** The run's trace id: 32 lower-case hex digits. */
  readonly traceId: string;
  readonly taskId: string;
  readonly attempt: number;
  /** The effect being performed; absent for a request a kind makes outside an effect. */
  readonly effectId?: string;
}

/**
 * Adds context to what leaves the machine: environment entries to every process the host's process service starts
 * for a task, and headers to every HTTP request made through the network client (providers, MCP, packs). It is
 * called while the process is started or the request is sent, in that call's asynchronous context, so context an
 * interceptor keeps around `next` (e.g. an active span) is visible to it.
 */
export interface Propagator {
  /** Names the propagator in errors and in `plan`. */
  readonly name: string;
  /**
   * Environment entries for child processes. `names` are declared up front (`plan` shows them); `values` returns
   * some or all of them. An entry the workflow sets itself is never replaced.
   */
  readonly environment?: {
    readonly names: readonly string[];
    values(context: PropagationContext): Readonly<Record<string, string>>;
  };
  /** Headers for an outgoing HTTP request. A header the request already has (any case) is never replaced. */
  headers?(context: PropagationContext): Readonly<Record<string, string>>;
}
