// The ledger's rows as SQLite returns them, column for column (migrations.ts defines the columns). Object types, not
// interfaces: a typed row is still a `Row`, so code that reads any row by column name takes these as they are.
import type { ApprovalState, EffectState, RunMode, RunState, Disposition, TaskState } from '@agentctl/sdk';

/** A row as SQLite returns it. */
export type Row = Record<string, string | number | null>;

export type RunRow = {
  id: string;
  trace_id: string;
  workflow_name: string;
  workflow_digest: string;
  workflow_file: string | null;
  workflow_source: string;
  plan_json: string;
  inputs_json: string;
  memory_json: string;
  output_json: string | null;
  error_json: string | null;
  workspace: string;
  state: RunState;
  mode: RunMode;
  source_run_id: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** The scale-out stage of the run (runner/stage.ts), or null for an ordinary run. */
  stage_json: string | null;
};

/** What `runs list` reads of the newest runs: enough for their liveness. */
export type RecentRunRow = Pick<RunRow, 'id' | 'workflow_name' | 'state' | 'mode' | 'created_at' | 'finished_at' | 'lease_owner' | 'lease_expires_at' | 'stage_json'>;

export type TaskRow = {
  run_id: string;
  task_id: string;
  position: number;
  kind: string;
  state: TaskState;
  attempt: number;
  input_json: string | null;
  output_json: string | null;
  output_digest: string | null;
  error_json: string | null;
  disposition: Disposition | null;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
};

export type EffectRow = {
  id: string;
  run_id: string;
  task_id: string;
  attempt: number;
  ordinal: number;
  kind: string;
  operation: string;
  effect_class: string;
  risk: string;
  idempotency: string;
  input_json: string;
  input_digest: string;
  state: EffectState;
  result_json: string | null;
  error_json: string | null;
  requested_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
};

/** What modelUsage reads of a run's effects: the recorded response only of a succeeded model turn. */
export type UsageRow = Pick<EffectRow, 'operation' | 'state' | 'result_json'>;

export type ApprovalRow = {
  id: string;
  run_id: string;
  task_id: string;
  effect_id: string;
  state: ApprovalState;
  reason: string;
  decision_reason: string | null;
  actor: string | null;
  requested_at: string;
  decided_at: string | null;
};

export type ReconciliationRow = {
  seq: number;
  effect_id: string;
  outcome: 'applied' | 'not_applied' | 'compensated';
  reason: string;
  actor: string;
  created_at: string;
  result_json: string | null;
  compensation_run_id: string | null;
  compensation_task_id: string | null;
  compensation_effect_id: string | null;
};
