// Long-term memory through the real CLI: builtin.long_term_memory.write|read|search on the state database's sqlite
// store — search modes, scores, ordering, filters, bounds, expiry, vectors that fail closed, approvals, and retrieval
// that a replay reads from the ledger while a repair performs it again.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { errorDocument, outcome, withDb, workflow, type WorkflowSpec } from './helpers.js';

const JSON_OUT = ['--output', 'json'];

type MemorySpec = WorkflowSpec & { memory?: Record<string, unknown> };

const ACTIONS = {
  write: { kind: 'builtin.long_term_memory.write' },
  read: { kind: 'builtin.long_term_memory.read' },
  search: { kind: 'builtin.long_term_memory.search' },
};

/** A workflow of the memory actions in `namespace`, with `approval: never` unless the policy says otherwise. */
function memoryWorkflow(tasks: Record<string, unknown>[], extra: Partial<MemorySpec> = {}, longTerm: Record<string, unknown> = {}): string {
  return workflow({ policy: { approval: 'never' }, actions: ACTIONS, tasks, memory: { longTerm: { namespace: 'notes', ...longTerm } }, ...extra } as MemorySpec);
}

const write = (id: string, key: string, value: unknown, more: Record<string, unknown> = {}) => ({ id, uses: 'action:write', with: { key, value, ...more } });

