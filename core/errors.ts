import { ERROR_CODES, type ErrorCode, type ExitCode } from './error-codes.js';

/** How serious a diagnostic is; only `error` fails an invocation. */
export type Severity = 'error' | 'warning' | 'info';

/** One finding about an input, with its source location when there is one. */
export interface Diagnostic {
  code: ErrorCode;
  severity: Severity;
  message: string;
  file?: string;
  line?: number;
  column?: number;
  /** JSON path of the offending value, e.g. `spec.tasks[2].with`. */
  path?: string;
  help?: string;
  /** Task the diagnostic is about, for run failures. */
  taskId?: string;
}

/** The fields of a diagnostic besides its code; severity defaults to `error`. */
export interface DiagnosticInit extends Omit<Diagnostic, 'code' | 'severity'> {
  severity?: Severity;
}

/** Builds a diagnostic with a stable code. */
export function diagnostic(code: ErrorCode, init: DiagnosticInit): Diagnostic {
  const { severity = 'error', ...rest } = init;
  return { code, severity, ...rest };
}

/** An error that the CLI turns into a stable exit code and a JSON error document. */
export class AgentctlError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  readonly diagnostics: Diagnostic[];
  runId?: string;
  traceId?: string;

  constructor(code: ErrorCode, message: string, options: { diagnostics?: Diagnostic[]; help?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentctlError';
    this.code = code;
    this.exitCode = ERROR_CODES[code].exitCode;
    this.diagnostics = options.diagnostics ?? [diagnostic(code, { message, ...(options.help ? { help: options.help } : {}) })];
  }
}

/** True for errors that carry a stable code and exit code. */
export function isAgentctlError(value: unknown): value is AgentctlError {
  return value instanceof AgentctlError;
}

/** Wraps anything thrown by a plugin so the user sees which plugin and hook failed. */
export function wrapPluginError(error: unknown, plugin: string, hook: string): AgentctlError {
  if (isAgentctlError(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new AgentctlError('AGENTCTL_E_PLUGIN_FAILED', `plugin ${plugin} failed in hook ${hook}: ${detail}`, { cause: error });
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Thrown inside an effect's perform function: the effect ends `failed` (definitely not applied or applied with an error) or `uncertain`. */
export class EffectFailure extends AgentctlError {
  readonly outcome: 'failed' | 'uncertain';
  /** What is recorded as the effect's result (already redacted by the host). */
  readonly details: import('./contracts.js').JsonValue;

  constructor(
    outcome: 'failed' | 'uncertain',
    code: ErrorCode,
    message: string,
    options: { details?: import('./contracts.js').JsonValue; help?: string; cause?: unknown } = {},
  ) {
    super(code, message, options);
    this.name = 'EffectFailure';
    this.outcome = outcome;
    this.details = options.details ?? null;
  }
}
