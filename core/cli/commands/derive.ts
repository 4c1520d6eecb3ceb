// `agentctl retry FILE RUN`, `repair FILE RUN` and `fork RUN`: new runs derived from a recorded one.
import { dirname, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { AgentctlError, type CapturedVars, type JsonValue } from '@agentctl/sdk';
import type { PackLoadOptions } from '../../compiler/packs/load.js';
import { compileText } from '../../compiler/compile.js';
import { readBoundedFile } from '../../compiler/source.js';
import type { Host } from '../../host.js';
import { runObservers } from '../run-observers.js';
import { deriveRun, blockedError } from '../../runner/derive.js';
import { planDerivation, type Derivation, type DeriveMode, type RepairPlan } from '../../runner/derive-plan.js';
import { parser } from '../../store/inspection.js';
import { stageOf, stagePlan } from '../../runner/stage.js';
import { requireEnded, Store, type Row } from '../../store/store.js';
import type { Composition } from '../composition.js';
import { allowPackChangeOption, asJson, recordConfig, restoreRunConfig } from '../run-config.js';
import { databasePath, dbOption, timeoutSeconds } from '../database-option.js';
import { handler, type GlobalArgs, packOptions } from '../handler.js';
import { collectInputs, collectVars, type InputArgs } from '../inputs.js';
import type { VarsOptions } from '../../compiler/vars-files.js';
import { emit, type OutputOptions } from '../output.js';
import { inputOptions } from './document.js';
import { derivationDocument, derivedOutcomeFields } from './recovery-documents.js';
import { driveAndReport, isDirectory, type Driving } from '../drive.js';

/** The verbs of this module (shard and gather runs are derived too, by their own commands). */
type Verb = Extract<DeriveMode, 'retry' | 'repair' | 'fork'>;

interface DeriveArgs extends GlobalArgs, InputArgs {
  file?: string;
  run: string;
  db?: string;
  from?: string | string[];
  failed?: boolean;
  plan?: boolean;
  'restart-successful'?: boolean;
  reason?: string;
  'timeout-seconds'?: number;
  'allow-pack-change'?: boolean;
  config?: string | false;
  workspace?: string;
}

export const retryCommand = (composition: Composition): CommandModule<GlobalArgs, DeriveArgs> => ({
  command: 'retry <file> <run>',
  describe: 'Run a finished run\'s failed tasks (or --from tasks) again in a new linked run of the same workflow; the rest is reused',
  builder: (yargs) =>
    common(yargs.positional('file', { type: 'string', demandOption: true, describe: 'the workflow file the run ran, unchanged' }))
      .option('failed', { type: 'boolean', describe: 'run the failed tasks and their descendants again' }) as never,
  handler: handler<DeriveArgs>(async (argv, output) => derive('retry', argv, output, composition)),
});

export const repairCommand = (composition: Composition): CommandModule<GlobalArgs, DeriveArgs> => ({
  command: 'repair <file> <run>',
  describe: 'Run a corrected workflow as a new linked run: --from tasks and their descendants fresh, provably unchanged tasks reused',
  builder: (yargs) => inputOptions(common(yargs.positional('file', { type: 'string', demandOption: true, describe: 'the corrected workflow file (same metadata.name)' }))) as never,
  handler: handler<DeriveArgs>(async (argv, output) => derive('repair', argv, output, composition)),
});

export const forkCommand = (composition: Composition): CommandModule<GlobalArgs, DeriveArgs> => ({
  command: 'fork <run>',
  describe: 'Run a recorded run\'s workflow and inputs again as a new linked run, every task fresh',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'id of a run in any state' })
      .option('db', dbOption())
      .option('reason', { type: 'string', describe: 'why, recorded with the lineage' })
      .option('timeout-seconds', { type: 'number', describe: 'cancel the run after N seconds (exit 130)' })
      .option('workspace', { type: 'string', describe: "workspace folder of the new run (default: the source run's)" })
      .option('allow-pack-change', allowPackChangeOption) as never,
  handler: handler<DeriveArgs>(async (argv, output) => derive('fork', argv, output, composition)),
});

