// `agentctl effects list RUN | inspect EFFECT | reconcile EFFECT`: the operator's view of the ledger's effects, in
// the reference's shapes (EffectList, EffectInspection, EffectReconciliation) with agentctl's fields beside them.
import type { Argv, CommandModule } from 'yargs';
import { AgentctlError, errorMessage, jsonSchemaProblems, type JsonValue } from '@agentctl/sdk';
import { readBoundedFile } from '../../compiler/source.js';
import { parser } from '../../store/inspection.js';
import { liveness } from '../../store/liveness.js';
import { mayHaveHappened, type RunDrive } from '../../store/doubt.js';
import { effectRecord, protocolCallOf, reconciliationAccounts, reconciliationRecords, type EffectRecord, type ReconciliationRecord } from '../../store/ledger-records.js';
import { Store, type EffectRow, type Row } from '../../store/store.js';
import { handler, type GlobalArgs } from '../handler.js';
import { emit, neutralize } from '../output.js';
import { actorOf, reasonOf } from './approvals.js';
import { databasePath, dbOption } from '../database-option.js';
import type { Composition } from '../composition.js';
import { continueRemoteCommand } from './continue-remote.js';

type Outcome = 'applied' | 'not_applied' | 'compensated';

/** What may follow each reconciliation: an account is refined, never contradicted. */
const NEXT: Readonly<Record<Outcome, readonly Outcome[]>> = { applied: ['applied', 'compensated'], not_applied: ['not_applied'], compensated: ['compensated'] };
const STATUSES = { applied: 'applied', 'not-applied': 'not_applied', compensated: 'compensated' } as const;

/** A run's effects and the reconciliations of them, as records; each effect also carries its own reconciliations. */
function runEffects(store: Store, run: Row) {
  const runId = String(run.id);
  const parse = parser(runId);
  const context = { runId, traceId: String(run.trace_id), drive: { state: run.state, live: liveness(run) === 'active' } };
  const reconciliations = reconciliationRecords(store.runReconciliations(runId), context, reconciliationAccounts(store.auditRows(runId), parse), parse);
  const byEffect = new Map<string, ReconciliationRecord[]>();
  for (const record of reconciliations) byEffect.set(record.effectId, [...(byEffect.get(record.effectId) ?? []), record]);
  const effects = store.effectRows(runId).map((row) => {
    const own = byEffect.get(String(row.id)) ?? [];
    return { ...effectRecord(row, context, (own.at(-1)?.outcome as string | undefined) ?? null, parse), reconciliations: own };
  });
  return { effects, reconciliations };
}

const line = (view: EffectRecord) =>
  `${String(view.effectId)}  ${view.state}${view.reconciled ? ` (reconciled ${view.reconciled})` : view.inDoubt ? ' (in doubt)' : ''}  task ${String(view.taskId)} attempt ${String(view.attempt)}  ${neutralize(String(view.operation))}`;

const dbArgument = <T>(yargs: Argv<T>) => yargs.option('db', dbOption());

interface ListArgs extends GlobalArgs {
  run: string;
  task?: string;
  db?: string;
}

const list: CommandModule<GlobalArgs, ListArgs> = {
  command: 'list <run>',
  describe: 'List the effects of a run (or of one of its tasks), with their reconciliations',
  builder: (yargs) =>
    dbArgument(yargs.positional('run', { type: 'string', demandOption: true, describe: 'run id' }).option('task', { type: 'string', describe: 'only the effects of this task' })) as never,
  handler: handler<ListArgs>(async (argv, output) => {
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
    try {
      const run = store.existingRun(argv.run);
      const all = runEffects(store, run);
      const effects = argv.task === undefined ? all.effects : all.effects.filter((effect) => effect.taskId === argv.task);
      emit(output, 'EffectList', { runId: argv.run, taskId: argv.task ?? null, effects, reconciliations: all.reconciliations }, () => effects.map(line).join('\n') || 'no effects');
      return 0;
    } finally {
      store.close();
    }
  }),
};

