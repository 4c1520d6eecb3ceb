// The CLI's only writers: one JSON document per invocation in json mode; a summary and diagnostics in human mode.
import { CLI_API_VERSION } from '@agentctl/sdk';
// Lives below the CLI and progress alike; re-exported for the CLI's writers.
import { neutralize } from '../text.js';
import type { CiSystem } from './ci-environment.js';
import { annotationLines } from './github-annotations.js';
import type { LiveRegion } from './live-region.js';
import { AgentctlError, ERROR_CODES, errorMessage, isAgentctlError, isCoreErrorCode, type Diagnostic, type JsonValue } from '@agentctl/sdk';

export { neutralize };

export type OutputMode = 'human' | 'json';

export interface OutputOptions {
  /** `json` also for `--output jsonl`, whose final document is the one `--output json` prints. */
  readonly mode: OutputMode;
  /** `--output jsonl`: a run's StreamEvent lines go to stdout as they are recorded, before the final document. */
  readonly stream?: boolean;
  /** `--verbose`: in human mode, the document's data follows the summary on stdout, and its diagnostics are printed in full on stderr. */
  readonly verbose?: boolean;
  /** Color on stderr (progress, diagnostics). */
  readonly color: boolean;
  /** Color on stdout (the summary), decided by stdout's own terminal status. */
  readonly colorStdout: boolean;
  /** The CI system to meet (annotations, a job summary); null or absent outside CI and with `--no-ci`. */
  readonly ci?: CiSystem | null;
  /** Live progress on stderr's terminal, when a person watches one (`liveProgressWanted`); otherwise the plain log. */
  readonly live?: LiveRegion;
}

/** In human mode on GitHub Actions, diagnostics that point into a file are also annotations, on stderr. */
function annotate(options: OutputOptions, diagnostics: readonly Diagnostic[], elsewhere?: string): void {
  if (options.mode !== 'human' || options.ci !== 'github-actions') return;
  const lines = annotationLines(diagnostics, process.env, elsewhere);
  if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
}

export function colorEnabled(setting: string | undefined, stream: NodeJS.WriteStream, environment: NodeJS.ProcessEnv): boolean {
  if (setting === 'always') return true;
  if (setting === 'never') return false;
  if (environment.NO_COLOR !== undefined && environment.NO_COLOR !== '') return false;
  return Boolean(stream.isTTY);
}

const paint = (enabled: boolean, code: number) => (text: string) => (enabled ? `\u001b[${code}m${text}\u001b[0m` : text);

export function palette(color: boolean) {
  return { red: paint(color, 31), green: paint(color, 32), yellow: paint(color, 33), dim: paint(color, 2), bold: paint(color, 1) };
}

/**
 * Writes the document (json) or calls `human` to print a summary. `ok` is true on every document stdout carries, as
 * the reference prints it: a paused run or a blocked plan is told by its data and its exit code, not by `ok`.
 */
export function emit(options: OutputOptions, kind: string, data: unknown, human: () => string, extra: { diagnostics?: Diagnostic[] } = {}): void {
  if (options.mode === 'json') {
    const document = { apiVersion: CLI_API_VERSION, kind, ok: true, data, diagnostics: (extra.diagnostics ?? []).map(completeDiagnostic) };
    process.stdout.write(`${JSON.stringify(document)}\n`);
    return;
  }
  const text = human();
  if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  // As the reference's --verbose: the document's data, indented, after the summary.
  if (options.verbose) process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  if (options.verbose && extra.diagnostics && extra.diagnostics.length > 0) process.stderr.write(formatDiagnosticList(extra.diagnostics, palette(options.color)).join('\n') + '\n');
  annotate(options, extra.diagnostics ?? [], options.verbose ? undefined : 'run with --verbose to see them all');
}

/** A diagnostic as printed: the eight contract fields always present (`null` when they do not apply), then the rest. */
export type CompleteDiagnostic = Omit<Diagnostic, 'file' | 'line' | 'column' | 'path' | 'help'> & { file: string | null; line: number | null; column: number | null; path: string | null; help: string };

