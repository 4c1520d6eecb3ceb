// Compensation claims: which compensation run may undo a source effect. A claim is taken in the transaction that
// creates the compensation run, and the ledger's unique index on held claims lets one run hold a source effect at a
// time, so no two runs dispatch its inverse. A claim is released only when its run ends (or an operator settles its
// run's effects) without the inverse having happened; one whose inverse happened, or may have, is held for good.
import { AgentctlError } from '@agentctl/sdk';
import type { SqliteDatabase } from './database.js';
import { preparedOnce } from './ledger-core.js';

export interface HeldClaim {
  readonly effectId: string;
  /** The compensation run holding it, its task and that run's state. */
  readonly runId: string;
  readonly taskId: string;
  readonly runState: string;
}

export interface NewClaim {
  readonly effectId: string;
  readonly sourceRunId: string;
  readonly compensationRunId: string;
  readonly compensationTaskId: string;
}

// An effect of the claiming task that may have changed something: it ran (or may have) and no operator said otherwise.
const MAY_HAVE_APPLIED = `EXISTS (
  SELECT 1 FROM effects e WHERE e.run_id = c.compensation_run_id AND e.task_id = c.compensation_task_id
    AND e.effect_class NOT IN ('pure','internal_state','observe') AND e.state IN ('requested','started','uncertain','succeeded')
    AND COALESCE((SELECT r.outcome FROM reconciliations r WHERE r.effect_id = e.id ORDER BY r.seq DESC LIMIT 1), '') <> 'not_applied')`;

const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | undefined)?.code === 'SQLITE_CONSTRAINT_UNIQUE';

/** Statements on `compensation_claims`; every writer runs inside the caller's transaction. */
export class CompensationClaims {
  readonly #statements;

  constructor(db: SqliteDatabase) {
    this.#statements = preparedOnce(db, {
      held: `SELECT c.source_effect_id, c.compensation_run_id, c.compensation_task_id, r.state FROM compensation_claims c JOIN runs r ON r.id = c.compensation_run_id
        WHERE c.source_run_id = ? AND c.released_at IS NULL`,
      take: `INSERT INTO compensation_claims (source_effect_id, source_run_id, compensation_run_id, compensation_task_id, claimed_at) VALUES (?, ?, ?, ?, ?)`,
      release: `UPDATE compensation_claims AS c SET released_at = ? WHERE c.compensation_run_id = ? AND c.released_at IS NULL
        AND (SELECT state FROM runs WHERE id = c.compensation_run_id) IN ('succeeded','failed','cancelled') AND NOT ${MAY_HAVE_APPLIED}`,
      released: `SELECT c.seq, c.source_effect_id, c.compensation_task_id FROM compensation_claims c WHERE c.compensation_run_id = ? AND c.released_at IS NOT NULL
        AND c.compensation_task_id IN (SELECT task_id FROM tasks WHERE run_id = c.compensation_run_id AND state = 'pending')`,
      hold: `UPDATE compensation_claims SET released_at = NULL WHERE seq = ?`,
      holder: `SELECT compensation_run_id FROM compensation_claims WHERE source_effect_id = ? AND released_at IS NULL`,
    });
  }

  /** The claims held on a source run's effects, by source effect id. */
  held(sourceRunId: string): Map<string, HeldClaim> {
    const rows = this.#statements.held.all(sourceRunId) as { source_effect_id: string; compensation_run_id: string; compensation_task_id: string; state: string }[];
    return new Map(rows.map((row) => [row.source_effect_id, { effectId: row.source_effect_id, runId: row.compensation_run_id, taskId: row.compensation_task_id, runState: row.state }]));
  }

  /** Takes the claims of a new compensation run; a source effect another run holds is a bug of the caller's plan. */
  take(claims: readonly NewClaim[], at: string): void {
    for (const claim of claims) this.#statements.take.run(claim.effectId, claim.sourceRunId, claim.compensationRunId, claim.compensationTaskId, at);
  }

  /** A compensation run has ended (or its effects were reconciled since): its claims whose inverse never happened are released. */
  release(runId: string, at: string): void {
    this.#statements.release.run(at, runId);
  }

  /**
   * A compensation run is resumed: the tasks it reopened (pending) hold their claims again. If another run claimed
   * one of those source effects meanwhile, the resume is refused: the inverse would run twice.
   */
  retake(runId: string): void {
    const released = this.#statements.released.all(runId) as { seq: number; source_effect_id: string; compensation_task_id: string }[];
    for (const claim of released) {
      try {
        this.#statements.hold.run(claim.seq);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const holder = this.#statements.holder.get(claim.source_effect_id) as { compensation_run_id: string };
        throw new AgentctlError('AGENTCTL_E_COMPENSATION_CLAIMED', `run ${runId} cannot be resumed: task ${claim.compensation_task_id} would undo effect ${claim.source_effect_id}, which compensation run ${holder.compensation_run_id} has claimed since`, {
          help: `the source effect is compensated by run ${holder.compensation_run_id}: inspect it with agentctl inspect ${holder.compensation_run_id}`,
        });
      }
    }
  }
}
