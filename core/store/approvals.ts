// The approvals part of the ledger: a request per gated effect, and the one decision an operator (or agentctl) records.
import { AgentctlError } from '@agentctl/sdk';
import { now, preparedOnce, type LedgerCore } from './ledger-core.js';
import type { ApprovalRow } from './rows.js';

export interface NewApproval {
  readonly id: string;
  readonly runId: string;
  readonly taskId: string;
  readonly effectId: string;
  readonly reason: string;
  /** An approval given at the terminal as it was asked for. */
  readonly decision?: { readonly actor: string; readonly reason: string };
}

export class ApprovalLedger {
  readonly #core: LedgerCore;
  readonly #statements;

  constructor(core: LedgerCore) {
    this.#core = core;
    this.#statements = preparedOnce(core.db, {
      insert: `INSERT INTO approvals (id, run_id, task_id, effect_id, state, reason, actor, decision_reason, requested_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row: `SELECT * FROM approvals WHERE id = ?`,
      forEffect: `SELECT * FROM approvals WHERE effect_id = ? ORDER BY requested_at DESC LIMIT 1`,
      decide: `UPDATE approvals SET state = ?, actor = ?, decision_reason = ?, decided_at = ? WHERE id = ? AND state = 'pending'`,
      pending: `SELECT id, task_id, effect_id FROM approvals WHERE run_id = ? AND state = 'pending'`,
      cancel: `UPDATE approvals SET state = 'cancelled', decision_reason = ?, actor = 'agentctl', decided_at = ? WHERE id = ?`,
      byRun: `SELECT * FROM approvals WHERE run_id = ? ORDER BY requested_at`,
    });
  }

  /** A pending request, or one already decided by an operator at the terminal. Call inside a transaction. */
  insertApproval(approval: NewApproval): void {
    const core = this.#core;
    const at = now();
    const decision = approval.decision;
    this.#statements.insert.run(approval.id, approval.runId, approval.taskId, approval.effectId, decision ? 'approved' : 'pending', core.sealText('approvals.reason', approval.reason), decision ? core.text(decision.actor) : null, decision ? core.sealText('approvals.decision_reason', decision.reason) : null, at, decision ? at : null);
    core.audit(approval.runId, { type: 'approval.requested', taskId: approval.taskId, effectId: approval.effectId, data: { approvalId: approval.id, reason: approval.reason } });
    if (decision) core.audit(approval.runId, { type: 'approval.approved', taskId: approval.taskId, effectId: approval.effectId, data: { approvalId: approval.id, actor: decision.actor, reason: decision.reason } });
  }

  approvalRow(approvalId: string): ApprovalRow | undefined {
    return this.#core.read(() => this.#core.opened('approvals', this.#statements.row.get(approvalId) as ApprovalRow | undefined));
  }

  approvalForEffect(effectId: string): ApprovalRow | undefined {
    return this.#core.read(() => this.#core.opened('approvals', this.#statements.forEffect.get(effectId) as ApprovalRow | undefined));
  }

  approvalRows(runId: string): ApprovalRow[] {
    return this.#core.read(() => this.#core.openedAll('approvals', this.#statements.byRun.all(runId) as ApprovalRow[]));
  }

  /** Records an operator's decision on a pending approval, once. */
  decideApproval(approvalId: string, decision: 'approved' | 'rejected', actor: string, reason: string): ApprovalRow {
    const core = this.#core;
    return core.transaction(() => {
      const row = core.opened('approvals', this.#statements.row.get(approvalId) as ApprovalRow | undefined);
      if (!row) throw new AgentctlError('AGENTCTL_E_APPROVAL_NOT_FOUND', `approval ${approvalId} does not exist in this database`, { help: 'list approvals with `agentctl approvals list RUN`' });
      if (row.state !== 'pending') {
        throw new AgentctlError('AGENTCTL_E_APPROVAL_NOT_PENDING', `approval ${approvalId} is already ${String(row.state)}${row.actor ? ` (by ${String(row.actor)})` : ''}; a decision is never changed`, {
          help: 'only a pending approval can be approved or rejected',
        });
      }
      const at = now();
      this.#statements.decide.run(decision, core.text(actor), core.sealText('approvals.decision_reason', reason), at, approvalId);
      const runId = String(row.run_id);
      core.audit(runId, { type: `approval.${decision}`, taskId: String(row.task_id), effectId: String(row.effect_id), data: { approvalId, actor, reason } });
      return core.opened('approvals', this.#statements.row.get(approvalId) as ApprovalRow);
    });
  }

  /** Cancels a run's pending approvals (nobody can approve an effect of a finished run); call inside a transaction. */
  cancelPending(runId: string, reason: string, at: string): void {
    const approvals = this.#statements.pending.all(runId) as { id: string; task_id: string; effect_id: string }[];
    for (const approval of approvals) {
      this.#statements.cancel.run(this.#core.sealText('approvals.decision_reason', reason), at, approval.id);
      this.#core.audit(runId, { type: 'approval.cancelled', taskId: approval.task_id, effectId: approval.effect_id, data: { approvalId: approval.id, reason } });
    }
  }
}