function common<T>(yargs: import('yargs').Argv<T>) {
  return yargs
    .positional('run', { type: 'string', demandOption: true, describe: 'id of a succeeded, failed or cancelled run' })
    .option('from', { type: 'string', nargs: 1, describe: 'run this task and its descendants fresh; repeatable' })
    .option('restart-successful', { type: 'boolean', describe: 'allow running again a task (or effect) that succeeded in the source run' })
    .option('plan', { type: 'boolean', describe: 'print what would be reused and run fresh, and why; write nothing' })
    .option('reason', { type: 'string', describe: 'why, recorded with the lineage' })
    .option('db', dbOption())
    .option('timeout-seconds', { type: 'number', describe: 'cancel the run after N seconds (exit 130)' })
    .option('workspace', { type: 'string', describe: "workspace folder of the new run (default: the source run's)" })
    .option('allow-pack-change', allowPackChangeOption);
}

/** The roots the command line names, checked: --failed or --from (repair: --from), never both. */
function selection(mode: Verb, argv: DeriveArgs): { from: string[]; failed: boolean } {
  const from = ([] as string[]).concat(argv.from ?? []);
  const usage = (message: string) => new AgentctlError('AGENTCTL_E_USAGE', message, { help: `see agentctl ${mode} --help` });
  if (mode === 'fork') return { from: [], failed: false };
  if (from.some((id) => id.trim() === '')) throw usage('--from needs a task id');
  if (argv.failed && from.length > 0) throw usage('--failed and --from cannot be combined: choose the failed tasks, or name the tasks');
  if (mode === 'retry' && !argv.failed && from.length === 0) throw usage('retry needs --failed or at least one --from TASK');
  if (mode === 'repair' && from.length === 0) throw usage('repair needs at least one --from TASK');
  return { from, failed: Boolean(argv.failed) };
}

async function derive(mode: Verb, argv: DeriveArgs, output: OutputOptions, composition: Composition): Promise<number> {
  const timeout = timeoutSeconds(argv['timeout-seconds']);
  const { from, failed } = selection(mode, argv);
  const inputs = mode === 'repair' ? collectInputs(argv) : {};
  const vars = mode === 'repair' ? collectVars(argv) : {};
  const text = argv.file === undefined ? undefined : readBoundedFile(argv.file, 'workflow file');
  if (argv.reason !== undefined && argv.reason.trim() === '') throw new AgentctlError('AGENTCTL_E_USAGE', '--reason needs a text');
  const workspace = argv.workspace === undefined ? undefined : resolve(argv.workspace);
  if (workspace !== undefined && !isDirectory(workspace)) throw new AgentctlError('AGENTCTL_E_USAGE', `--workspace ${workspace} is not an existing folder`);
  // --plan writes nothing: the database is opened read-only, as inspect opens it (no migration, no journal change).
  const store = Store.open(databasePath(argv.db), { create: false, ...(argv.plan ? { readonly: true } : {}), stateKeys: argv.stateKeys });
  try {
    const source = store.existingRun(argv.run);
    // A compensation run runs a plan made from its source's effects, not its workflow: it is completed by compensating
    // the source again, which plans only what is not compensated yet.
    if (source.mode === 'compensation') {
      throw new AgentctlError('AGENTCTL_E_USAGE', `run ${argv.run} is a compensation run of ${String(source.source_run_id)}; it cannot be ${mode === 'fork' ? 'forked' : mode === 'retry' ? 'retried' : 'repaired'}`, {
        help: `to finish compensating, run: agentctl compensate ${String(source.source_run_id)}`,
      });
    }
    if (mode !== 'fork') requireEnded(source, { to: mode === 'retry' ? 'retried' : 'repaired', help: 'resume the run first, or fork it (a fork runs everything fresh)' });
    // The config and packs the source run started with, found from its recorded workflow folder.
    const recorded = await restoreRunConfig(composition, argv, source);
    const host = composition.compose({ configure: (h) => !argv.plan && runObservers(output)(h) });
    const file = argv.file ?? String(source.workflow_file ?? 'workflow.yaml');
    const workflow = text ?? String(source.workflow_source);
    const whole = await targetPlan(host, mode, file, workflow, source, inputs, vars, packOptions(argv));
    // A run of one scale-out stage is derived within that stage: tasks outside it are neither run nor reused.
    const stage = stageOf(source);
    const plan = stagePlan(whole, stage);
    const derivation = await planDerivation({ host, store, plan, source, mode, from, failed, restartSuccessful: Boolean(argv['restart-successful']) });
    if (argv.plan) return reportPlan(derivationDocument(host, derivation, plan, store, failed, Boolean(argv['restart-successful'])), derivation, output);
    if (!derivation.plan.compatible) throw blockedError(derivation);
    // retry and repair print their own outcome kinds; fork's is a RunOutcome, as for any run.
    const kind = { retry: 'RetryOutcome', repair: 'RepairOutcome', fork: 'RunOutcome' }[mode];
    const drive = async (driving: Driving) => {
      const result = await deriveRun({
        host,
        store,
        plan,
        ...(stage ? { staged: { wholePlan: whole, stage } } : {}),
        derivation,
        file,
        source: workflow,
        // The source run's workspace (reused results describe files there), unless --workspace names another.
        workspaceRoot: workspace === undefined ? String(source.workspace) : resolve(workspace, plan.policy.workspaceRoot),
        environment: process.env,
        // The derived run records the config it runs with, found from the same folder as its source's.
        recordedConfig: asJson(recordConfig(composition, recorded?.folder ?? dirname(resolve(file)))),
        ...(argv.reason === undefined ? {} : { reason: argv.reason }),
        ...driving,
      });
      return mode === 'fork' ? result : { ...result, details: { ...result.details, ...derivedOutcomeFields(derivation, failed, result, store) } };
    };
    return await driveAndReport(store, timeout, output, drive, kind, host);
  } finally {
    store.close();
  }
}

