// Forward-only schema migrations, keyed on PRAGMA user_version. Never edit a shipped migration: add one.

import { APPROVAL_STATES, EFFECT_STATES as EFFECT_STATE_NAMES, RUN_STATES as RUN_STATE_NAMES, TASK_DISPOSITIONS, TASK_STATES as TASK_STATE_NAMES } from '@agentctl/sdk';

export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
  /**
   * The migration rebuilds a table that others refer to (SQLite cannot change a CHECK in place): foreign keys are
   * switched off around its transaction and checked before it commits.
   */
  readonly rebuildsTables?: boolean;
}

// The CHECK lists come from the SDK's vocabularies. A shipped migration's SQL must never change: a new state needs a
// new migration, and the migration test pins the text of version 1.
const list = (states: readonly string[]) => states.map((state) => `'${state}'`).join(',');
const RUN_STATES = list(RUN_STATE_NAMES);
const TASK_STATES = list(TASK_STATE_NAMES);
const EFFECT_STATES = list(EFFECT_STATE_NAMES);
// The run modes of version 1, as shipped: later modes come with the migration that admits them.
const V1_RUN_MODES = ['execute', 'replay', 'retry', 'repair', 'fork'];

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, tasks, effects, approvals, reconciliations, audit events, checkpoints, artifacts',
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        workflow_name TEXT NOT NULL,
        workflow_digest TEXT NOT NULL,
        workflow_file TEXT,
        workflow_source TEXT NOT NULL,
        plan_json TEXT NOT NULL,
        inputs_json TEXT NOT NULL,
        memory_json TEXT NOT NULL DEFAULT '{}',
        output_json TEXT,
        error_json TEXT,
        workspace TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN (${RUN_STATES})),
        mode TEXT NOT NULL DEFAULT 'execute' CHECK (mode IN (${list(V1_RUN_MODES)})),
        source_run_id TEXT REFERENCES runs(id),
        lease_owner TEXT,
        lease_expires_at INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT
      ) STRICT;
      CREATE INDEX runs_by_created ON runs(created_at);

      CREATE TABLE tasks (
        run_id TEXT NOT NULL REFERENCES runs(id),
        task_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        kind TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN (${TASK_STATES})),
        attempt INTEGER NOT NULL DEFAULT 0,
        input_json TEXT,
        output_json TEXT,
        error_json TEXT,
        disposition TEXT CHECK (disposition IN (${list(TASK_DISPOSITIONS)})),
        started_at TEXT,
        finished_at TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (run_id, task_id)
      ) STRICT;

      CREATE TABLE effects (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        ordinal INTEGER NOT NULL,
        kind TEXT NOT NULL,
        operation TEXT NOT NULL,
        effect_class TEXT NOT NULL,
        risk TEXT NOT NULL,
        idempotency TEXT NOT NULL,
        input_json TEXT NOT NULL,
        input_digest TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN (${EFFECT_STATES})),
        result_json TEXT,
        error_json TEXT,
        requested_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT,
        updated_at TEXT NOT NULL,
        FOREIGN KEY (run_id, task_id) REFERENCES tasks(run_id, task_id),
        UNIQUE (run_id, task_id, attempt, ordinal)
      ) STRICT;
      CREATE INDEX effects_by_state ON effects(state);

      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id),
        task_id TEXT NOT NULL,
        effect_id TEXT NOT NULL REFERENCES effects(id),
        state TEXT NOT NULL CHECK (state IN (${list(APPROVAL_STATES)})),
        reason TEXT NOT NULL,
        decision_reason TEXT,
        actor TEXT,
        requested_at TEXT NOT NULL,
        decided_at TEXT
      ) STRICT;
      CREATE INDEX approvals_by_run ON approvals(run_id, state);

      CREATE TABLE reconciliations (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        effect_id TEXT NOT NULL REFERENCES effects(id),
        outcome TEXT NOT NULL CHECK (outcome IN ('applied','not_applied','compensated')),
        reason TEXT NOT NULL,
        actor TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE audit_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL REFERENCES runs(id),
        task_id TEXT,
        effect_id TEXT,
        type TEXT NOT NULL,
        data_json TEXT NOT NULL,
        at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX audit_by_run ON audit_events(run_id, seq);

      CREATE TABLE checkpoints (
        run_id TEXT NOT NULL REFERENCES runs(id),
        seq INTEGER NOT NULL,
        task_id TEXT,
        state_json TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) STRICT;

      CREATE TABLE artifacts (
        digest TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE task_artifacts (
        run_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        path TEXT NOT NULL,
        digest TEXT NOT NULL REFERENCES artifacts(digest),
        PRIMARY KEY (run_id, task_id, path),
        FOREIGN KEY (run_id, task_id) REFERENCES tasks(run_id, task_id)
      ) STRICT;
    `,
  },
  {
    version: 2,
    description: 'metadata: values of the database itself, such as the key of recorded secret digests',
    sql: `
      CREATE TABLE metadata (
        key TEXT PRIMARY KEY,
        value BLOB NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 3,
    description: 'reconciliations: the result an operator supplies with an applied reconciliation',
    sql: `
      ALTER TABLE reconciliations ADD COLUMN result_json TEXT;
      CREATE INDEX reconciliations_by_effect ON reconciliations(effect_id, seq);
    `,
  },
  {
    version: 4,
    description: 'budget_reservations: the run budget ledger, one row per run, reservation key and dimension',
    sql: `
      CREATE TABLE budget_reservations (
        run_id TEXT NOT NULL REFERENCES runs(id),
        reservation_key TEXT NOT NULL,
        dimension TEXT NOT NULL,
        reserved INTEGER NOT NULL CHECK (reserved >= 0),
        used INTEGER CHECK (used >= 0),
        state TEXT NOT NULL CHECK (state IN ('active','consumed','released')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (run_id, reservation_key, dimension)
      ) STRICT;
      CREATE INDEX budget_reservations_by_state ON budget_reservations(run_id, dimension, state);
    `,
  },
  {
    version: 5,
    description: 'lineage of derived runs (retry, repair, fork), the reuse checks of each reused task, and task output digests',
    sql: `
      ALTER TABLE tasks ADD COLUMN output_digest TEXT;
      CREATE TABLE run_lineage (
        run_id TEXT PRIMARY KEY REFERENCES runs(id),
        source_run_id TEXT NOT NULL REFERENCES runs(id),
        mode TEXT NOT NULL CHECK (mode IN ('retry','repair','fork')),
        roots_json TEXT NOT NULL,
        reason TEXT,
        plan_json TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE task_reuse (
        run_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        source_run_id TEXT NOT NULL REFERENCES runs(id),
        checks_json TEXT NOT NULL,
        source_effect_ids_json TEXT NOT NULL,
        PRIMARY KEY (run_id, task_id),
        FOREIGN KEY (run_id, task_id) REFERENCES tasks(run_id, task_id)
      ) STRICT;
    `,
  },
  {
    version: 6,
    description: 'compensation runs: the compensation run mode, and the compensation a compensated reconciliation records',
    rebuildsTables: true,
    sql: `
      CREATE TABLE runs_v6 (
        id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        workflow_name TEXT NOT NULL,
        workflow_digest TEXT NOT NULL,
        workflow_file TEXT,
        workflow_source TEXT NOT NULL,
        plan_json TEXT NOT NULL,
        inputs_json TEXT NOT NULL,
        memory_json TEXT NOT NULL DEFAULT '{}',
        output_json TEXT,
        error_json TEXT,
        workspace TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN (${RUN_STATES})),
        mode TEXT NOT NULL DEFAULT 'execute' CHECK (mode IN ('execute','replay','retry','repair','fork','compensation')),
        source_run_id TEXT REFERENCES runs(id),
        lease_owner TEXT,
        lease_expires_at INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT
      ) STRICT;
      INSERT INTO runs_v6 SELECT id, trace_id, workflow_name, workflow_digest, workflow_file, workflow_source, plan_json, inputs_json, memory_json,
        output_json, error_json, workspace, state, mode, source_run_id, lease_owner, lease_expires_at, created_at, updated_at, finished_at FROM runs;
      DROP TABLE runs;
      ALTER TABLE runs_v6 RENAME TO runs;
      CREATE INDEX runs_by_created ON runs(created_at);
      CREATE INDEX runs_by_source ON runs(source_run_id, mode);

      CREATE TABLE run_lineage_v6 (
        run_id TEXT PRIMARY KEY REFERENCES runs(id),
        source_run_id TEXT NOT NULL REFERENCES runs(id),
        mode TEXT NOT NULL CHECK (mode IN ('retry','repair','fork','compensation')),
        roots_json TEXT NOT NULL,
        reason TEXT,
        plan_json TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
      INSERT INTO run_lineage_v6 SELECT run_id, source_run_id, mode, roots_json, reason, plan_json, created_at FROM run_lineage;
      DROP TABLE run_lineage;
      ALTER TABLE run_lineage_v6 RENAME TO run_lineage;

      ALTER TABLE reconciliations ADD COLUMN compensation_run_id TEXT REFERENCES runs(id);
      ALTER TABLE reconciliations ADD COLUMN compensation_task_id TEXT;
      ALTER TABLE reconciliations ADD COLUMN compensation_effect_id TEXT REFERENCES effects(id);
    `,
  },
  {
    version: 7,
    description: 'compensation claims: each source effect is compensated by at most one compensation run at a time',
    // A claim is held while released_at is NULL: the partial unique index lets one claim per source effect be held.
    // Compensation runs still unfinished when the database is migrated take the claims of what they compensate.
    sql: `
      CREATE TABLE compensation_claims (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        source_effect_id TEXT NOT NULL REFERENCES effects(id),
        source_run_id TEXT NOT NULL REFERENCES runs(id),
        compensation_run_id TEXT NOT NULL REFERENCES runs(id),
        compensation_task_id TEXT NOT NULL,
        claimed_at TEXT NOT NULL,
        released_at TEXT
      ) STRICT;
      CREATE UNIQUE INDEX compensation_claims_held ON compensation_claims(source_effect_id) WHERE released_at IS NULL;
      CREATE INDEX compensation_claims_by_run ON compensation_claims(compensation_run_id);
      INSERT OR IGNORE INTO compensation_claims (source_effect_id, source_run_id, compensation_run_id, compensation_task_id, claimed_at)
        SELECT effect.value, run.source_run_id, run.id, json_extract(task.value, '$.id'), run.created_at
        FROM runs run, json_each(run.plan_json, '$.tasks') task, json_each(task.value, '$.compensates.effectIds') effect
        WHERE run.mode = 'compensation' AND run.state IN ('running','paused') AND EXISTS (SELECT 1 FROM effects WHERE id = effect.value)
        ORDER BY run.created_at, run.id;
    `,
  },
  {
    version: 8,
    description: 'long-term memory: typed entries by namespace and key, their words and vectors for search, and their expiry',
    // The embedding columns name what made the vector: a search embedded otherwise is refused, never compared. The
    // vector is its float32 bytes in base64 (TEXT), so state encryption seals it like any other protected value.
    sql: `
      CREATE TABLE long_term_memory (
        namespace TEXT NOT NULL CHECK (namespace <> ''),
        memory_key TEXT NOT NULL CHECK (memory_key <> ''),
        entry_json TEXT NOT NULL,
        metadata_json TEXT NOT NULL DEFAULT '{}',
        search_tokens TEXT NOT NULL DEFAULT '',
        embedding_provider TEXT,
        embedding_model TEXT,
        embedding_dimensions INTEGER,
        embedding TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        expires_at TEXT,
        PRIMARY KEY (namespace, memory_key)
      ) STRICT;
      CREATE INDEX long_term_memory_expiry ON long_term_memory(expires_at) WHERE expires_at IS NOT NULL;
    `,
  },
  {
    version: 9,
    description: 'state_encryption: the key id and key variable of encrypted state, and the check that a key is that key',
    // One row at most; none while the state is not encrypted. The write guards (triggers) are installed with it
    // (state-protection.ts), from the list of protected columns, so a column added later is guarded too.
    sql: `
      CREATE TABLE state_encryption (
        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
        format_version INTEGER NOT NULL,
        key_id TEXT NOT NULL,
        key_reference TEXT NOT NULL,
        key_check TEXT NOT NULL,
        scrub_pending INTEGER NOT NULL DEFAULT 0,
        enabled_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 10,
    description: 'protocol calls and sessions: the remote identity of an effect, committed while it is performed, so a later process observes instead of sending again',
    sql: `
      CREATE TABLE protocol_calls (
        effect_id TEXT PRIMARY KEY REFERENCES effects(id),
        run_id TEXT NOT NULL REFERENCES runs(id),
        task_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        protocol TEXT NOT NULL,
        operation TEXT NOT NULL,
        call_identity TEXT NOT NULL,
        generation INTEGER NOT NULL DEFAULT 1,
        remote_id TEXT,
        state_json TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX protocol_calls_by_run ON protocol_calls(run_id);
      CREATE TABLE protocol_sessions (
        run_id TEXT NOT NULL REFERENCES runs(id),
        task_id TEXT NOT NULL,
        protocol TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        state_json TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (run_id, task_id, protocol, endpoint)
      ) STRICT;
    `,
  },
  {
    version: 11,
    description: 'scale-out runs: the shard and gather run modes, and the stage a run executes (prepare, shard I of N or gather; null for an ordinary run)',
    rebuildsTables: true,
    sql: `
      CREATE TABLE runs_v11 (
        id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        workflow_name TEXT NOT NULL,
        workflow_digest TEXT NOT NULL,
        workflow_file TEXT,
        workflow_source TEXT NOT NULL,
        plan_json TEXT NOT NULL,
        inputs_json TEXT NOT NULL,
        memory_json TEXT NOT NULL DEFAULT '{}',
        output_json TEXT,
        error_json TEXT,
        workspace TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN (${RUN_STATES})),
        mode TEXT NOT NULL DEFAULT 'execute' CHECK (mode IN ('execute','replay','retry','repair','fork','compensation','shard','gather')),
        source_run_id TEXT REFERENCES runs(id),
        lease_owner TEXT,
        lease_expires_at INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT,
        stage_json TEXT
      ) STRICT;
      INSERT INTO runs_v11 SELECT id, trace_id, workflow_name, workflow_digest, workflow_file, workflow_source, plan_json, inputs_json, memory_json,
        output_json, error_json, workspace, state, mode, source_run_id, lease_owner, lease_expires_at, created_at, updated_at, finished_at, NULL FROM runs;
      DROP TABLE runs;
      ALTER TABLE runs_v11 RENAME TO runs;
      CREATE INDEX runs_by_created ON runs(created_at);
      CREATE INDEX runs_by_source ON runs(source_run_id, mode);

      CREATE TABLE run_lineage_v11 (
        run_id TEXT PRIMARY KEY REFERENCES runs(id),
        source_run_id TEXT NOT NULL REFERENCES runs(id),
        mode TEXT NOT NULL CHECK (mode IN ('retry','repair','fork','compensation','shard','gather')),
        roots_json TEXT NOT NULL,
        reason TEXT,
        plan_json TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
      INSERT INTO run_lineage_v11 SELECT run_id, source_run_id, mode, roots_json, reason, plan_json, created_at FROM run_lineage;
      DROP TABLE run_lineage;
      ALTER TABLE run_lineage_v11 RENAME TO run_lineage;
    `,
  },
  {
    version: 12,
    description: 'run_imports: where each run copied from another ledger came from, and the digest of what was copied',
    // One row per imported run; none for a run this ledger drove. The ledger ids are metadata `ledger_id` values
    // (null when the source had none): the ledger the rows were read from, and the one that drove the run.
    sql: `
      CREATE TABLE run_imports (
        run_id TEXT PRIMARY KEY REFERENCES runs(id),
        source_ledger_id TEXT,
        origin_ledger_id TEXT,
        source_path TEXT NOT NULL,
        content_digest TEXT NOT NULL,
        imported_at TEXT NOT NULL
      ) STRICT;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
