// `agentctl run FILE`: compile, preflight, execute under cancellation, report one outcome.
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile } from '../../compiler/source.js';
import { runObservers } from '../run-observers.js';
import { executeRun, preflight, recordUnavailableIsolation } from '../../runner/run.js';
import { isolationUnavailable } from '../../runner/unavailable-isolation.js';
import { SecretVault } from '../../runner/secrets.js';
import type { Composition } from '../composition.js';
import { asJson, recordConfig } from '../run-config.js';
import { Store } from '../../store/store.js';
import { handler, type GlobalArgs, packOptions } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import { palette } from '../output.js';
import { driveAndReport, isDirectory } from '../drive.js';
import { compensateAfterFailure } from './compensate.js';
import { inputOptions } from './document.js';
import { databasePath, dbOption, timeoutSeconds } from '../database-option.js';
import { prepareStage, runStageOptions, stagingOf, type StageArgs } from '../run-stages.js';
import { runShard } from './run-shard.js';

interface RunArgs extends GlobalArgs, InputArgs, StageArgs {
  file: string;
  db?: string;
  workspace?: string;
  'timeout-seconds'?: number;
}

export const runCommand = (composition: Composition): CommandModule<GlobalArgs, RunArgs> => ({
  command: 'run <file>',
  describe: 'Run a workflow, recording every effect in the database before it happens',
  builder: (yargs) =>
    runStageOptions(inputOptions(
      yargs
        .positional('file', { type: 'string', demandOption: true, describe: 'workflow YAML file' })
        .option('db', dbOption())
        .option('workspace', { type: 'string', describe: 'workspace folder (default: the workflow file\'s folder)' })
        .option('timeout-seconds', { type: 'number', describe: 'cancel the run after N seconds (exit 130)' }),
    )) as never,
  handler: handler<RunArgs>(async (argv, output) => {
    const db = databasePath(argv.db);
    const timeout = timeoutSeconds(argv['timeout-seconds']);
    const staging = stagingOf(argv);
    if (staging.kind === 'shard') return runShard(composition, argv, output, staging);
    const inputs = collectInputs(argv);
    const vars = collectVars(argv);
    const colors = palette(output.color);
    const host = composition.compose({ configure: runObservers(output) });
    const source = readBoundedFile(argv.file, 'workflow file');
    const { plan, warnings } = await compileText(host, argv.file, source, { inputs, packs: packOptions(argv), vars });
    if (output.mode === 'human') for (const warning of warnings) process.stderr.write(`${colors.dim(`warning: ${warning.message}`)}\n`);
    // The prepare stage runs (and preflights) only the tasks the fan-out items need; the run records the whole plan.
    const staged = staging.kind === 'prepare' ? prepareStage(host, plan, staging.fanout) : undefined;
    const executing = staged?.plan ?? plan;
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
          await preflight({ host, plan: executing, workspaceRoot, environment: process.env, signal: driving.signal }, vault, executing.tasks);
        } catch (error) {
          if (!isolationUnavailable(error)) throw error;
          unavailable = error;
        }
        store = Store.open(db, { create: true, stateKeys: argv.stateKeys });
        // A prepare ledger founds a family: the shard and gather ledgers made from it take its secret digest key and
        // its id, so recorded digests compare across them and each import names where it came from.
        if (staged) {
          store.digestKey();
          store.imports.ledgerId();
        }
        const request = { host, store, file: argv.file, source, workspaceRoot, environment: process.env, recordedConfig, ...(staged ? { staged: { wholePlan: plan, stage: staged.stage } } : {}) };
        if (unavailable) return recordUnavailableIsolation({ ...request, plan: executing, ...driving }, vault, unavailable);
        const result = await executeRun({ ...request, plan: executing, ...driving }, vault);
        // A failed run is compensated right away when the workflow asks for it; a cancelled one never is.
        if (plan.compensation?.onFailure === 'automatic') await compensateAfterFailure(request, result, driving);
        return result;
      }, 'RunOutcome', host);
    } finally {
      store?.close();
    }
  }),
});
