// `agentctl resume RUN`: continue a paused, cancelled or interrupted run from its recorded workflow and plan, in the
// workspace it started in, or in the one `--workspace` names (the checkout of a later CI job).
import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError, type CapturedVars, type CompiledPlan, type JsonValue } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { runObservers } from '../run-observers.js';
import { sourceOutputs } from '../../runner/compensate.js';
import { resumeRun } from '../../runner/run.js';
import { liveness } from '../../store/liveness.js';
import { Store, type Row } from '../../store/store.js';
import { stageOf, stagePlan } from '../../runner/stage.js';
import type { Composition } from '../composition.js';
import { allowPackChangeOption, restoreRunConfig } from '../run-config.js';
import { handler, type GlobalArgs, packOptions } from '../handler.js';
import { databasePath, dbOption, timeoutSeconds } from '../database-option.js';
import { driveAndReport, isDirectory } from '../drive.js';
import type { OutputOptions } from '../output.js';

export interface ResumeArgs extends GlobalArgs {
  run: string;
  db?: string;
  'timeout-seconds'?: number;
  'allow-pack-change'?: boolean;
  config?: string | false;
  workspace?: string;
}

export const resumeCommand = (composition: Composition): CommandModule<GlobalArgs, ResumeArgs> => ({
  command: 'resume <run>',
  describe: 'Continue a paused, cancelled or interrupted run; confirmed effects are reused, never repeated',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('db', dbOption())
      .option('timeout-seconds', { type: 'number', describe: 'cancel the run after N seconds (exit 130)' })
      .option('workspace', { type: 'string', describe: "continue the run in this workspace folder (default: the run's recorded one); recorded as a run.workspace_moved event" })
      .option('allow-pack-change', allowPackChangeOption) as never,
  handler: handler<ResumeArgs>(async (argv, output) => {
    const timeout = timeoutSeconds(argv['timeout-seconds']);
    const store = Store.open(databasePath(argv.db), { create: false, stateKeys: argv.stateKeys });
    try {
      return await resumeStored(composition, argv, store, store.existingRun(argv.run), output, timeout);
    } finally {
      store.close();
    }
  }),
});

/**
 * Continues a recorded run (`row`, of `store`) from its recorded workflow and plan: what `resume RUN` does, also used
 * by `run --shard I/N` when the shard's run was paused, cancelled or interrupted.
 */
export async function resumeStored(composition: Composition, argv: ResumeArgs, store: Store, row: Row, output: OutputOptions, timeout: number | undefined): Promise<number> {
  // The config and packs the run started with, found from its recorded workflow folder, not the current one.
  await restoreRunConfig(composition, argv, row);
  const host = composition.compose({ configure: runObservers(output) });
  // The recorded workflow and inputs, never the file on disk: the run continues what it started.
  const inputs = JSON.parse(String(row.inputs_json)) as Record<string, JsonValue>;
  // A compensation run continues the plan it was made with, over its source run's outputs.
  const compensation = row.mode === 'compensation' && row.source_run_id !== null;
  // Variable files as captured when the run started: an edit since then changes nothing here.
  const captured = (JSON.parse(String(row.plan_json)) as { capturedVars?: CapturedVars }).capturedVars;
  const plan = compensation
    ? (JSON.parse(String(row.plan_json)) as CompiledPlan)
    : // A run of one scale-out stage continues within its stage.
      stagePlan((await compileText(host, String(row.workflow_file ?? 'workflow.yaml'), String(row.workflow_source), { inputs, packs: packOptions(argv), ...(captured ? { vars: { captured } } : {}) })).plan, stageOf(row));
  const workspaceRoot = argv.workspace === undefined ? String(row.workspace) : givenWorkspace(argv.workspace, plan);
  return await driveAndReport(store, timeout, output, (driving) =>
    resumeRun({
      host,
      store,
      plan,
      runId: String(row.id),
      isLive: (run) => liveness(run) === 'active',
      file: String(row.workflow_file ?? ''),
      source: String(row.workflow_source),
      workspaceRoot,
      environment: process.env,
      ...(compensation ? { sourceOutputs: sourceOutputs(store, String(row.source_run_id)) } : {}),
      ...driving,
    }),
    'RunOutcome',
    host,
  );
}

/**
 * `resume --workspace DIR`: the run continues in DIR (as the reference's resume does), e.g. the checkout of a later CI
 * job at another path. Effects already recorded describe files in the old folder; the tasks still to run see DIR.
 */
function givenWorkspace(workspace: string, plan: CompiledPlan): string {
  const folder = resolve(workspace);
  if (!isDirectory(folder)) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${folder} is not an existing folder`, { help: 'name the folder the run should continue in' });
  return resolve(folder, plan.policy.workspaceRoot);
}
