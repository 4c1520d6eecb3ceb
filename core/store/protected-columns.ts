// The one list of the ledger's protected columns: what `db encryption enable` seals, what the write guards (triggers)
// watch, what inventory counts and what every read opens. A column that may hold a workflow's values belongs here;
// identifiers, states, kinds, operations, digests, paths and times stay readable (docs/state-encryption.md).

/** Every protected column, as `table.column`. Each table must be an ordinary rowid table. */
export const PROTECTED_COLUMNS = [
  'runs.workflow_source',
  'runs.plan_json',
  'runs.inputs_json',
  'runs.memory_json',
  'runs.output_json',
  'runs.error_json',
  'tasks.input_json',
  'tasks.output_json',
  'tasks.error_json',
  'effects.input_json',
  'effects.result_json',
  'effects.error_json',
  'approvals.reason',
  'approvals.decision_reason',
  'checkpoints.state_json',
  'audit_events.data_json',
  'reconciliations.reason',
  'reconciliations.result_json',
  'run_lineage.reason',
  'run_lineage.plan_json',
  'task_reuse.checks_json',
  'protocol_calls.state_json',
  'protocol_sessions.state_json',
  'long_term_memory.entry_json',
  'long_term_memory.metadata_json',
  'long_term_memory.search_tokens',
  'long_term_memory.embedding',
] as const;

/** One protected column, `table.column`: also the associated data its envelopes are bound to. */
export type ProtectedColumn = (typeof PROTECTED_COLUMNS)[number];

/** The protected columns of each table, by table name. */
export const PROTECTED_BY_TABLE: ReadonlyMap<string, readonly string[]> = (() => {
  const tables = new Map<string, string[]>();
  for (const name of PROTECTED_COLUMNS) {
    const [table, column] = name.split('.') as [string, string];
    tables.set(table, [...(tables.get(table) ?? []), column]);
  }
  return tables;
})();