/** One effect of its run, with its reconciliations; EFFECT_NOT_FOUND when there is none. */
function loadEffect(store: Store, effectId: string) {
  const row = store.effect(effectId);
  if (!row) throw new AgentctlError('AGENTCTL_E_EFFECT_NOT_FOUND', `effect ${effectId} does not exist in this database`, { help: 'list effects with `agentctl effects list RUN`' });
  const found = runEffects(store, store.runRow(String(row.run_id))!).effects.find((effect) => effect.effectId === effectId)!;
  const { reconciliations, ...effect } = found;
  return { effect, reconciliations };
}

const inspect: CommandModule<GlobalArgs, { effect: string; db?: string } & GlobalArgs> = {
  command: 'inspect <effect>',
  describe: 'Show one effect: its request, outcome and reconciliations',
  builder: (yargs) => dbArgument(yargs.positional('effect', { type: 'string', demandOption: true, describe: 'effect id (eff_...)' })) as never,
  handler: handler(async (argv: { effect: string; db?: string } & GlobalArgs, output) => {
    const store = Store.open(databasePath(argv.db), { create: false, readonly: true, stateKeys: argv.stateKeys });
    try {
      const { effect, reconciliations } = loadEffect(store, argv.effect);
      const data = { effect, reconciliations, effectiveReconciliation: reconciliations.at(-1) ?? null, protocolCall: protocolCallOf(effect, store.protocols.call(String(effect.effectId)), parser(String(effect.runId))) };
      emit(output, 'EffectInspection', data, () =>
        [line(effect), `  input ${neutralize(JSON.stringify(effect.input))}`, ...reconciliations.map((item) => `  ${String(item.seq)} ${String(item.outcome)} by ${neutralize(String(item.actor))}: ${neutralize(String(item.reason))}`)].join('\n'),
      );
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
  'evidence-file'?: string;
  'result-file'?: string;
  'result-schema-file'?: string;
  'compensation-effect'?: string;
  approved?: boolean;
  db?: string;
}

const refused = (message: string, help: string) => new AgentctlError('AGENTCTL_E_RECONCILIATION_REFUSED', message, { help });

/** A JSON file an operator gives (`--evidence-file`, `--result-file`, `--result-schema-file`). */
function jsonFile(option: string, path: string): JsonValue {
  const text = readBoundedFile(path, option.replace(/^--/, '').replace(/-/g, ' '));
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw refused(`${option} ${path} is not JSON: ${errorMessage(error)}`, 'give a file holding one JSON value');
  }
}

/** The reconciliation's files, checked against each other before the database is opened. */
function accountOf(argv: ReconcileArgs, outcome: Outcome, reason: string, actor: string) {
  const result = argv['result-file'] === undefined ? undefined : jsonFile('--result-file', argv['result-file']);
  if (result !== undefined && outcome !== 'applied') throw refused('--result-file goes with --status applied only', 'an effect that was not applied has no result');
  const resultSchema = argv['result-schema-file'] === undefined ? null : jsonFile('--result-schema-file', argv['result-schema-file']);
  if (resultSchema !== null) {
    if (result === undefined) throw refused('--result-schema-file checks the --result-file: give both', 'add --result-file FILE with the result the task continues with');
    let problems: string[];
    try {
      problems = jsonSchemaProblems(resultSchema, result);
    } catch (error) {
      throw refused(`--result-schema-file ${argv['result-schema-file']} is not a valid JSON Schema: ${errorMessage(error)}`, 'give a JSON Schema (draft 2020-12)');
    }
    if (problems.length > 0) throw refused(`the --result-file does not match the --result-schema-file: ${problems.join('; ')}`, 'correct the result, or the schema, and record it again');
  }
  if (argv['compensation-effect'] !== undefined && outcome !== 'compensated') throw refused('--compensation-effect goes with --status compensated only', 'name the effect that undid this one with --status compensated');
  const evidence = argv['evidence-file'] === undefined ? { kind: 'operator_statement', statement: reason } : jsonFile('--evidence-file', argv['evidence-file']);
  const authorization = { kind: 'operator', actor, explicitApproval: argv.approved === true };
  return { result, account: { evidence, resultSchema, authorization } };
}

const reconcile: CommandModule<GlobalArgs, ReconcileArgs> = {
  command: 'reconcile <effect>',
  describe: 'Record what happened to an effect in doubt (append-only); resume then acts on it',
  builder: (yargs) =>
    dbArgument(
      yargs
        .positional('effect', { type: 'string', demandOption: true, describe: 'effect id (eff_...)' })
        .option('status', { choices: Object.keys(STATUSES), demandOption: true, describe: 'what happened' })
        .option('reason', { type: 'string', demandOption: true, describe: 'how you know (recorded)' })
        .option('actor', { type: 'string', describe: 'who says so (default: $USER, else "operator")' })
        .option('evidence-file', { type: 'string', describe: 'a JSON file with what shows it (recorded; default: the reason)' })
        .option('result-file', { type: 'string', describe: 'with applied: a JSON file holding the result the task continues with' })
        .option('result-schema-file', { type: 'string', describe: 'a JSON Schema the --result-file must match (recorded)' })
        .option('compensation-effect', { type: 'string', describe: 'with compensated: the effect of the same run that undid it' })
        .option('approved', { type: 'boolean', describe: 'explicit operator approval (recorded)' }),
    ) as never,
  handler: handler<ReconcileArgs>(async (argv, output) => {
    const outcome = STATUSES[argv.status];
    const reason = reasonOf(argv.reason);
    const actor = actorOf(argv.actor, process.env);
    const { result, account } = accountOf(argv, outcome, reason, actor);
    const compensationEffectId = argv['compensation-effect'];
    const store = Store.open(databasePath(argv.db), { create: false, stateKeys: argv.stateKeys });
    try {
      const check = (effect: EffectRow, earlier: Row[], run: RunDrive) => {
        if (!mayHaveHappened(effect, run)) {
          throw refused(`effect ${effect.id} is ${effect.state}${run.live && (effect.state === 'started' || effect.state === 'requested') ? ' and its run is still driven' : ''}: only an effect in doubt is reconciled`, 'see its state with agentctl effects inspect EFFECT');
        }
        const last = earlier.at(-1)?.outcome as Outcome | undefined;
        if (last && !NEXT[last].includes(outcome)) {
          throw refused(`effect ${effect.id} was reconciled ${last}; ${outcome} would contradict it`, `after ${last} only ${NEXT[last].join(' or ')} may be recorded`);
        }
        if (compensationEffectId !== undefined) checkCompensation(store, effect, compensationEffectId);
      };
      const entry = { outcome, reason, actor, account, ...(result === undefined ? {} : { result }), ...(compensationEffectId === undefined ? {} : { compensationEffectId }) };
      store.reconcileEffect(argv.effect, entry, check, (run) => liveness(run) === 'active');
      const { effect, reconciliations } = loadEffect(store, argv.effect);
      const record = { ...reconciliations.at(-1)!, effect };
      emit(output, 'EffectReconciliation', record, () => `effect ${String(effect.effectId)} reconciled ${outcome} by ${neutralize(actor)}; continue with: agentctl resume ${String(effect.runId)}`);
      return 0;
    } finally {
      store.close();
    }
  }),
};

/** A compensation effect is another effect of the same run that is known to have happened. */
function checkCompensation(store: Store, effect: EffectRow, compensationEffectId: string): void {
  const other = store.effect(compensationEffectId);
  const help = 'name a succeeded effect of the same run that undid this one';
  if (!other || other.run_id !== effect.run_id) throw refused(`--compensation-effect ${compensationEffectId} is not an effect of run ${effect.run_id}`, help);
  if (other.id === effect.id) throw refused('--compensation-effect names the effect being reconciled', help);
  const applied = store.reconciliationRows(other.id).at(-1)?.outcome === 'applied';
  if (other.state !== 'succeeded' && !applied) throw refused(`--compensation-effect ${compensationEffectId} is ${other.state}: only an effect that happened compensates`, help);
}

export const effectsCommand = (composition: Composition): CommandModule<GlobalArgs, { db?: string } & GlobalArgs> => ({
  command: 'effects',
  describe: 'List, inspect and reconcile the effects a run recorded',
  // --db may come before the subcommand too (`effects --db PATH list RUN`), as the reference takes it.
  builder: (yargs) =>
    dbArgument(yargs).command(list).command(inspect).command(reconcile).command(continueRemoteCommand(composition)).demandCommand(1, 'name an effects subcommand: list, inspect, reconcile, continue-remote') as never,
  handler: () => undefined,
});
