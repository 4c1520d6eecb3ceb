// The ledger import finds a run's rows from the schema itself: every table of the current schema is placed, a
// column or table a later migration adds is copied without a change here, and a table no rule places is refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { referencedRuns, runTables } from '../../core/store/ledger-tables.js';
import { Store } from '../../core/store/store.js';

describe('ledger tables of a run import', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentctl-tables-'));
    path = join(dir, 'runtime.db');
    Store.open(path).close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('places every table of the schema: the run-scoped ones are copied, AUTOINCREMENT keys left to each ledger', () => {
    const db = new Database(path);
    try {
      const tables = runTables(db);
      expect(tables.map((table) => table.name)).to.deep.equal([
        'approvals', 'audit_events', 'budget_reservations', 'checkpoints', 'compensation_claims', 'effects', 'protocol_calls',
        'protocol_sessions', 'reconciliations', 'run_lineage', 'runs', 'task_artifacts', 'task_reuse', 'tasks',
      ]);
      const byName = new Map(tables.map((table) => [table.name, table]));
      expect(byName.get('audit_events')!.columns).to.deep.equal(['run_id', 'task_id', 'effect_id', 'type', 'data_json', 'at']);
      expect(byName.get('reconciliations')!.columns).to.not.include('seq');
      expect(byName.get('checkpoints')!.columns).to.include('seq');
      // Every column of runs, in schema order.
      expect(byName.get('runs')!.columns).to.deep.equal((db.prepare(`SELECT name FROM pragma_table_info('runs') ORDER BY cid`).pluck().all() as string[]));
    } finally {
      db.close();
    }
  });

  it('a new column is copied and a new table with run_id is placed, its foreign keys followed; a table without run_id and no rule is refused', () => {
    const db = new Database(path);
    try {
      db.exec(`ALTER TABLE runs ADD COLUMN future_json TEXT`);
      db.exec(`CREATE TABLE shard_links (run_id TEXT NOT NULL REFERENCES runs(id), other_run_id TEXT REFERENCES runs(id)) STRICT`);
      db.exec(`INSERT INTO runs (id, trace_id, workflow_name, workflow_digest, workflow_source, plan_json, inputs_json, workspace, state, created_at, updated_at)
        VALUES ('run_a', 't', 'w', 'd', 's', '{}', '{}', '/w', 'succeeded', 'now', 'now'), ('run_b', 't', 'w', 'd', 's', '{}', '{}', '/w', 'succeeded', 'now', 'now')`);
      db.exec(`INSERT INTO shard_links (run_id, other_run_id) VALUES ('run_a', 'run_b')`);
      const tables = runTables(db);
      expect(tables.find((table) => table.name === 'runs')!.columns).to.include('future_json');
      expect(tables.find((table) => table.name === 'shard_links')!.columns).to.deep.equal(['run_id', 'other_run_id']);
      expect([...referencedRuns(db, tables, ['run_a'])].sort()).to.deep.equal(['run_a', 'run_b']);
      db.exec(`CREATE TABLE orphans (id TEXT PRIMARY KEY)`);
      expect(() => runTables(db)).to.throw(/orphans has no run_id column/).with.property('code', 'AGENTCTL_E_INTERNAL');
    } finally {
      db.close();
    }
  });
});
