// `agentctl run FILE`: compile, preflight, execute under cancellation, report one outcome.
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError, EXIT } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile } from '../../compiler/source.js';
import { runObservers } from '../run-observers.js';
import type { Approver } from '../../runner/effects.js';
import { executeRun, preflight, recordUnavailableIsolation, type RunResult } from '../../runner/run.js';
import { isolationUnavailable } from '../../runner/unavailable-isolation.js';
import { SecretVault } from '../../runner/secrets.js';
import type { Composition } from '../composition.js';
import { asJson, recordConfig } from '../run-config.js';
import { Store } from '../../store/store.js';
import { isInteractive, terminalApprover } from '../approver.js';
import { handler, type GlobalArgs, packOptions } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import { emit, emitError, neutralize, palette, toAgentctlError, type OutputOptions } from '../output.js';
import { compensateAfterFailure } from './compensate.js';
import { inputOptions } from './document.js';

import { databasePath, dbOption, timeoutSeconds } from '../database-option.js';

interface RunArgs extends GlobalArgs, InputArgs {
  file: string;
  db?: string;
  workspace?: string;
  'timeout-seconds'?: number;
}

export const runCommand = (composition: Composition): CommandModule<GlobalArgs, RunArgs> => ({
  command: 'run <file>',
  describe: 'Run a workflow, recording every effect in the database before it happens',
  builder: (yargs) =>
    inputOptions(
      yargs
        .positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file' })
        .option('db', dbOption())
        .option('workspace', { type: 'string', describe: 'workspace folder (default: the workflow file\'s folder)' })
        .option('timeout-seconds', { type: 'number', describe: 'cancel the run after N seconds (exit 130)' }),
    ) as never,
  handler: handler<RunArgs>(async (argv, output) => {
    const db = databasePath(argv.db);
    const timeout = timeoutSeconds(argv['timeout-seconds']);
    const inputs = collectInputs(argv);
    const vars = collectVars(argv);
    const colors = palette(output.color);
    const host = composition.compose({ configure: runObservers(output) });
    const source = readBoundedFile(argv.file, 'workflow file');
    const { plan, warnings } = await compileText(host, argv.file, source, { inputs, packs: packOptions(argv), vars });
    if (output.mode === 'human') for (const warning of warnings) process.stderr.write(`${colors.dim(`warning: ${warning.message}`)}\n`);
    const workspace = resolve(argv.workspace ?? dirname(resolve(argv.file)));
    if (!isDirectory(workspace)) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${workspace} is not an existing folder`);
    const recordedConfig = asJson(recordConfig(composition, dirname(resolve(argv.file))));
    const workspaceRoot = resolve(workspace, plan.policy.workspaceRoot);
    // The database is opened once preflight has passed: a run refused before it starts creates no file and no folder.
    let store: Store | undefined;
    try {
      return await driveAndReport(() => store, timeout, output, async (driving) => {
        const vault = new SecretVault(() => store!.digestKey());
        // Only an unavailable isolation still records a run (failed, with zero effects); every other refusal leaves none.
        let unavailable: AgentctlError | undefined;
        try {
          await preflight({ host, plan, workspaceRoot, environment: process.env, signal: driving.signal }, vault, plan.tasks);
        } catch (error) {
          if (!isolationUnavailable(error)) throw error;
          unavailable = error;
        }
        store = Store.open(db);
        const request = { host, store, file: argv.file, source, workspaceRoot, environment: process.env, recordedConfig };
        if (unavailable) return recordUnavailableIsolation({ ...request, plan, ...driving }, vault, unavailable);
        const result = await executeRun({ ...request, plan, ...driving }, vault);
        // A failed run is compensated right away when the workflow asks for it; a cancelled one never is.
        if (plan.compensation?.onFailure === 'automatic') await compensateAfterFailure(request, result, driving);
        return result;
      });
    } finally {
      store?.close();
    }
  }),
});

/** What the CLI gives a run it drives: its cancellation signal, and a person to ask when one is at the terminal. */
export interface Driving {
  readonly signal: AbortSignal;
  readonly approver?: Approver;
}

/**
 * Drives a run (fresh or resumed) under the CLI's cancellation and reports its outcome (`kind`: RunOutcome, or a
 * recovery verb's own outcome kind); returns the exit code. `store` may be a getter of one not opened yet (`run` opens
 * it after preflight): stopped before, there is nothing to record.
 */
export async function driveAndReport(store: Store | (() => Store | undefined), timeoutSeconds: number | undefined, output: OutputOptions, drive: (driving: Driving) => Promise<RunResult>, kind = 'RunOutcome'): Promise<number> {
  const cancellation = watchCancellation(timeoutSeconds, (signal) => {
    const current = typeof store === 'function' ? store() : store;
    return current ? stopAtOnce(current, signal, output) : EXIT.cancelled;
  });
  try {
    // JSON mode is for programs: its stderr holds one document, so nobody is prompted there.
    const approver = output.mode === 'human' && isInteractive(process.env) ? terminalApprover(process.env) : undefined;
    return report(await drive({ signal: cancellation.signal, ...(approver ? { approver } : {}) }), output, kind);
  } finally {
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
