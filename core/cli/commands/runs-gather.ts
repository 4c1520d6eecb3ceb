// `agentctl runs gather FILE [--from RUN...]`: the last stage of a scale-out run. Finds the prepare run and one
// succeeded run per shard, checks that every item ran exactly once, and runs the gather stage as a derived run (mode
// `gather`) that reuses the prepare run's and every shard's tasks; its output is the single-machine run's.
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile } from '../../compiler/source.js';
import { planDocument } from '../../plan-document.js';
import { blockedError, deriveRun } from '../../runner/derive.js';
import { planGather, selectGatherRuns } from '../../runner/gather.js';
import { gatherBudgets, stagePlan, withStageBudgets, type RunStage } from '../../runner/stage.js';
import type { Composition } from '../composition.js';
import { databasePath, dbOption, timeoutSeconds } from '../database-option.js';
import { driveAndReport, isDirectory } from '../drive.js';
import { handler, packOptions, type GlobalArgs } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import { asJson, recordConfig } from '../run-config.js';
import { runObservers } from '../run-observers.js';
import { fanoutOf, shardableStages } from '../stage-options.js';
import { importGatherLedgers, inStageLedger, isLedgerFile } from '../stage-ledgers.js';
import { inputOptions } from './document.js';

interface GatherArgs extends GlobalArgs, InputArgs {
  file: string;
  db?: string;
  from?: string | string[];
  fanout?: unknown;
  workspace?: string;
  'timeout-seconds'?: number;
}

export const runsGather = (composition: Composition): CommandModule<GlobalArgs, GatherArgs> => ({
  command: 'gather <file>',
  describe: 'Gather a scale-out run: reuse the prepare run and every shard run, check each item ran once, run what follows the fan-out',
  builder: (yargs) =>
    inputOptions(
      yargs
        .positional('file', { type: 'string', demandOption: true, describe: 'the workflow file the prepare and shard runs ran' })
        .option('db', dbOption('SQLite database file holding the prepare and shard runs'))
        .option('from', { type: 'string', nargs: 1, describe: 'a prepare or shard run id, or a ledger file whose prepare and shard runs are imported first (default: the latest succeeded runs of this plan in --db); repeatable' })
        .option('fanout', { type: 'string', describe: 'the foreach/matrix task the prepare run was cut at (default: that of the latest prepare run)' })
        .option('workspace', { type: 'string', describe: "workspace folder (default: the workflow file's folder)" })
        .option('timeout-seconds', { type: 'number', describe: 'cancel the run after N seconds (exit 130)' }),
    ) as never,
  handler: handler<GatherArgs>(async (argv, output) => {
    const timeout = timeoutSeconds(argv['timeout-seconds']);
    const fanout = fanoutOf(argv.fanout);
    const named = ([] as string[]).concat(argv.from ?? []).map((id) => id.trim());
    if (named.some((id) => id === '')) throw new AgentctlError('AGENTCTL_E_USAGE', '--from needs a run id');
    const host = composition.compose({ configure: runObservers(output) });
    const source = readBoundedFile(argv.file, 'workflow file');
    const { plan } = await compileText(host, argv.file, source, { inputs: collectInputs(argv), packs: packOptions(argv), vars: collectVars(argv) });
    const planDigest = planDocument(host, plan).planDigest;
    const workspace = resolve(argv.workspace ?? dirname(resolve(argv.file)));
    if (!isDirectory(workspace)) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${workspace} is not an existing folder`);
    // --from a ledger file (a stage's own ledger): its runs are imported into --db (created when missing) first.
    const ledgers = named.filter(isLedgerFile);
    return await inStageLedger(resolve(databasePath(argv.db)), { create: ledgers.length > 0, ...(argv.stateKeys ? { stateKeys: argv.stateKeys } : {}) }, async (store) => {
      const fromLedgers = importGatherLedgers(store, ledgers, planDigest);
      const runs = selectGatherRuns(store, planDigest, fanout, [...named.filter((from) => !ledgers.includes(from)), ...fromLedgers]);
      const prepared = JSON.parse(String(runs.prepare.stage_json)) as RunStage;
      const stages = shardableStages(plan, prepared.fanout);
      // The gather reserves against what the prepare and shard runs left of each counted budget.
      const budgets = gatherBudgets(plan.runtime.budgets, [runs.prepare, ...runs.shards].map((run) => store.budgets.usage(String(run.id))));
      const stage: RunStage = { stage: 'gather', fanout: prepared.fanout, shard: null, shards: runs.count, items: stages.items.map((item) => item.index), taskIds: plan.tasks.map((task) => task.id), planDigest, ...(budgets === undefined ? {} : { budgets }) };
      const executing = stagePlan(plan, stage);
      const derivation = await planGather({ host, store, plan: executing, stages, runs });
      if (!derivation.plan.compatible) throw blockedError(derivation);
      const shardRunIds = runs.shards.map((run) => String(run.id));
      const recordedConfig = asJson(recordConfig(composition, dirname(resolve(argv.file))));
      const drive = async (driving: Parameters<Parameters<typeof driveAndReport>[3]>[0]) => {
        const result = await deriveRun({ host, store, plan: executing, staged: { wholePlan: withStageBudgets(plan, stage), stage }, derivation, file: argv.file, source, workspaceRoot: resolve(workspace, plan.policy.workspaceRoot), environment: process.env, recordedConfig, ...driving });
        return { ...result, details: { ...result.details, shardRunIds } };
      };
      return await driveAndReport(store, timeout, output, drive, 'RunOutcome', host);
    });
  }),
});
