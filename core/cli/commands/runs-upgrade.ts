// `runs analyze RUN` and `runs upgrade RUN [--dry-run]`: the reference upgrades runs recorded before its task metadata
// existed, so that repair can reuse them. agentctl has no such records: every run it recorded already carries what
// reuse checks, so the analysis finds nothing to upgrade and the upgrade writes nothing. Both print the reference's
// documents (LegacyRunUpgradeAnalysis, LegacyRunUpgrade) so a script that runs them before a repair works unchanged.
import type { CommandModule } from 'yargs';
import type { CompiledTask } from '@agentctl/sdk';
import { parser } from '../../store/inspection.js';
import { SCHEMA_VERSION } from '../../store/migrations.js';
import { requireEnded, Store, type Row } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';

export const LEGACY_UPGRADE_VERSION = 'agentctl.dev/legacy-upgrade/v1';


/** The analysis of a terminal run: its succeeded tasks are current; the others cannot be reused by any upgrade. */
export function analyzeRun(store: Store, runId: string) {
  const run = requireEnded(store.existingRun(runId), { to: 'analyzed for upgrade', help: 'resume the run, or let it finish, first' });
  const tasks = store.taskRows(runId).map((task) => taskAnalysis(task));
  const unavailable = tasks.filter((task) => !task.alreadyCurrent).map((task) => task.taskId);
  const plan = parser(runId)('runs', 'plan_json', run) as { tasks?: CompiledTask[] } | null;
  return {
    apiVersion: LEGACY_UPGRADE_VERSION,
    runId,
    databaseSchemaVersion: SCHEMA_VERSION,
    terminal: true,
    // Nothing is legacy: every succeeded task is current, so no succeeded task is left unprovable.
    fullyUpgradeable: true,
    alreadyCurrent: true,
    upgradeableTasks: [] as string[],
    unavailableTasks: unavailable,
    recommendedRepairRoots: earliestRoots(plan?.tasks ?? [], unavailable),
    tasks,
  };
}

function taskAnalysis(task: Row) {
  const taskId = String(task.task_id);
  const state = String(task.state);
  const current = state === 'succeeded';
  return {
    taskId,
    state,
    alreadyCurrent: current,
    upgradeable: false,
    confidence: current ? 'already_current' : 'unavailable',
    reasons: current ? [] : [`task is ${state}; only a succeeded task's result can be reused`],
    provenance: {},
    proposedMetadata: null,
  };
}

/** The unavailable tasks that no other unavailable task precedes: repairing from them covers the rest. */
function earliestRoots(tasks: readonly CompiledTask[], unavailable: readonly string[]): string[] {
  const needs = new Map(tasks.map((task) => [task.id, task.needs]));
  const ancestors = (id: string, seen = new Set<string>()): Set<string> => {
    for (const need of needs.get(id) ?? []) if (!seen.has(need)) ancestors(need, seen.add(need));
    return seen;
  };
  return unavailable.filter((id) => ![...ancestors(id)].some((ancestor) => unavailable.includes(ancestor)));
}

type Analysis = ReturnType<typeof analyzeRun>;

const summary = (analysis: Analysis) =>
  `${analysis.runId}: ${analysis.upgradeableTasks.length} upgradeable, ${analysis.unavailableTasks.length} unavailable; safe repair roots: ${analysis.recommendedRepairRoots.join(',') || 'none'} (nothing to upgrade: agentctl records every run with its reuse metadata)`;

interface RunArgs extends GlobalArgs {
  run: string;
  'dry-run'?: boolean;
  db?: string;
}

/** Reads the run and prints the analysis (`analyze`, `upgrade --dry-run`) or the upgrade that changed nothing. */
const respond = (upgrade: boolean) =>
  handler<RunArgs>(async (argv, output) => {
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
    try {
      const analysis = analyzeRun(store, argv.run);
      if (!upgrade || argv['dry-run'] === true) {
        emit(output, 'LegacyRunUpgradeAnalysis', analysis, () => summary(analysis));
      } else {
        // No upgrade record is written: `upgradeId` is null, and the analysis after is the one before.
        const result = { upgradeId: null, runId: argv.run, upgradedTasks: [] as string[], analysisBefore: analysis, analysisAfter: analysis };
        emit(output, 'LegacyRunUpgrade', result, () => `${argv.run}: upgraded 0 task(s); nothing was written`);
      }
      return 0;
    } finally {
      store.close();
    }
  });

export const runsAnalyze: CommandModule<GlobalArgs, RunArgs> = {
  command: 'analyze <run>',
  describe: 'Show which tasks of a finished run a repair can reuse (the reference upgrades legacy records; agentctl has none)',
  builder: (yargs) => yargs.positional('run', { type: 'string', demandOption: true, describe: 'run id' }).option('db', dbOption()) as never,
  handler: respond(false),
};

export const runsUpgrade: CommandModule<GlobalArgs, RunArgs> = {
  command: 'upgrade <run>',
  describe: 'Upgrade a legacy run for reuse: agentctl records none, so nothing is written',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('dry-run', { type: 'boolean', describe: 'print the analysis only' })
      .option('db', dbOption()) as never,
  handler: respond(true),
};
