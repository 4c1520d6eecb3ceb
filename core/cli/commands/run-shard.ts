// `agentctl run FILE --shard I/N --from PREPARE_RUN`: one shard of a scale-out run. A derived run (mode `shard`) of
// the prepare run: the prepare tasks are reused by the reuse proofs of `repair` and need no credential, and only
// the shard's items run.
import { dirname, resolve } from 'node:path';
import { AgentctlError } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile } from '../../compiler/source.js';
import { deriveRun, blockedError } from '../../runner/derive.js';
import { planDerivation } from '../../runner/derive-plan.js';
import { Store } from '../../store/store.js';
import { shardBudgets, stagePlan, withStageBudgets, type RunStage } from '../../runner/stage.js';
import type { Composition } from '../composition.js';
import { databasePath, timeoutSeconds } from '../database-option.js';
import { driveAndReport, isDirectory } from '../drive.js';
import { packOptions, type GlobalArgs } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import type { OutputOptions } from '../output.js';
import { asJson, recordConfig } from '../run-config.js';
import { runObservers } from '../run-observers.js';
import { findPrepareRun, shardStage, type Staging } from '../run-stages.js';

interface ShardArgs extends GlobalArgs, InputArgs {
  file: string;
  db?: string;
  workspace?: string;
  'timeout-seconds'?: number;
}

export async function runShard(composition: Composition, argv: ShardArgs, output: OutputOptions, staging: Extract<Staging, { kind: 'shard' }>): Promise<number> {
  const timeout = timeoutSeconds(argv['timeout-seconds']);
  const host = composition.compose({ configure: runObservers(output) });
  const source = readBoundedFile(argv.file, 'workflow file');
  const { plan } = await compileText(host, argv.file, source, { inputs: collectInputs(argv), packs: packOptions(argv), vars: collectVars(argv) });
  const shard = shardStage(host, plan, staging.shard, staging.fanout);
  const workspace = resolve(argv.workspace ?? dirname(resolve(argv.file)));
  if (!isDirectory(workspace)) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${workspace} is not an existing folder`);
  const store = Store.open(databasePath(argv.db), { create: false, stateKeys: argv.stateKeys });
  try {
    const prepare = findPrepareRun(store, staging.from, shard.stage);
    // The shard reserves against its share of each counted budget (docs/recovery.md#budgets-of-a-scale-out-run).
    const budgets = shardBudgets(plan.runtime.budgets, store.budgets.usage(String(prepare.id)), shard.stage.items.length, shard.total);
    const stage: RunStage = budgets === undefined ? shard.stage : { ...shard.stage, budgets };
    const executing = stagePlan(plan, stage);
    // The items' tasks are the roots: they (and nothing else) run fresh; every prepare task must prove it is reusable.
    const derivation = await planDerivation({ host, store, plan: executing, source: prepare, mode: 'shard', from: [...shard.itemTasks], failed: false, restartSuccessful: false });
    if (!derivation.plan.compatible) throw blockedError(derivation);
    // A prepare task that failed (with failure: continue) is not run again in every shard; a skipped one is judged again.
    const items = new Set(shard.itemTasks);
    const unfinished = derivation.plan.tasks.find((task) => !items.has(task.taskId) && task.disposition === 'fresh' && task.sourceState !== 'skipped');
    if (unfinished) throw new AgentctlError('AGENTCTL_E_STAGE_SOURCE_INVALID', `--from ${staging.from}: prepare task ${unfinished.taskId} is ${unfinished.sourceState ?? 'missing'} there; a shard does not run it again`, { help: 'retry the prepare run (agentctl retry FILE PREPARE_RUN --failed), then start the shards from the retry' });
    const recordedConfig = asJson(recordConfig(composition, dirname(resolve(argv.file))));
    return await driveAndReport(
      store,
      timeout,
      output,
      (driving) =>
        deriveRun({
          host,
          store,
          plan: executing,
          staged: { wholePlan: withStageBudgets(plan, stage), stage },
          derivation,
          file: argv.file,
          source,
          workspaceRoot: resolve(workspace, plan.policy.workspaceRoot),
          environment: process.env,
          recordedConfig,
          ...driving,
        }),
      'RunOutcome',
      host,
    );
  } finally {
    store.close();
  }
}
