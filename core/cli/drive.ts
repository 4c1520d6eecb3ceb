// Driving a run from the command line: its cancellation (signals, --timeout-seconds), the terminal approver, and the
// report of its outcome. Shared by run, resume, the recovery verbs and compensate.
import { statSync } from 'node:fs';
import { AgentctlError, EXIT } from '@agentctl/sdk';
import type { Approver } from '../runner/effects.js';
import type { RunResult } from '../runner/run.js';
import type { Store } from '../store/store.js';
import { isInteractive, terminalApprover } from './approver.js';
import { appendJobSummary, type RunReporters } from './job-summary.js';
import { emit, emitError, neutralize, palette, toAgentctlError, type OutputOptions } from './output.js';

/** What the CLI gives a run it drives: its cancellation signal, and a person to ask when one is at the terminal. */
export interface Driving {
  readonly signal: AbortSignal;
  readonly approver?: Approver;
}

/**
 * Drives a run (fresh or resumed) under the CLI's cancellation and reports its outcome (`kind`: RunOutcome, or a
 * recovery verb's own outcome kind); returns the exit code. `store` may be a getter of one not opened yet (`run` opens
 * it after preflight): stopped before, there is nothing to record. On GitHub Actions the run's report made by
 * `reporters` is appended to the job summary, whatever state the run ended in.
 */
export async function driveAndReport(store: Store | (() => Store | undefined), timeoutSeconds: number | undefined, output: OutputOptions, drive: (driving: Driving) => Promise<RunResult>, kind = 'RunOutcome', reporters?: RunReporters): Promise<number> {
  const cancellation = watchCancellation(timeoutSeconds, (signal) => {
    const current = typeof store === 'function' ? store() : store;
    return current ? stopAtOnce(current, signal, output) : EXIT.cancelled;
  });
  try {
    // JSON mode is for programs: its stderr holds one document, so nobody is prompted there.
    const approver = output.mode === 'human' && isInteractive(process.env) ? terminalApprover(process.env, output.live) : undefined;
    const result = await drive({ signal: cancellation.signal, ...(approver ? { approver } : {}) });
    // The live region (empty by now: the run's end settled its tasks) leaves the screen before the outcome is printed.
    output.live?.close();
    const current = typeof store === 'function' ? store() : store;
    return report(current && reporters ? await summarized(result, current, reporters, output) : result, output, kind);
  } finally {
    output.live?.close();
    cancellation.dispose();
  }
}

/**
 * SIGINT, SIGTERM, SIGHUP and --timeout-seconds abort the run. A signal while the run is already being cancelled
 * (a child that takes long to go away) ends the process at once, after `stop` has recorded the run cancelled.
 */
export function watchCancellation(timeoutSeconds: number | undefined, stop: (signal: NodeJS.Signals) => number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(stop(signal));
    controller.abort(signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);
  const timer = timeoutSeconds === undefined ? undefined : setTimeout(() => controller.abort(`--timeout-seconds ${timeoutSeconds}`), timeoutSeconds * 1000);
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      for (const signal of signals) process.off(signal, onSignal);
    },
  };
}

/**
 * The second signal: records the run and its tasks cancelled and prints the outcome, synchronously (the SQLite
 * calls and writes to pipes and files are), since the process exits right after. Returns the exit code.
 */
export function stopAtOnce(store: Store, signal: NodeJS.Signals, output: OutputOptions): number {
  const reason = `cancelled (a second ${signal} stopped agentctl before the cancellation had finished)`;
  try {
    for (const run of store.stopDrivenRuns(reason)) {
      const error = new AgentctlError('AGENTCTL_E_CANCELLED', `run ${run.runId} was ${reason}`);
      report({ runId: run.runId, traceId: run.traceId, state: 'cancelled', output: {}, tasks: run.tasks, error }, output);
    }
    return EXIT.cancelled;
  } catch (error) {
    const failure = toAgentctlError(error);
    emitError(output, failure);
    return failure.exitCode;
  } finally {
    store.close();
  }
}

/**
 * The run with its job summary written when the CI is GitHub Actions. A summary that could not be written is a
 * warning: a line on stderr in human mode, a diagnostic of the document in JSON mode (whose streams hold nothing else).
 */
export async function summarized<Result extends Pick<RunResult, 'runId' | 'warnings'>>(result: Result, store: Store, reporters: RunReporters, output: OutputOptions): Promise<Result> {
  if (output.ci !== 'github-actions') return result;
  const warning = await appendJobSummary(reporters, store, result.runId, process.env);
  if (!warning) return result;
  if (output.mode === 'human') {
    process.stderr.write(`${palette(output.color).yellow('warning')}: ${neutralize(warning.message)} (${warning.code}; ${warning.help})\n`);
    return result;
  }
  return { ...result, warnings: [...(result.warnings ?? []), warning] };
}

export function report(result: RunResult, output: OutputOptions, kind = 'RunOutcome'): number {
  if (result.state === 'failed' && result.error) {
    result.error.diagnostics.push(...(result.warnings ?? []));
    throw result.error;
  }
  const data = { runId: result.runId, traceId: result.traceId, state: result.state, output: result.output, tasks: result.tasks, ...(result.usage ? { usage: result.usage } : {}), ...result.details };
  const counts = Object.values(result.tasks).reduce<Record<string, number>>((tally, state) => ({ ...tally, [state]: (tally[state] ?? 0) + 1 }), {});
  const summary = Object.entries(counts).map(([state, count]) => `${count} ${state}`).join(', ');
  const colors = palette(output.colorStdout);
  const mark = { succeeded: colors.green('succeeded'), paused: colors.yellow('paused'), cancelled: colors.yellow('cancelled') }[result.state as 'succeeded' | 'paused' | 'cancelled'];
  const ok = result.state === 'succeeded';
  const line = `run ${result.runId} ${mark}: ${summary}${result.error && !ok ? ` — ${neutralize(result.error.message)}` : ''}`;
  emit(output, kind, data, () => [line, ...outputLines(result.output)].join('\n'), {
    diagnostics: [...(ok ? [] : (result.error?.diagnostics ?? [])), ...(result.warnings ?? [])],
  });
  // In human mode, a run's warnings (e.g. a commit observer that failed) are one line each on stderr; --verbose lists
  // them with the other diagnostics instead.
  if (output.mode === 'human' && !output.verbose) for (const warning of result.warnings ?? []) process.stderr.write(`${palette(output.color).dim(`warning: ${neutralize(warning.message)}`)}\n`);
  return ok ? 0 : result.error?.exitCode ?? 1;
}

/** The run's outputs (spec.outputs) under the summary, one per line; text that came from tasks is neutralized. */
function outputLines(outputs: RunResult['output']): string[] {
  const entries = Object.entries((outputs ?? {}) as Record<string, unknown>);
  if (entries.length === 0) return [];
  return ['outputs:', ...entries.map(([name, value]) => `  ${name}: ${neutralize(typeof value === 'string' ? value : JSON.stringify(value)).replace(/\n/g, '\n    ')}`)];
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
