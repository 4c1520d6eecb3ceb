// Derived runs (retry, repair, fork): a new run linked to a recorded one, driven by the ordinary run driver. Reused
// tasks are materialized as the new run's own rows before the driver starts; they dispatch nothing and record no
// effect, and only the fresh tasks resolve secrets and run preflight.
import { setMaxListeners } from 'node:events';
import { AgentctlError, diagnostic, type Disposition, type JsonValue } from '@agentctl/sdk';
import type { Lineage } from '../store/lineage.js';
import type { Derivation } from './derive-plan.js';
import { newRunIdentity } from './identity.js';
import { drive, newRunRecord, preflight, type RunRequest, type RunResult } from './run.js';
import { Scheduler } from './scheduler.js';
import { RunPublisher } from './publisher.js';
import { SecretVault } from './secrets.js';

export interface DeriveRequest extends RunRequest {
  readonly derivation: Derivation;
  /** The operator's reason, recorded with the lineage. */
  readonly reason?: string;
}

/** The error a blocked plan ends the command with (exit 3): one diagnostic per block, nothing written. */
export function blockedError(derivation: Derivation): AgentctlError {
  const { plan } = derivation;
  const diagnostics = plan.blocks.map((block) =>
    diagnostic('AGENTCTL_E_REPAIR_BLOCKED', {
      message: `${block.block}: ${block.message}`,
      path: `tasks.${block.taskId}`,
      taskId: block.taskId,
      help: block.block === 'unreconciled_effect' ? `check whether it happened, then: agentctl effects reconcile ${block.effectId} --status applied|not-applied|compensated --reason TEXT` : HELP[block.block] ?? 'see docs/recovery.md',
    }),
  );
  const names = [...new Set(plan.blocks.map((block) => block.block))].join(', ');
  return new AgentctlError('AGENTCTL_E_REPAIR_BLOCKED', `the ${plan.mode} of run ${plan.sourceRunId} is blocked (${names}); nothing was written`, { diagnostics });
}

const HELP: Readonly<Record<string, string>> = {
  repair_root_missing: 'name only tasks the corrected workflow still has in --from',
  successful_root_requires_acknowledgement: 'pass --restart-successful to run succeeded tasks again',
  non_idempotent_effect: 'pass --restart-successful if doing that effect again is intended',
  new_task_outside_repair_closure: 'name the new task (or a task it needs) in --from',
  compensated_effect: 'its result was undone by a compensation: name the task in --from, with --restart-successful, to run it again',
};

export async function deriveRun(request: DeriveRequest): Promise<RunResult> {
  const { store, plan, derivation } = request;
  if (!derivation.plan.compatible) throw blockedError(derivation);
  setMaxListeners(0, request.signal);
  const reusedIds = new Set(derivation.reused.map((task) => task.taskId));
  const fresh = plan.tasks.filter((task) => !reusedIds.has(task.id));
  const vault = new SecretVault(() => store.digestKey());
  // Secrets of reused tasks are not needed: their results are taken from the record.
  await preflight(request, vault, fresh);
  store.setRedactor(vault.redactor.redactValue, () => vault.redactor.size);

  const { runId, traceId } = newRunIdentity();
  const publisher = new RunPublisher(request.host, store, runId);
  const { mode, sourceRunId, roots } = derivation.plan;
  const lineage: Lineage = { mode, sourceRunId, roots, ...(request.reason === undefined ? {} : { reason: request.reason }), plan: derivation.plan as unknown as JsonValue };
  store.createDerivedRun({ ...newRunRecord(request, runId, traceId), sourceRunId }, derivation.reused, lineage);
  const scheduler = new Scheduler(plan.tasks);
  const outputs: Record<string, { output: JsonValue }> = {};
  const dispositions: Record<string, Disposition> = {};
  for (const task of derivation.reused) {
    scheduler.restore(task.taskId, 'succeeded');
    outputs[task.taskId] = { output: task.output };
    dispositions[task.taskId] = 'reused';
  }
  for (const task of fresh) dispositions[task.id] = 'executed';
  const result = await drive(request, { runId, traceId, scheduler, outputs, attempts: new Map(), dispositions, vault, publisher });
  const details = { mode, sourceRunId, roots: [...roots], reused: [...reusedIds], executed: fresh.map((task) => task.id) };
  return { ...result, details };
}