/**
 * The workflow the derived run executes, with the source run's recorded inputs (those the workflow still declares)
 * under any given on the command line. retry refuses any change of the workflow text; repair a change of its name.
 */
async function targetPlan(host: Host, mode: Verb, file: string, text: string, source: Row, overrides: Record<string, JsonValue>, vars: VarsOptions, packs: PackLoadOptions) {
  // Variable files are read again (a changed one changes the digest); the recorded --var/--vars-file values carry over.
  const recordedPlan = parser(String(source.id))('runs', 'plan_json', source) as { capturedVars?: CapturedVars } | null;
  const varOverrides: VarsOptions = vars.overrides ? vars : recordedPlan?.capturedVars ? { overrides: recordedPlan.capturedVars.overrides } : {};
  const { plan: bare } = await compileText(host, file, text, { packs, vars: varOverrides });
  if (mode === 'retry' && bare.digest !== String(source.workflow_digest)) {
    throw new AgentctlError('AGENTCTL_E_RETRY_WORKFLOW_CHANGED', `${file} is not the workflow run ${String(source.id)} ran (its digest differs)`, {
      help: `to run a corrected workflow, use: agentctl repair ${file} ${String(source.id)} --from TASK --plan`,
    });
  }
  if (mode === 'repair' && bare.name !== String(source.workflow_name)) {
    throw new AgentctlError('AGENTCTL_E_REPAIR_NAME_MISMATCH', `${file} is workflow "${bare.name}"; run ${String(source.id)} ran "${String(source.workflow_name)}"`, {
      help: 'repair a run with a corrected version of its own workflow (same metadata.name)',
    });
  }
  const recorded = (parser(String(source.id))('runs', 'inputs_json', source) ?? {}) as Record<string, JsonValue>;
  const carried = Object.fromEntries(Object.entries(recorded).filter(([key]) => Object.hasOwn(bare.inputs, key)));
  return (await compileText(host, file, text, { inputs: { ...carried, ...overrides }, packs, vars: varOverrides })).plan;
}

function reportPlan(document: { kind: string; data: Record<string, unknown> }, derivation: Derivation, output: OutputOptions): number {
  const { plan } = derivation;
  const error = plan.compatible ? undefined : blockedError(derivation);
  emit(output, document.kind, document.data, () => planText(plan), { diagnostics: error?.diagnostics ?? [] });
  return plan.compatible ? 0 : 3;
}

function planText(plan: RepairPlan): string {
  const lines = [
    `${plan.mode} of run ${plan.sourceRunId} (${plan.workflow}): ${plan.compatible ? 'compatible' : 'BLOCKED'}`,
    `  source digest ${plan.sourceDigest}`,
    `  target digest ${plan.targetDigest}`,
    `  roots: ${plan.roots.join(', ') || '(none)'}`,
    '',
    `  ${'task'.padEnd(24)} ${'disposition'.padEnd(12)} reason`,
    ...plan.tasks.map((task) => `  ${task.taskId.padEnd(24)} ${task.disposition.padEnd(12)} ${task.reason}`),
  ];
  if (plan.removed.length > 0) lines.push('', `  removed (not in the workflow any more): ${plan.removed.join(', ')}`);
  if (plan.added.length > 0) lines.push('', `  new in the workflow: ${plan.added.join(', ')}`);
  if (plan.blocks.length > 0) lines.push('', '  blocks:', ...plan.blocks.map((block) => `    ${block.block}  ${block.taskId}: ${block.message}`));
  return lines.join('\n');
}
