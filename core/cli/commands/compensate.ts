// `agentctl compensate RUN`: run the inverse actions declared with `compensate` for a finished run's applied effects,
// as a new run linked to it; `--plan` shows what would run and writes nothing.
import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError } from '@agentctl/sdk';
import { runObservers } from '../run-observers.js';
import { compensateRun, compensationBlocked, compensationSource, hasWork, planCompensation, refusal, type CompensationPlan } from '../../runner/compensate.js';
import type { RunResult } from '../../runner/run.js';
import { Store } from '../../store/store.js';
import type { Compose } from '../composition.js';
import { databasePath, dbOption, timeoutSeconds } from '../database-option.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit, errorDetails, toAgentctlError, type OutputOptions } from '../output.js';
import { compensationOutcomeFields, compensationPlanDocument } from './recovery-documents.js';
import { driveAndReport, isDirectory, type Driving } from '../drive.js';

interface CompensateArgs extends GlobalArgs {
  run: string;
  db?: string;
  task?: string | string[];
  plan?: boolean;
  reason?: string;
  workspace?: string;
  'timeout-seconds'?: number;
}

export const compensateCommand = (compose: Compose): CommandModule<GlobalArgs, CompensateArgs> => ({
  command: 'compensate <run>',
  describe: 'Undo a finished run\'s applied effects with the inverse actions its tasks declare (compensate), as a new linked run',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'id of a succeeded, failed or cancelled run' })
      .option('task', { type: 'string', nargs: 1, describe: 'compensate only this task; repeatable' })
      .option('plan', { type: 'boolean', describe: 'print what would be compensated, and why; write nothing' })
      .option('reason', { type: 'string', describe: 'why, recorded with the lineage' })
      .option('workspace', { type: 'string', describe: 'workspace folder (default: the source run\'s)' })
      .option('db', dbOption())
      .option('timeout-seconds', { type: 'number', describe: 'cancel the run after N seconds (exit 130)' }) as never,
  handler: handler<CompensateArgs>(async (argv, output) => {
    const timeout = timeoutSeconds(argv['timeout-seconds']);
    const tasks = ([] as string[]).concat(argv.task ?? []);
    if (tasks.some((id) => id.trim() === '')) throw new AgentctlError('AGENTCTL_E_USAGE', '--task needs a task id', { help: 'see agentctl compensate --help' });
    if (argv.reason !== undefined && argv.reason.trim() === '') throw new AgentctlError('AGENTCTL_E_USAGE', '--reason needs a text');
    const workspace = argv.workspace === undefined ? undefined : resolve(argv.workspace);
    if (workspace !== undefined && !isDirectory(workspace)) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${workspace} is not an existing folder`);
    // --plan writes nothing: the database is opened read-only, as inspect opens it.
    const store = Store.open(databasePath(argv.db), { create: false, ...(argv.plan ? { readonly: true } : {}), stateKeys: argv.stateKeys });
    try {
      const source = compensationSource(store, argv.run);
      const planned = planCompensation(store, source, tasks);
      if (argv.plan) return reportPlan(planned, tasks, output);
      const refused = refusal(planned);
      if (refused) throw refused;
      if (!hasWork(planned)) return reportPlan(planned, tasks, output);
      const host = compose({ configure: runObservers(output) });
      const plan = JSON.parse(String(source.plan_json)) as { policy: { workspaceRoot: string } };
      const drive = async (driving: Driving) => {
        const result = await compensateRun({
          host,
          store,
          sourceRow: source,
          planned,
          file: String(source.workflow_file ?? ''),
          source: String(source.workflow_source),
          // The source run's workspace: the effects to undo happened there.
          workspaceRoot: workspace === undefined ? String(source.workspace) : resolve(workspace, plan.policy.workspaceRoot),
          environment: process.env,
          ...(argv.reason === undefined ? {} : { reason: argv.reason }),
          ...driving,
        });
        return { ...result, details: { ...result.details, ...compensationOutcomeFields(store, result, planned.sourceRunId) } };
      };
      return await driveAndReport(store, timeout, output, drive, 'CompensationOutcome', host);
    } finally {
      store.close();
    }
  }),
});

/**
 * `spec.compensation.onFailure: automatic`: after `result` ended failed, its compensation runs right away in this
 * process. Its outcome (or why it did not run) is reported with the failed run's error: never in its place.
 */
export async function compensateAfterFailure(request: Omit<Parameters<typeof compensateRun>[0], 'sourceRow' | 'planned' | 'signal' | 'approver'>, result: RunResult, driving: Driving): Promise<void> {
  const { store } = request;
  if (result.state !== 'failed' || !result.error) return;
  let details;
  try {
    const source = compensationSource(store, result.runId);
    const planned = planCompensation(store, source);
    const refused = refusal(planned);
    if (refused) throw refused;
    if (!hasWork(planned)) {
      details = { state: 'nothing_to_compensate', runId: null, tasks: {} };
    } else {
      const compensation = await compensateRun({ ...request, ...driving, sourceRow: source, planned });
      details = { state: compensation.state, runId: compensation.runId, tasks: compensation.tasks, ...(compensation.error ? { error: { code: compensation.error.code, message: compensation.error.message } } : {}) };
    }
  } catch (error) {
    const failure = toAgentctlError(error);
    details = { state: 'not_started', runId: failure.runId ?? null, tasks: {}, error: { code: failure.code, message: failure.message } };
  }
  errorDetails.set(result.error, { compensation: details });
}

function reportPlan(plan: CompensationPlan, selected: readonly string[], output: OutputOptions): number {
  const error = plan.executable ? undefined : compensationBlocked(plan);
  emit(output, 'CompensationPlan', compensationPlanDocument(plan, selected), () => planText(plan), { diagnostics: error?.diagnostics ?? [] });
  return plan.executable ? 0 : 3;
}

function planText(plan: CompensationPlan): string {
  const count = plan.tasks.filter((task) => task.disposition === 'compensate').length;
  const verdict = !plan.executable ? 'BLOCKED' : count === 0 ? 'nothing to compensate' : `${count} task(s) to compensate`;
  const lines = [
    `compensation of run ${plan.sourceRunId} (${plan.workflow}, ${plan.sourceState}): ${verdict}`,
    `  approval: ${plan.approval}, onFailure: ${plan.onFailure}`,
  ];
  if (plan.tasks.length === 0) lines.push('  no task of the run declares compensate');
  else lines.push('', `  ${'task'.padEnd(24)} ${'disposition'.padEnd(16)} ${'reason'.padEnd(24)} uses`, ...plan.tasks.map((task) => `  ${task.taskId.padEnd(24)} ${task.disposition.padEnd(16)} ${task.reason.padEnd(24)} ${task.uses}`));
  if (plan.blocks.length > 0) lines.push('', '  blocks:', ...plan.blocks.map((block) => `    ${block.taskId}: ${block.message}`));
  const claims = plan.tasks.flatMap((task) => (task.claimedBy ?? []).map((claim) => `    ${task.taskId}: effect ${claim.effectId} is claimed by compensation run ${claim.runId} (${claim.runState})`));
  if (claims.length > 0) lines.push('', '  claimed by other runs:', ...claims);
  return lines.join('\n');
}
