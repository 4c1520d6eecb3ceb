// What the reuse checks of a derived run report: the blocks that stop a plan and the checks of a candidate task.
// Below both derive-plan.ts and reuse-checks.ts, which share them.

/** Why a plan cannot be carried out. Stable snake_case names: scripts match on them. */
export type BlockName =
  | 'repair_root_missing'
  | 'successful_root_requires_acknowledgement'
  | 'definition_fingerprint_mismatch'
  | 'resolved_input_digest_mismatch'
  | 'dependency_set_mismatch'
  | 'output_contract_mismatch'
  | 'output_digest_mismatch'
  | 'artifact_integrity'
  | 'new_task_outside_repair_closure'
  | 'unreconciled_effect'
  | 'non_idempotent_effect'
  | 'compensated_effect';

export interface Block {
  readonly block: BlockName;
  readonly taskId: string;
  readonly message: string;
  readonly effectId?: string;
}

/** One reuse check of a candidate task: whether it passed, and what it compared. */
export interface Check {
  readonly check: string;
  readonly passed: boolean;
  readonly detail: string;
}
