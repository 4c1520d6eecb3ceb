// `agentctl effects list RUN | inspect EFFECT | reconcile EFFECT`: the operator's view of the ledger's effects.
import type { CommandModule } from 'yargs';
import { AgentctlError, errorMessage, type JsonValue } from '../../../sdk/index.js';
import { readBoundedFile } from '../../compiler/source.js';
import { effectView as inspectionView, parser } from '../../store/inspection.js';
import { liveness } from '../../store/liveness.js';
import { mayHaveHappened } from '../../store/doubt.js';
import { Store, type EffectRow, type Row } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit, neutralize } from '../output.js';
import { actorOf, reasonOf } from './approvals.js';
import { databasePath, dbOption } from '../database-option.js';

type Outcome = 'applied' | 'not_applied' | 'compensated';

/** What may follow each reconciliation: an account is refined, never contradicted. */
const NEXT: Readonly<Record<Outcome, readonly Outcome[]>> = { applied: ['applied', 'compensated'], not_applied: ['not_applied'], compensated: ['compensated'] };
const STATUSES = { applied: 'applied', 'not-applied': 'not_applied', compensated: 'compensated' } as const;


/** The inspect view of an effect, with its whole reconciliation history. */
function effectView(store: Store, effect: EffectRow | Row, live: boolean) {
  const parse = parser(String(effect.run_id));
  const reconciliations = store.reconciliationRows(String(effect.id)).map((row) => ({
    seq: row.seq,
    outcome: row.outcome,
    reason: row.reason,
    actor: row.actor,
    result: parse('reconciliations', 'result_json', row, `reconciliation ${row.seq}`),
    at: row.created_at,
  }));
  return { ...inspectionView(effect as Row, live, reconciliations.at(-1)?.outcome ?? null, parse), reconciliations };
}

const line = (view: ReturnType<typeof effectView>) =>
  `${view.effectId}  ${view.state}${view.reconciled ? ` (reconciled ${view.reconciled})` : view.inDoubt ? ' (in doubt)' : ''}  task ${view.taskId} attempt ${view.attempt}  ${neutralize(String(view.operation))}`;

const list: CommandModule<GlobalArgs, { run: string; db?: string } & GlobalArgs> = {
  command: 'list <run>',
  describe: 'List the effects of a run, with their reconciliations',
  builder: (yargs) => yargs.positional('run', { type: 'string', demandOption: true, describe: 'run id' }).option('db', dbOption()) as never,
  handler: handler(async (argv: { run: string; db?: string } & GlobalArgs, output) => {
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true });
    try {
      const run = store.runRow(argv.run);
      if (!run) throw new AgentctlError('AGENTCTL_E_RUN_NOT_FOUND', `run ${argv.run} does not exist in this database`, { help: 'list runs with `agentctl runs list`' });
      const live = liveness(run) === 'active';
      const effects = store.effectRows(argv.run).map((row) => effectView(store, row, live));
      emit(output, 'EffectList', { runId: argv.run, effects }, () => effects.map(line).join('\n') || 'no effects');
      return 0;
    } finally {
      store.close();
    }
  }),
};

const inspect: CommandModule<GlobalArgs, { effect: string; db?: string } & GlobalArgs> = {
  command: 'inspect <effect>',
  describe: 'Show one effect: its input, outcome and reconciliations',
  builder: (yargs) => yargs.positional('effect', { type: 'string', demandOption: true, describe: 'effect id (eff_...)' }).option('db', dbOption()) as never,
  handler: handler(async (argv: { effect: string; db?: string } & GlobalArgs, output) => {
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true });
    try {
      const effect = store.effect(argv.effect);
      if (!effect) throw new AgentctlError('AGENTCTL_E_EFFECT_NOT_FOUND', `effect ${argv.effect} does not exist in this database`, { help: 'list effects with `agentctl effects list RUN`' });
      const view = effectView(store, effect, liveness(store.runRow(effect.run_id)!) === 'active');
      emit(output, 'EffectInspection', view, () => [line(view), `  input ${neutralize(JSON.stringify(view.input))}`, ...view.reconciliations.map((item) => `  ${item.seq} ${item.outcome} by ${neutralize(String(item.actor))}: ${neutralize(String(item.reason))}`)].join('\n'));
      return 0;
    } finally {
      store.close();
    }
  }),
};

interface ReconcileArgs extends GlobalArgs {
  effect: string;
  status: keyof typeof STATUSES;
  reason: string;
  actor?: string;
  'result-file'?: string;
  db?: string;
}

const refused = (message: string, help: string) => new AgentctlError('AGENTCTL_E_RECONCILIATION_REFUSED', message, { help });

const reconcile: CommandModule<GlobalArgs, ReconcileArgs> = {
  command: 'reconcile <effect>',
  describe: 'Record what happened to an effect in doubt (append-only); resume then acts on it',
  builder: (yargs) =>
    yargs
      .positional('effect', { type: 'string', demandOption: true, describe: 'effect id (eff_...)' })
      .option('status', { choices: Object.keys(STATUSES), demandOption: true, describe: 'what happened' })
      .option('reason', { type: 'string', demandOption: true, describe: 'how you know (recorded)' })
      .option('actor', { type: 'string', describe: 'who says so (default: $USER, else "operator")' })
      .option('result-file', { type: 'string', describe: 'with applied: a JSON file holding the result the task continues with' })
      .option('db', dbOption()) as never,
  handler: handler<ReconcileArgs>(async (argv, output) => {
    const outcome = STATUSES[argv.status];
    const reason = reasonOf(argv.reason);
    const actor = actorOf(argv.actor, process.env);
    let result: JsonValue | undefined;
    if (argv['result-file'] !== undefined) {
      if (outcome !== 'applied') throw refused('--result-file goes with --status applied only', 'an effect that was not applied has no result');
      const text = readBoundedFile(argv['result-file'], 'result file');
      try {
        result = JSON.parse(text) as JsonValue;
      } catch (error) {
        throw refused(`--result-file ${argv['result-file']} is not JSON: ${errorMessage(error)}`, 'give a file holding one JSON value');
      }
    }
    const store = Store.open(databasePath(argv.db), { create: false });
    try {
      const check = (effect: EffectRow, earlier: Row[], live: boolean) => {
        if (!mayHaveHappened(effect, live)) {
          throw refused(`effect ${effect.id} is ${effect.state}${live && (effect.state === 'started' || effect.state === 'requested') ? ' and its run is still driven' : ''}: only an effect in doubt is reconciled`, 'see its state with agentctl effects inspect EFFECT');
        }
        const last = earlier.at(-1)?.outcome as Outcome | undefined;
        if (last && !NEXT[last].includes(outcome)) {
          throw refused(`effect ${effect.id} was reconciled ${last}; ${outcome} would contradict it`, `after ${last} only ${NEXT[last].join(' or ')} may be recorded`);
        }
      };
      store.reconcileEffect(argv.effect, { outcome, reason, actor, ...(result === undefined ? {} : { result }) }, check, (run) => liveness(run) === 'active');
      const effect = store.effect(argv.effect)!;
      const view = effectView(store, effect, false);
      emit(output, 'EffectReconciliation', view, () => `effect ${view.effectId} reconciled ${outcome} by ${neutralize(actor)}; continue with: agentctl resume ${view.runId}`);
      return 0;
    } finally {
      store.close();
    }
  }),
};

export const effectsCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'effects',
  describe: 'List, inspect and reconcile the effects a run recorded',
  builder: (yargs) => yargs.command(list).command(inspect).command(reconcile).demandCommand(1, 'name an effects subcommand: list, inspect, reconcile') as never,
  handler: () => undefined,
};