describe('long-term memory in workflows', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  const cli = (...args: string[]) => runCli(args, { cwd: ws.dir });
  const run = (name: string, text: string, ...args: string[]) => cli('run', ws.write(name, text), '--db', ws.db, ...JSON_OUT, ...args);
  const inspect = (runId: string) => outcome(cli('inspect', runId, '--db', ws.db, ...JSON_OUT), 0);
  const taskOutput = (inspection: any, id: string) => (inspection.data.tasks as any[]).find((task) => task.taskId === id).output;
  const rw = <T>(body: (db: Database.Database) => T): T => {
    const db = new Database(ws.db);
    try {
      return body(db);
    } finally {
      db.close();
    }
  };

  beforeEach(() => {
    ws = workspace();
  });
  afterEach(() => ws.cleanup());

  /** Writes the four notes of the search tests in one run. */
  function seed(): void {
    const seeded = memoryWorkflow([
      write('a', 'alpha', 'invoices are sent monthly', { metadata: { topic: 'billing' } }),
      write('b', 'beta', 'invoices are sent', { metadata: { topic: 'billing', year: 2026 } }),
      write('c', 'gamma', 'the dog sleeps all day', { metadata: { topic: 'pets' } }),
      { id: 'd', uses: 'action:write', with: { key: 'delta', content: { type: 'json', value: { count: 3 } } } },
    ]);
    outcome(run('seed.yaml', seeded), 0);
  }

  const searchRun = (withInput: Record<string, unknown>, longTerm: Record<string, unknown> = {}) =>
    run('search.yaml', memoryWorkflow([{ id: 'search', uses: 'action:search', with: withInput }], { outputs: { results: '${{ tasks.search.output.results }}' } }, longTerm));

  it('text search scores the share of query words an entry has, best first, ties by key, and leaves out what shares none', () => {
    seed();
    const result = outcome(searchRun({ query: 'Invoices sent MONTHLY' }), 0);
    const results = result.data.output.results as any[];
    expect(results.map((hit) => [hit.key, hit.score])).to.deep.equal([
      ['alpha', 1],
      ['beta', 2 / 3],
    ]);
    expect(results[0]).to.include({ value: 'invoices are sent monthly' });
    expect(results[0].entry.metadata).to.deep.equal({ topic: 'billing' });

    // Equal scores come back in key order, and `limit` keeps the best.
    const tied = outcome(searchRun({ query: 'invoices', limit: 1 }), 0);
    expect((tied.data.output.results as any[]).map((hit) => [hit.key, hit.score])).to.deep.equal([['alpha', 1]]);
  });

  it('vector and hybrid search rank by local_hash similarity; metadata filters compare exact JSON values', () => {
    seed();
    const vector = outcome(searchRun({ query: 'dog sleeps', mode: 'vector' }), 0).data.output.results as any[];
    expect(vector[0].key).to.equal('gamma');
    expect(vector[0].score).to.be.greaterThan(0).and.at.most(1);
    const hybrid = outcome(searchRun({ query: 'invoices monthly', mode: 'hybrid' }), 0).data.output.results as any[];
    expect(hybrid.map((hit) => hit.key).slice(0, 2)).to.deep.equal(['alpha', 'beta']);
    for (const [left, right] of hybrid.slice(1).map((hit, index) => [hybrid[index], hit])) {
      expect(left.score > right.score || (left.score === right.score && left.key < right.key), 'ordered by score, then key').to.equal(true);
    }
    const filtered = outcome(searchRun({ query: 'invoices', filters: { topic: 'billing', year: 2026 } }), 0).data.output.results as any[];
    expect(filtered.map((hit) => hit.key)).to.deep.equal(['beta']);
    // 2026 and "2026" are different JSON values.
    expect(outcome(searchRun({ query: 'invoices', filters: { year: '2026' } }), 0).data.output.results).to.deep.equal([]);
  });

  it('reads return the typed value, or found: false; a JSON entry without text is read but never searched', () => {
    seed();
    const text = memoryWorkflow([
      { id: 'json', uses: 'action:read', with: { key: 'delta' } },
      { id: 'missing', uses: 'action:read', with: { key: 'nothing' } },
    ]);
    const result = outcome(run('read.yaml', text), 0);
    const inspection = inspect(result.data.runId);
    expect(taskOutput(inspection, 'json')).to.include({ found: true, key: 'delta' });
    expect(taskOutput(inspection, 'json').value).to.deep.equal({ count: 3 });
    expect(taskOutput(inspection, 'missing')).to.deep.include({ status: 'unchanged', changed: false, found: false, key: 'nothing', value: null });
    expect(rw((db) => db.prepare(`SELECT embedding_provider FROM long_term_memory WHERE memory_key = 'delta'`).get())).to.deep.equal({ embedding_provider: null });
  });

  it('an expired entry is neither read nor searched, and gc removes it', () => {
    seed();
    rw((db) => db.prepare(`UPDATE long_term_memory SET expires_at = '2000-01-01T00:00:00.000Z' WHERE memory_key = 'alpha'`).run());
    const result = outcome(run('read.yaml', memoryWorkflow([{ id: 'read', uses: 'action:read', with: { key: 'alpha' } }])), 0);
    expect(taskOutput(inspect(result.data.runId), 'read')).to.include({ found: false });
    expect((outcome(searchRun({ query: 'monthly' }), 0).data.output.results as any[]).length).to.equal(0);
    const gc = outcome(cli('gc', '--db', ws.db, ...JSON_OUT), 0);
    expect(gc.data).to.include({ memoryRemoved: 1, removed: 1 });
    expect(rw((db) => db.prepare(`SELECT memory_key FROM long_term_memory ORDER BY memory_key`).pluck().all())).to.deep.equal(['beta', 'delta', 'gamma']);
  });

  it('a corrupt stored vector and a vector of other dimensions fail the search closed, with their codes', () => {
    seed();
    rw((db) => db.prepare(`UPDATE long_term_memory SET embedding = 'AAECAw==' WHERE memory_key = 'gamma'`).run());
    const corrupt = errorDocument(searchRun({ query: 'dog', mode: 'vector' }), 5);
    expect(corrupt.diagnostics[0]).to.include({ code: 'AGENTCTL_E_MEMORY_VECTOR_CORRUPT', taskId: 'search' });
    // A text search reads no vector: the corrupt one does not stop it.
    expect((outcome(searchRun({ query: 'dog' }), 0).data.output.results as any[]).map((hit) => hit.key)).to.deep.equal(['gamma']);

    rw((db) => db.prepare(`DELETE FROM long_term_memory WHERE memory_key = 'gamma'`).run());
    const mismatch = errorDocument(searchRun({ query: 'invoices', mode: 'hybrid' }, { embedding: { provider: 'local_hash', dimensions: 32 } }), 5);
    expect(mismatch.diagnostics[0].code).to.equal('AGENTCTL_E_MEMORY_VECTOR_MISMATCH');
    expect(mismatch.diagnostics[0].message).to.contain('64 dimensions').and.contain('32 dimensions');
  });

  it('a replay reuses the recorded retrieval without the store; repair --from the search performs it again', () => {
    seed();
    const file = ws.write('retrieve.yaml', memoryWorkflow([{ id: 'search', uses: 'action:search', with: { query: 'invoices' } }], { outputs: { keys: '${{ tasks.search.output.results }}' } }));
    const source = outcome(cli('run', file, '--db', ws.db, ...JSON_OUT), 0);
    const keys = (document: any) => (document.data.output.keys as any[]).map((hit) => hit.key);
    expect(keys(source)).to.deep.equal(['alpha', 'beta']);

    // A new entry: the repaired search sees it, the replay of the source run does not.
    outcome(run('more.yaml', memoryWorkflow([write('w', 'epsilon', 'invoices overdue')])), 0);
    const repaired = outcome(cli('repair', file, source.data.runId, '--from', 'search', '--restart-successful', '--db', ws.db, ...JSON_OUT), 0);
    expect(keys(repaired)).to.deep.equal(['alpha', 'beta', 'epsilon']);

    // With the store gone (its table dropped), a replay still rebuilds the run from the ledger, output unchanged.
    rw((db) => db.exec('DROP TABLE long_term_memory'));
    const replay = outcome(cli('replay', source.data.runId, '--db', ws.db, ...JSON_OUT), 0);
    expect(replay.data).to.include({ state: 'succeeded', mode: 'replay' });
    expect(replay.data.output).to.deep.equal(source.data.output);
  });

  it('writes need an approval under approval: mutations, reads and searches do not', () => {
    const text = memoryWorkflow([write('w', 'alpha', 'kept')], { policy: { approval: 'mutations', nonInteractive: 'fail' } });
    const denied = errorDocument(run('write.yaml', text), 3);
    expect(denied.diagnostics.map((item: any) => item.code)).to.include('AGENTCTL_E_APPROVAL_REQUIRED');
    expect(rw((db) => db.prepare('SELECT COUNT(*) FROM long_term_memory').pluck().get())).to.equal(0);
    const reads = memoryWorkflow(
      [
        { id: 'read', uses: 'action:read', with: { key: 'alpha' } },
        { id: 'search', uses: 'action:search', with: { query: 'kept' } },
      ],
      { policy: { approval: 'mutations', nonInteractive: 'fail' } },
    );
    expect(outcome(run('reads.yaml', reads), 0).data.state).to.equal('succeeded');
  });

  it('a write waiting for an approval writes nothing until it is approved; resume performs it, and the search before it is not repeated', () => {
    seed();
    const text = memoryWorkflow(
      [
        { id: 'search', uses: 'action:search', with: { query: 'invoices' } },
        { id: 'w', uses: 'action:write', needs: ['search'], with: { key: 'approved', value: 'invoices approved' } },
      ],
      { policy: { approval: 'mutations', nonInteractive: 'pause' }, outputs: { keys: '${{ tasks.search.output.results }}' } },
    );
    const paused = outcome(run('approve.yaml', text), 3);
    expect(paused.data.state).to.equal('paused');
    expect(rw((db) => db.prepare(`SELECT COUNT(*) FROM long_term_memory WHERE memory_key = 'approved'`).pluck().get())).to.equal(0);
    // An entry written meanwhile: the recorded search is reused on resume, so the output does not see it.
    outcome(run('more.yaml', memoryWorkflow([write('m', 'epsilon', 'invoices overdue')])), 0);
    const approval = rw((db) => db.prepare(`SELECT id FROM approvals WHERE run_id = ? AND state = 'pending'`).pluck().get(paused.data.runId));
    outcome(cli('approvals', 'approve', String(approval), '--reason', 'fine', '--db', ws.db, ...JSON_OUT), 0);
    const resumed = outcome(cli('resume', paused.data.runId, '--db', ws.db, ...JSON_OUT), 0);
    expect(resumed.data.state).to.equal('succeeded');
    expect((resumed.data.output.keys as any[]).map((hit) => hit.key)).to.deep.equal(['alpha', 'beta']);
    expect(rw((db) => db.prepare(`SELECT COUNT(*) FROM effects WHERE run_id = ? AND operation = 'long_term_memory.search'`).pluck().get(paused.data.runId))).to.equal(1);
    expect(rw((db) => db.prepare(`SELECT entry_json FROM long_term_memory WHERE memory_key = 'approved'`).pluck().get())).to.contain('invoices approved');
  });

  it('a workflow without spec.memory.longTerm uses the default namespace of the sqlite store', () => {
    const text = workflow({ policy: { approval: 'never' }, actions: ACTIONS, tasks: [write('w', 'k', 'v'), { id: 'r', uses: 'action:read', needs: ['w'], with: { key: 'k' } }] });
    const result = outcome(run('default.yaml', text), 0);
    expect(taskOutput(inspect(result.data.runId), 'r')).to.include({ namespace: 'default', value: 'v', expiresAt: null });
  });

  it('a secret value a task passes on is never stored: the entry, its words and its key hold [REDACTED]', () => {
    const canary = randomBytes(16).toString('hex');
    const text = memoryWorkflow(
      [
        { id: 'echo', uses: 'action:echo' },
        { id: 'w', uses: 'action:write', needs: ['echo'], with: { key: 'k-${{ tasks.echo.output.stdout }}', value: 'token ${{ tasks.echo.output.stdout }}', metadata: { raw: '${{ tasks.echo.output.stdout }}' } } },
        { id: 's', uses: 'action:search', needs: ['w', 'echo'], with: { query: 'token ${{ tasks.echo.output.stdout }}' } },
      ],
      {
        policy: { approval: 'never', processAllowlist: ['sh'], environmentAllowlist: ['TOKEN'] },
        actions: { ...ACTIONS, echo: { kind: 'builtin.shell.exec', command: 'sh', args: ['-c', 'printf %s "$TOKEN"'], env: { TOKEN: { env: 'CANARY' } } } },
      },
    );
    const result = runCli(['run', ws.write('secret.yaml', text), '--db', ws.db, ...JSON_OUT], { cwd: ws.dir, env: baseEnv({ CANARY: canary }) });
    expect(outcome(result, 0).data.state).to.equal('succeeded');
    expect(result.stdout + result.stderr).to.not.contain(canary);
    for (const suffix of ['', '-wal', '-shm']) {
      const path = `${ws.db}${suffix}`;
      if (existsSync(path)) expect(readFileSync(path).includes(Buffer.from(canary)), path).to.equal(false);
    }
    const row = withDb(ws.db, (db) => db.prepare('SELECT memory_key, entry_json FROM long_term_memory').get()) as { memory_key: string; entry_json: string };
    expect(row.memory_key).to.equal('k-[REDACTED]');
    expect(JSON.parse(row.entry_json).metadata).to.deep.equal({ raw: '[REDACTED]' });
  });

  describe('bad inputs', () => {
    const checkError = (text: string, code: string) => {
      const document = errorDocument(cli('check', ws.write('bad.yaml', text), ...JSON_OUT), 2);
      expect(document.diagnostics.map((item: any) => item.code), JSON.stringify(document.diagnostics)).to.include(code);
      return document;
    };

    it('check refuses an unknown provider, dimensions outside 8..4096, retentionDays outside 1..36500 and an embedding no provider kind computes', () => {
      const read = [{ id: 'r', uses: 'action:read', with: { key: 'k' } }];
      const unknown = checkError(memoryWorkflow(read, {}, { provider: 'redis' }), 'AGENTCTL_E_MEMORY_PROVIDER_UNKNOWN');
      expect(unknown.diagnostics[0].path).to.equal('spec.memory.longTerm.provider');
      checkError(memoryWorkflow(read, {}, { embedding: { dimensions: 7 } }), 'AGENTCTL_E_SCHEMA');
      checkError(memoryWorkflow(read, {}, { embedding: { dimensions: 4097 } }), 'AGENTCTL_E_SCHEMA');
      checkError(memoryWorkflow(read, {}, { retentionDays: 0 }), 'AGENTCTL_E_SCHEMA');
      checkError(memoryWorkflow(read, {}, { namespace: '' }), 'AGENTCTL_E_SCHEMA');
      checkError(memoryWorkflow(read, { providers: { main: { kind: 'anthropic' } } }, { embedding: { provider: 'main', model: 'text-embedding-3-small' } }), 'AGENTCTL_E_MEMORY_EMBEDDING_UNSUPPORTED');
      expect(outcome(cli('check', ws.write('edge.yaml', memoryWorkflow(read, {}, { retentionDays: 36_500, embedding: { dimensions: 4096 } })), ...JSON_OUT), 0).data.valid).to.equal(true);
    });

    it('check refuses an empty key, an empty query, a limit of 0 or over 100, and a write of two values', () => {
      checkError(memoryWorkflow([{ id: 'r', uses: 'action:read', with: { key: '' } }]), 'AGENTCTL_E_SCHEMA');
      checkError(memoryWorkflow([{ id: 's', uses: 'action:search', with: { query: '' } }]), 'AGENTCTL_E_SCHEMA');
      checkError(memoryWorkflow([{ id: 's', uses: 'action:search', with: { query: 'x', limit: 0 } }]), 'AGENTCTL_E_SCHEMA');
      checkError(memoryWorkflow([{ id: 's', uses: 'action:search', with: { query: 'x', limit: 101 } }]), 'AGENTCTL_E_SCHEMA');
      checkError(memoryWorkflow([{ id: 'w', uses: 'action:write', with: { key: 'k', value: 1, content: { type: 'text', text: 'x' } } }]), 'AGENTCTL_E_SCHEMA');
      checkError(memoryWorkflow([{ id: 'w', uses: 'action:write', with: { key: 'k', entry: { formatVersion: 2, content: { type: 'text', text: 'x' } } } }]), 'AGENTCTL_E_SCHEMA');
    });

    it('an entry over 1 MiB and a query over 64 KiB rendered at run time fail their task before any effect, writing nothing', () => {
      const entryText = memoryWorkflow([{ id: 'w', uses: 'action:write', with: { key: 'k', value: '${{ inputs.value }}' } }], { inputs: { value: '' } });
      // 600,000 characters, kept twice (value and searchable text): over 1 MiB of entry JSON.
      const inputs = ws.write('inputs.json', JSON.stringify({ value: 'x'.repeat(600_000) }));
      const tooLarge = errorDocument(run('big.yaml', entryText, '--inputs-file', inputs), 4);
      expect(tooLarge.diagnostics[0].code).to.equal('AGENTCTL_E_TASK_INPUT_INVALID');
      expect(tooLarge.diagnostics[0].message).to.contain('1048576 bytes');
      const queryText = memoryWorkflow([{ id: 's', uses: 'action:search', with: { query: '${{ inputs.query }}' } }], { inputs: { query: '' } });
      const longQuery = errorDocument(run('query.yaml', queryText, '--input', `query=${'q'.repeat(65_537)}`), 4);
      expect(longQuery.diagnostics[0].message).to.contain('65536 bytes');
      expect(withDb(ws.db, (db) => db.prepare('SELECT COUNT(*) FROM effects').pluck().get())).to.equal(0);
      expect(withDb(ws.db, (db) => db.prepare('SELECT COUNT(*) FROM long_term_memory').pluck().get())).to.equal(0);
    });
  });
});
