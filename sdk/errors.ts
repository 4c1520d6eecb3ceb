// The error vocabulary: diagnostics, the branded error classes, and the guards that recognise them across copies of
// the SDK (a pack may bundle its own copy, so `instanceof` is never used to recognise an agentctl error).
import { ERROR_CODES, EXIT, isCoreErrorCode, type ErrorCode, type ExitCode } from './error-codes.js';
import type { JsonValue } from './json.js';

const ERROR_BRAND = Symbol.for('agentctl.error');
const EFFECT_FAILURE_BRAND = Symbol.for('agentctl.effect-failure');

/** A core code, or a code a plugin declared at registration. */
export type AnyErrorCode = ErrorCode | (string & {});

/** How serious a diagnostic is; only `error` fails an invocation. */
export type Severity = 'error' | 'warning' | 'info';

/** One finding about an input, with its source location when there is one. */
export interface Diagnostic {
  code: AnyErrorCode;
  severity: Severity;
  message: string;
  file?: string;
  line?: number;
  column?: number;
  /** JSON path of the offending value, e.g. `spec.tasks[2].with`. */
  path?: string;
  /** What to do next. */
  help?: string;
  /** Task the diagnostic is about, for run failures. */
  taskId?: string;
  /** Plugin that raised it, when it was raised inside a plugin. */
  plugin?: string;
  /** Hook the plugin was running in, e.g. `dispatch:acme.deploy` or `preflight`. */
  hook?: string;
}

/** The fields of a diagnostic besides its code; severity defaults to `error`. */
export interface DiagnosticInit extends Omit<Diagnostic, 'code' | 'severity'> {
  severity?: Severity;
}

/** Builds a diagnostic with a stable code. */
export function diagnostic(code: AnyErrorCode, init: DiagnosticInit): Diagnostic {
  const { severity = 'error', ...rest } = init;
  return { code, severity, ...rest };
}

/** Options of an AgentctlError. */
export interface AgentctlErrorOptions {
  /** The findings; by default one diagnostic made of the code, the message and `help`. */
  readonly diagnostics?: Diagnostic[];
  readonly help?: string;
  readonly cause?: unknown;
  /** Overrides the exit code of the code's declaration. */
  readonly exitCode?: ExitCode;
}

/**
 * An error with a stable code: what a plugin throws to report a user-facing problem, and what the CLI turns into a
 * JSON error document and an exit code. A plugin's own codes must be declared in its definition (`errorCodes`);
 * the host gives them their declared exit code. Recognise one with `isAgentctlError`, never `instanceof`.
 */
export class AgentctlError extends Error {
  readonly code: AnyErrorCode;
  /** The process exit code when this error ends an invocation. */
  exitCode: ExitCode;
  readonly diagnostics: Diagnostic[];
  /** Set when the error ends a run. */
  runId?: string;
  /** Set when the error ends a run. */
  traceId?: string;

  constructor(code: AnyErrorCode, message: string, options: AgentctlErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentctlError';
    this.code = code;
    this.exitCode = options.exitCode ?? (isCoreErrorCode(code) ? ERROR_CODES[code].exitCode : EXIT.runFailed);
    this.diagnostics = options.diagnostics ?? [diagnostic(code, { message, ...(options.help ? { help: options.help } : {}) })];
    Object.defineProperty(this, ERROR_BRAND, { value: true });
  }
}

/** Options of an EffectFailure. */
export interface EffectFailureOptions extends AgentctlErrorOptions {
  /** What is recorded as the effect's result (the host redacts it). */
  readonly details?: JsonValue;
}

/**
 * Thrown inside an effect's perform function: the effect ends `failed` (definitely not applied, or applied with an
 * error the task reports) or `uncertain` (it may have happened). Only a `failed` outcome is retried.
 */
export class EffectFailure extends AgentctlError {
  readonly outcome: 'failed' | 'uncertain';
  /** What is recorded as the effect's result. */
  readonly details: JsonValue;

  constructor(outcome: 'failed' | 'uncertain', code: AnyErrorCode, message: string, options: EffectFailureOptions = {}) {
    super(code, message, options);
    this.name = 'EffectFailure';
    this.outcome = outcome;
    this.details = options.details ?? null;
    Object.defineProperty(this, EFFECT_FAILURE_BRAND, { value: true });
  }
}

/** True for an AgentctlError from any copy of the SDK (recognised by its `Symbol.for` brand). */
export function isAgentctlError(value: unknown): value is AgentctlError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[ERROR_BRAND] === true;
}

/** True for an EffectFailure from any copy of the SDK. */
export function isEffectFailure(value: unknown): value is EffectFailure {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[EFFECT_FAILURE_BRAND] === true;
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
