// `agentctl effects continue-remote EFFECT`: observes the remote work an effect in doubt started (a remote task whose
// id its protocol call recorded) through the effect's own action kind, keeps what it produced, and records the
// result as an `applied` reconciliation; `resume` then continues the run with it. Nothing is ever sent anew.
import type { CommandModule } from 'yargs';
import { AgentctlError, type CompiledPlan, type JsonValue, type CapturedVars } from '@agentctl/sdk';
import { compileText } from '../../compiler/compile.js';
import { continueRemote } from '../../runner/continue-remote.js';
import { mayHaveHappened } from '../../store/doubt.js';
import { liveness } from '../../store/liveness.js';
import { Store, type EffectRow, type Row } from '../../store/store.js';
import type { Composition } from '../composition.js';
import { databasePath, dbOption } from '../database-option.js';
import { handler, packOptions, type GlobalArgs } from '../handler.js';
import { emit, neutralize } from '../output.js';
import { restoreRunConfig, type RestoreArgs } from '../run-config.js';
import { actorOf, reasonOf } from './approvals.js';
import { parser } from '../../store/inspection.js';
import { effectRecord, reconciliationAccounts, reconciliationRecords } from '../../store/ledger-records.js';

interface ContinueArgs extends GlobalArgs {
  effect: string;
  reason?: string;
  actor?: string;
  db?: string;
}

const notContinuable = (message: string) => new AgentctlError('AGENTCTL_E_EFFECT_NOT_CONTINUABLE', message, { help: 'find out what happened remotely, then record it with `agentctl effects reconcile`' });

export const continueRemoteCommand = (composition: Composition): CommandModule<GlobalArgs, ContinueArgs> => ({
  command: 'continue-remote <effect>',
  describe: 'Observe the remote task an effect in doubt started, keep its artifacts, and record it applied (nothing is sent again)',
  builder: (yargs) =>
    yargs
      .positional('effect', { type: 'string', demandOption: true, describe: 'effect id (eff_...)' })
      .option('reason', { type: 'string', describe: 'why (recorded; default: the remote task observed)' })
      .option('actor', { type: 'string', describe: 'who (default: $USER, else "operator")' })
      .option('db', dbOption()) as never,
  handler: handler<ContinueArgs>(async (argv, output) => {
    const actor = actorOf(argv.actor, process.env);
    const store = Store.open(databasePath(argv.db), { create: false });
    try {
      const effect = store.effect(argv.effect);
      if (!effect) throw new AgentctlError('AGENTCTL_E_EFFECT_NOT_FOUND', `effect ${argv.effect} does not exist in this database`, { help: 'list effects with `agentctl effects list RUN`' });
      const row = store.existingRun(String(effect.run_id));
      const live = liveness(row) === 'active';
      if (!mayHaveHappened(effect, { state: row.state, live }) || store.reconciliationRows(effect.id).length > 0) {
        throw notContinuable(`effect ${effect.id} is ${String(effect.state)}${live ? ' in a run still driven' : ''}${store.reconciliationRows(effect.id).length > 0 ? ' and already reconciled' : ''}: only an effect in doubt is continued`);
      }
      await restoreRunConfig(composition, argv as RestoreArgs, row);
      const host = composition.compose({});
      const plan = await recordedPlan(host, row, argv);
      const controller = new AbortController();
      const stop = () => controller.abort(new Error('interrupted'));
      process.once('SIGINT', stop).once('SIGTERM', stop);
      let observed;
      try {
        observed = await continueRemote({ host, store, plan, runId: String(row.id), traceId: String(row.trace_id), effectId: effect.id, workspaceRoot: String(row.workspace), environment: process.env, signal: controller.signal });
      } finally {
        process.off('SIGINT', stop).off('SIGTERM', stop);
      }
      const reason = argv.reason === undefined ? `observed remote ${observed.protocol} task ${observed.remoteId} to its end with effects continue-remote` : reasonOf(argv.reason);
      const account = {
        // The task's output as its kind derived it from the observed result (checked against its outputSchema): what a
        // retry of the run reuses the task with.
        evidence: { kind: 'remote_observation', protocol: observed.protocol, remoteId: observed.remoteId, artifacts: observed.artifacts.map((artifact) => ({ path: artifact.path, digest: artifact.digest, size: artifact.size })), taskOutput: observed.output },
        resultSchema: null,
        authorization: { kind: 'operator', actor, explicitApproval: false },
      } as Record<string, JsonValue>;
      store.transaction(() => {
        // This process took the call up: its generation counts it, as a resume's does.
        store.protocols.takenUp(effect.id);
        if (observed.artifacts.length > 0) store.recordArtifacts(String(row.id), String(effect.task_id), observed.artifacts);
        store.reconcileEffect(effect.id, { outcome: 'applied', reason, actor, result: observed.result, account }, (current: EffectRow, earlier: Row[]) => {
          if (earlier.length > 0 || !['started', 'uncertain'].includes(String(current.state))) throw notContinuable(`effect ${current.id} changed while it was observed`);
        }, (run) => liveness(run) === 'active');
      });
      const record = reconciliationOf(store, effect.id);
      emit(output, 'EffectReconciliation', record, () => `effect ${effect.id} reconciled applied by ${neutralize(actor)} (remote ${observed.protocol} task ${neutralize(observed.remoteId)}); continue with: agentctl resume ${String(row.id)}`);
      return 0;
    } finally {
      store.close();
    }
  }),
});

/** The run's plan compiled from its recorded workflow and inputs, as resume compiles it. */
async function recordedPlan(host: ReturnType<Composition['compose']>, row: Row, argv: ContinueArgs): Promise<CompiledPlan> {
  if (row.mode === 'compensation') return JSON.parse(String(row.plan_json)) as CompiledPlan;
  const inputs = JSON.parse(String(row.inputs_json)) as Record<string, JsonValue>;
  const captured = (JSON.parse(String(row.plan_json)) as { capturedVars?: CapturedVars }).capturedVars;
  return (await compileText(host, String(row.workflow_file ?? 'workflow.yaml'), String(row.workflow_source), { inputs, packs: packOptions(argv), ...(captured ? { vars: { captured } } : {}) })).plan;
}

/** The reconciliation just recorded with its effect, as `effects reconcile` prints it. */
function reconciliationOf(store: Store, effectId: string) {
  const row = store.effect(effectId)!;
  const run = store.runRow(String(row.run_id))!;
  const runId = String(run.id);
  const parse = parser(runId);
  const context = { runId, traceId: String(run.trace_id), drive: { state: run.state, live: liveness(run) === 'active' } };
  const own = reconciliationRecords(store.reconciliationRows(effectId), context, reconciliationAccounts(store.auditRows(runId), parse), parse);
  return { ...own.at(-1)!, effect: effectRecord(row, context, (own.at(-1)?.outcome as string | undefined) ?? null, parse) };
}
