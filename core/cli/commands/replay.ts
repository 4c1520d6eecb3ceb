// `agentctl replay RUN`: a new linked run rebuilt from a terminal run's recorded results, with zero effects.
import type { CommandModule } from 'yargs';
import { replayRun, type ReplayResult } from '../../runner/replay.js';
import { Store } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit, neutralize, palette, type OutputOptions } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';
import type { Compose } from '../composition.js';
import { summarized } from '../drive.js';
import type { RunResult } from '../../runner/run.js';

interface ReplayArgs extends GlobalArgs {
  run: string;
  db?: string;
}

export const replayCommand = (compose: Compose): CommandModule<GlobalArgs, ReplayArgs> => ({
  command: 'replay <run>',
  describe: 'Rebuild a finished run as a new linked run from its recorded results (no effect, process or credential)',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'id of a succeeded, failed or cancelled run' })
      .option('db', dbOption()) as never,
  handler: handler<ReplayArgs>(async (argv, output) => {
    // Observers only (telemetry): the replay host has no action kind, so nothing in a replay can reach a dispatcher.
    const host = compose({ observersOnly: true });
    const store = Store.open(databasePath(argv.db), { create: false, stateKeys: argv.stateKeys });
    try {
      const result = await replayRun({ host, store, sourceRunId: argv.run });
      // The job summary's report is made by the builtins' markdown reporter, on a host of its own.
      return report(output.ci === 'github-actions' ? await summarized(result, store, compose(), output) : result, output);
    } finally {
      store.close();
    }
  }),
});

const count = (tasks: number) => `${tasks} task${tasks === 1 ? '' : 's'}`;

function report(result: ReplayResult & Pick<RunResult, 'warnings'>, output: OutputOptions): number {
  const warnings = result.warnings ?? [];
  // A failed source replays as a failed run: the error document on stderr names the failed task, as the source's did.
  if (result.state === 'failed' && result.error) {
    result.error.diagnostics.push(...warnings);
    throw result.error;
  }
  const data = { runId: result.runId, traceId: result.traceId, state: result.state, output: result.output, tasks: result.tasks, sourceRunId: result.sourceRunId, mode: result.mode, outputDigest: result.outputDigest };
  const colors = palette(output.colorStdout);
  const ok = result.state === 'succeeded';
  const mark = ok ? colors.green('succeeded') : colors.yellow(result.state);
  emit(output, 'RunOutcome', data, () => `run ${result.runId} ${mark}: replay of ${result.sourceRunId}, ${count(Object.keys(result.tasks).length)} recorded, output ${result.outputDigest}${result.error && !ok ? ` — ${neutralize(result.error.message)}` : ''}`, {
    diagnostics: [...(ok ? [] : (result.error?.diagnostics ?? [])), ...warnings],
  });
  return ok ? 0 : result.error?.exitCode ?? 1;
}
