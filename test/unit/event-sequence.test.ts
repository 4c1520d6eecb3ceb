// The ledger's event sequence: what a transaction audits reaches listeners only when the outermost transaction
// commits, with the row's seq and time; a rolled-back transaction or savepoint leaves nothing behind.
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../core/store/store.js';
import type { LedgerEvent } from '../../core/store/event-sequence.js';

describe('event sequence', () => {
  let dir: string;
  let store: Store;
  let delivered: LedgerEvent[][];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentctl-events-'));
    store = Store.open(join(dir, 'db.sqlite'));
    delivered = [];
    store.events.observe((events) => void delivered.push([...events]));
    store.createRun({ id: 'run_e', traceId: 't', workflowName: 'w', workflowDigest: 'd', workflowFile: 'f', workflowSource: 's', plan: {}, inputs: {}, workspace: dir, tasks: [{ id: 'a', kind: 'k' }] });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const auditRows = () => {
    const db = new Database(join(dir, 'db.sqlite'), { readonly: true });
    try {
      return db.prepare('SELECT seq, at, type FROM audit_events ORDER BY seq').all();
    } finally {
      db.close();
    }
  };

  it('releases the events of the outermost commit once, as the rows hold them, and none of a savepoint that rolled back', () => {
    delivered = [];
    store.transaction(() => {
      store.audit('run_e', { type: 'task.running', taskId: 'a', data: { attempt: 1 } });
      expect(() =>
        store.transaction(() => {
          store.audit('run_e', { type: 'task.failed', taskId: 'a' });
          throw new Error('undone');
        }),
      ).to.throw('undone');
      store.audit('run_e', { type: 'task.succeeded', taskId: 'a', data: { attempt: 1 } });
      expect(delivered, 'nothing before the commit').to.deep.equal([]);
    });
    expect(delivered).to.have.length(1);
    expect(delivered[0]!.map((event) => ({ seq: event.seq, at: event.at, type: event.type }))).to.deep.equal(auditRows().slice(1));
    expect(delivered[0]!.map((event) => [event.type, event.taskId, event.data])).to.deep.equal([
      ['task.running', 'a', { attempt: 1 }],
      ['task.succeeded', 'a', { attempt: 1 }],
    ]);
  });

  it('drops the events of a transaction that rolled back', () => {
    delivered = [];
    expect(() =>
      store.transaction(() => {
        store.audit('run_e', { type: 'task.running', taskId: 'a' });
        throw new Error('undone');
      }),
    ).to.throw('undone');
    store.transaction(() => store.audit('run_e', { type: 'run.succeeded' }));
    expect(delivered.map((events) => events.map((event) => event.type))).to.deep.equal([['run.succeeded']]);
  });
});
