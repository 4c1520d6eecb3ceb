// `agentctl run FILE --shard I/N --from PREPARE_RUN|LEDGER`: one shard of a scale-out run. A derived run (mode `shard`)
// of the prepare run: the prepare tasks are reused by the reuse proofs of `repair` and need no credential, and only
// the shard's items run. The same shard run again continues its earlier run.
import { dirname, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { AgentctlError, type CompiledPlan, type JsonValue, type TaskState } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile } from '../../compiler/source.js';
import { deriveRun, blockedError } from '../../runner/derive.js';
import { planDerivation } from '../../runner/derive-plan.js';
import type { Row, Store } from '../../store/store.js';
import { liveness } from '../../store/liveness.js';
import { LEASE_MS } from '../../store/runs.js';
import { preparedFrom } from '../../runner/gather.js';
import { shardBudgets, stageOf, stagePlan, withStageBudgets, type RunStage } from '../../runner/stage.js';
import type { Composition } from '../composition.js';
import type { Host } from '../../host.js';
import { databasePath, timeoutSeconds } from '../database-option.js';
import { driveAndReport, isDirectory } from '../drive.js';
import { packOptions, type GlobalArgs } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import type { OutputOptions } from '../output.js';
import { asJson, recordConfig } from '../run-config.js';
import { runObservers } from '../run-observers.js';
import { findPrepareRun, shardStage, type Staging } from '../run-stages.js';
import { importPrepareRun, inStageLedger, isLedgerFile } from '../stage-ledgers.js';
import { resumeStored } from './resume.js';

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
  // --from a ledger file: the shard's own ledger (created when missing) first takes in the prepare run.
  const ledger = isLedgerFile(staging.from);
  return await inStageLedger(resolve(databasePath(argv.db)), { create: ledger, ...(argv.stateKeys ? { stateKeys: argv.stateKeys } : {}) }, async (store) => {
    const prepare = findPrepareRun(store, ledger ? importPrepareRun(store, staging.from, shard.stage) : staging.from, shard.stage);
    // The same shard again (a pod the Job runs again, a rerun by hand) continues its earlier run instead of doing its
    // items twice.
    const earlier = earlierShardRun(store, prepare, shard.stage);
    if (earlier) return await continueShard(composition, host, argv, store, earlier, plan, source, output, timeout);
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
    return await driveAndReport(store, timeout, output, (driving) => deriveRun({ ...derivedRunBase(composition, host, argv, store, plan, stage, source, workspace), derivation, ...driving }), 'RunOutcome', host);
  });
}

/** What every derived run of a shard shares: the host, the ledger, the stage's plan and the recorded workflow and config. */
function derivedRunBase(composition: Composition, host: Host, argv: ShardArgs, store: Store, plan: CompiledPlan, stage: RunStage, source: string, workspace: string) {
  return {
    host,
    store,
    plan: stagePlan(plan, stage),
    staged: { wholePlan: withStageBudgets(plan, stage), stage },
    file: argv.file,
    source,
    workspaceRoot: resolve(workspace, plan.policy.workspaceRoot),
    environment: process.env,
    recordedConfig: asJson(recordConfig(composition, dirname(resolve(argv.file)))),
  };
}

/** The latest run of this shard (same index, count and plan) made from `prepare`, directly or by retries; none yet: undefined. */
function earlierShardRun(store: Store, prepare: Row, expected: RunStage): Row | undefined {
  return store
    .stagedRuns()
    .filter((run) => {
      const stage = stageOf(run)!;
      return stage.stage === 'shard' && stage.shard === expected.shard && stage.shards === expected.shards && stage.planDigest === expected.planDigest && preparedFrom(store, run) === String(prepare.id);
    })
    .at(-1);
}

/**
 * Continues the shard's earlier run: a succeeded one is reported as it is (nothing runs), a failed one is retried
 * (its failed items run again in a linked run, the rest is reused, as `retry --failed` does), and a paused, cancelled
 * or interrupted one is resumed (confirmed effects reused; an effect in doubt blocks it until reconciled, exit 3).
 * A run another process still drives is refused by the resume, as `resume` refuses it.
 */
async function continueShard(composition: Composition, host: Host, argv: ShardArgs, store: Store, earlier: Row, plan: CompiledPlan, source: string, output: OutputOptions, timeout: number | undefined): Promise<number> {
  const runId = String(earlier.id);
  if (earlier.state === 'succeeded') {
    const tasks = Object.fromEntries(store.taskRows(runId).map((task) => [String(task.task_id), task.state as TaskState]));
    const recorded = earlier.output_json === null || earlier.output_json === undefined ? {} : (JSON.parse(String(earlier.output_json)) as Record<string, JsonValue>);
    return await driveAndReport(store, timeout, output, async () => ({ runId, traceId: String(earlier.trace_id), state: 'succeeded', output: recorded, tasks, details: { alreadySucceeded: true } }), 'RunOutcome');
  }
  if (earlier.state === 'failed') {
    const stage = stageOf(earlier)!;
    const workspace = resolve(argv.workspace ?? dirname(resolve(argv.file)));
    const derivation = await planDerivation({ host, store, plan: stagePlan(plan, stage), source: earlier, mode: 'retry', from: [], failed: true, restartSuccessful: false });
    if (!derivation.plan.compatible) throw blockedError(derivation);
    return await driveAndReport(store, timeout, output, (driving) => deriveRun({ ...derivedRunBase(composition, host, argv, store, plan, stage, source, workspace), derivation, ...driving }), 'RunOutcome', host);
  }
  // A shard's pod killed outright leaves its run `running` under a lease only time ends (a new pod cannot see the old
  // one's process): wait, bounded, for the lease to lapse, as the Job's replacement pod arrives while it still holds.
  const current = earlier.state === 'running' ? await leaseLapsed(store, runId, output) : earlier;
  const { workspace: _moved, ...rest } = argv;
  return await resumeStored(composition, { ...rest, run: runId }, store, current, output, timeout);
}

/** The longest a shard waits for an earlier run's lease to lapse: one lease, plus the time a lapse takes to be seen. */
const LEASE_WAIT_MS = LEASE_MS + 5_000;

/**
 * The run's row once nobody drives it any more (its lease lapsed, or its owner is a process of this host that is
 * gone), polled once a second for at most LEASE_WAIT_MS; a run still driven by then is left to the resume, which
 * refuses it (AGENTCTL_E_RUN_LEASED, exit 5): a live driver renews its lease, so two never drive one shard.
 */
async function leaseLapsed(store: Store, runId: string, output: OutputOptions): Promise<Row> {
  const deadline = Date.now() + LEASE_WAIT_MS;
  let row = store.existingRun(runId);
  if (liveness(row) !== 'active') return row;
  if (output.mode === 'human') process.stderr.write(`shard run ${runId} is held by ${String(row.lease_owner)}; waiting up to ${Math.round(LEASE_WAIT_MS / 1000)} s for its lease to lapse\n`);
  while (liveness(row) === 'active' && Date.now() < deadline) {
    await delay(1_000);
    row = store.existingRun(runId);
  }
  return row;
}
