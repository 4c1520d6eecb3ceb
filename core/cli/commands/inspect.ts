// `inspect RUN` and `runs list`: read-only views of the database.
import type { CommandModule } from 'yargs';
import { AgentctlError } from '@agentctl/sdk';
import { inspectRun, listRuns, stateLabel, type RunInspection } from '../../store/inspection.js';
import { Store } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit, neutralize } from '../output.js';
import { databasePath, dbOption } from '../database-option.js';
import { runsImport } from './runs-import.js';
import { runsAnalyze, runsUpgrade } from './runs-upgrade.js';
import { runsGather } from './runs-gather.js';
import type { Composition } from '../composition.js';

interface InspectArgs extends GlobalArgs {
  run: string;
  db?: string;
}

interface ListArgs extends GlobalArgs {
  db?: string;
  limit: number;
}

export const inspectCommand: CommandModule<GlobalArgs, InspectArgs> = {
  command: 'inspect <run>',
  describe: 'Show a run with its tasks, effects, approvals and audit trail',
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('db', dbOption()) as never,
  handler: handler<InspectArgs>(async (argv, output) => {
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
    try {
      const view = inspectRun(store, argv.run);
      emit(output, 'RunInspection', view, () => {
        const lines = [`run ${view.run.runId}  ${view.run.workflowName}  ${stateLabel(view.run)}  (trace ${view.run.traceId})`];
        const failure = view.run.error as { code?: string; message?: string } | null;
        if (failure) lines.push(`  error: ${failure.code} ${neutralize(String(failure.message))}`);
        const stage = view.run.stage as { stage: string; fanout: string; shard: number | null; shards: number | null; items: number[]; taskIds: string[] } | null;
        if (stage) {
          const which = stage.stage === 'shard' ? `shard ${stage.shard}/${stage.shards}` : stage.stage;
          lines.push(`  stage ${which} of fan-out ${stage.fanout}: ${stage.taskIds.length} tasks${stage.stage === 'prepare' ? '' : `, items ${stage.items.join(', ') || '(none)'}`}`);
        }
        const lineage = view.lineage;
        if (view.importedFrom) lines.push(`  imported from ${neutralize(view.importedFrom.sourcePath)} at ${view.importedFrom.importedAt}`);
        if (lineage) lines.push(`  ${lineage.mode} of run ${lineage.sourceRunId}, roots: ${(lineage.roots as string[]).join(', ') || '(none)'}${lineage.reason ? `, reason: ${neutralize(String(lineage.reason))}` : ''}`);
        for (const task of view.tasks) lines.push(`  task ${String(task.taskId).padEnd(20)} ${String(task.state).padEnd(22)} attempt ${task.attempt}${task.finishedAt || task.disposition !== 'executed' ? `  ${task.disposition}` : ''}${task.reuse ? ` (${(task.reuse.checks as unknown[]).length} checks passed)` : ''}`);
        for (const effect of view.effects) lines.push(`  effect ${effect.effectId} ${effect.operation} (${effect.taskId}) ${effect.state}${effect.inDoubt ? ' (in doubt: it may have happened)' : ''}`);
        for (const entry of view.effectReconciliations) {
          const by = entry.compensationRunId ? ` by task ${String(entry.compensationTaskId)} of compensation run ${String(entry.compensationRunId)}` : ` by ${neutralize(String(entry.actor))}`;
          lines.push(`  reconciled ${String(entry.effectId)} ${String(entry.outcome)}${by}`);
        }
        for (const approval of view.approvals) lines.push(`  approval ${approval.approvalId} ${approval.state} (${approval.taskId}): ${neutralize(String(approval.reason))}`);
        lines.push(...memoryLines(view.run.workingMemory));
        lines.push(...budgetLines(view.budget));
        lines.push('  audit:');
        for (const event of view.audit) lines.push(`    ${String(event.seq).padStart(4)} ${event.at} ${String(event.type).padEnd(26)} ${event.taskId ?? ''}`);
        return lines.join('\n');
      });
      return 0;
    } finally {
      store.close();
    }
  }),
};

/** `budget: processOutputBytes 12 used + 0 reserved of 4096, ...`, and the first exceeded limit. */
/** The run's working memory, one key a line (values as JSON, cut at 200 characters). */
function memoryLines(memory: unknown): string[] {
  if (memory === null || typeof memory !== 'object' || Array.isArray(memory) || Object.keys(memory).length === 0) return [];
  const cut = (text: string) => (text.length > 200 ? `${text.slice(0, 199)}…` : text);
  return ['  working memory:', ...Object.entries(memory).map(([key, value]) => `    ${neutralize(key)} = ${neutralize(cut(JSON.stringify(value)))}`)];
}

function budgetLines(budget: RunInspection['budget']): string[] {
  const usage = Object.entries(budget.usage);
  if (usage.length === 0) return [];
  const lines = [`  budget: ${usage.map(([dimension, use]) => `${dimension} ${use.used} used + ${use.reserved} reserved of ${use.limit ?? 'no limit'}`).join(', ')}`];
  const exceeded = budget.exceeded as { field?: string; message?: string } | null;
  if (exceeded) lines.push(`  budget exceeded: ${String(exceeded.field)}: ${neutralize(String(exceeded.message))}`);
  return lines;
}

const runsList: CommandModule<GlobalArgs, ListArgs> = {
  command: 'list',
  describe: 'List recent runs',
  builder: (yargs) =>
    yargs
      .option('db', dbOption())
      .option('limit', { type: 'number', default: 50, describe: 'at most this many runs, newest first' }) as never,
  handler: handler<ListArgs>(async (argv, output) => {
    if (!Number.isInteger(argv.limit) || argv.limit < 1 || argv.limit > 10_000) {
      throw new AgentctlError('AGENTCTL_E_USAGE', `--limit must be a whole number from 1 to 10000, got ${argv.limit}`);
    }
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
    try {
      const runs = listRuns(store, argv.limit);
      emit(output, 'RunList', { runs }, () => runs.map((run) => `${run.runId}  ${run.workflow}  ${stateLabel(run)}  ${run.createdAt}${run.stage ? `  ${run.stage.stage}${run.stage.stage === 'shard' ? ` ${run.stage.shard}/${run.stage.shards}` : ''}` : ''}`).join('\n') || 'no runs');
      return 0;
    } finally {
      store.close();
    }
  }),
};

export const runsCommand = (composition: Composition): CommandModule<GlobalArgs, GlobalArgs> => ({
  command: 'runs',
  describe: 'Runs recorded in the database',
  // --db may come before the subcommand too (`runs --db PATH analyze RUN`), as the reference takes it.
  builder: (yargs) =>
    yargs.option('db', dbOption()).command(runsList).command(runsAnalyze).command(runsUpgrade).command(runsImport).command(runsGather(composition)).demandCommand(1, 'name a runs subcommand: list, analyze, upgrade, import, gather') as never,
  handler: () => undefined,
});