/** Every diagnostic leaves the CLI with all eight fields and a help; a missing help is the code's default. */
export function completeDiagnostic(item: Diagnostic): CompleteDiagnostic {
  const { code, severity, message, file, line, column, path, help, ...rest } = item;
  return { code, severity, message, file: file ?? null, line: line ?? null, column: column ?? null, path: path ?? null, help: help || defaultHelp(String(code), item.plugin), ...rest };
}

function defaultHelp(code: string, plugin: string | undefined): string {
  if (isCoreErrorCode(code)) return ERROR_CODES[code].help;
  return `see the documentation of plugin ${plugin ?? code.slice(0, code.indexOf('_E_')).toLowerCase()} for ${code}`;
}

/** Normalizes anything thrown into an AgentctlError (unexpected errors become AGENTCTL_E_INTERNAL). */
export function toAgentctlError(error: unknown): AgentctlError {
  if (isAgentctlError(error)) return error;
  return new AgentctlError('AGENTCTL_E_INTERNAL', `internal error: ${errorMessage(error)}`, { help: 'this is a bug in agentctl; please report it with the command you ran' });
}

/** Extra members of an Error document's `error`, e.g. the compensation a failed run started (`compensation`). */
export const errorDetails = new WeakMap<AgentctlError, Record<string, JsonValue>>();

export function emitError(options: OutputOptions, error: AgentctlError): void {
  if (options.mode === 'json') {
    const document = {
      apiVersion: CLI_API_VERSION,
      kind: 'Error',
      ok: false,
      error: { message: error.message, exitCode: error.exitCode, runId: error.runId ?? null, traceId: error.traceId ?? null, ...errorDetails.get(error) },
      diagnostics: error.diagnostics.map(completeDiagnostic),
    };
    process.stderr.write(`${JSON.stringify(document)}\n`);
    return;
  }
  process.stderr.write(formatDiagnostics(error, palette(options.color)));
  annotate(options, error.diagnostics);
}

/** Each diagnostic as two or three indented lines: code, location and path; the message (unless it is `skip`); its help. */
function formatDiagnosticList(diagnostics: readonly Diagnostic[], colors: ReturnType<typeof palette>, skip?: string): string[] {
  const lines: string[] = [];
  for (const item of diagnostics.map(completeDiagnostic)) {
    const where = item.file ? `${item.file}${item.line ? `:${item.line}:${item.column ?? 1}` : ''}` : '';
    const header = [item.severity === 'error' ? '' : item.severity, item.code, where, item.path ? `at ${item.path}` : '', item.taskId ? `task ${item.taskId}` : ''].filter(Boolean).join('  ');
    lines.push(`  ${colors.dim(neutralize(header))}`);
    if (item.message !== skip) lines.push(`    ${neutralize(item.message)}`);
    if (item.help) lines.push(`    ${colors.yellow('help')}: ${neutralize(item.help)}`);
  }
  return lines;
}

export function formatDiagnostics(error: AgentctlError, colors: ReturnType<typeof palette>): string {
  // Messages may quote a child's stderr or a task's value: everything but agentctl's own colors is neutralized.
  const lines = [`${colors.red('error')}: ${neutralize(error.message)}`];
  if (error.runId) lines.push(`  run: ${error.runId}  trace: ${error.traceId}`);
  const compensation = errorDetails.get(error)?.compensation as { state?: string; runId?: string | null; error?: { message?: string } } | undefined;
  if (compensation) {
    const why = compensation.error?.message ? `: ${neutralize(compensation.error.message)}` : '';
    lines.push(`  compensation: ${compensation.runId ? `run ${compensation.runId} ` : ''}${String(compensation.state)}${why}`);
  }
  lines.push(...formatDiagnosticList(error.diagnostics, colors, error.message));
  const code = String(error.code);
  lines.push(`  exit ${error.exitCode}${isCoreErrorCode(code) ? ` (${ERROR_CODES[code].summary})` : ''}`);
  return `${lines.join('\n')}\n`;
}
