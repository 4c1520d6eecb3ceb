// Long-term memory on an encrypted state database, through the real CLI: entries written by a run and by `memory
// put` are sealed by `db encryption enable` (no byte of the file or its log holds an entry's text, a word of it or its
// vector), read and searched with the same results as before, written sealed afterwards, rotated with the rest, and
// refused without the key or when an envelope was changed (docs/state-encryption.md, docs/long-term-memory.md).
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows, unique, workflow, type WorkflowSpec } from './helpers.js';
import { databaseFiles, expectNowhere } from './state-encryption-support.js';

const ACTIONS = {
  write: { kind: 'builtin.long_term_memory.write' },
  read: { kind: 'builtin.long_term_memory.read' },
  search: { kind: 'builtin.long_term_memory.search' },
};
const MEMORY_COLUMNS = ['entry_json', 'metadata_json', 'search_tokens', 'embedding'];

/** A workflow of memory tasks in the `notes` namespace, its `outputs` given. */
const memoryWorkflow = (tasks: Record<string, unknown>[], outputs: Record<string, string> = {}) =>
  workflow({ policy: { approval: 'never' }, actions: ACTIONS, tasks, outputs, memory: { longTerm: { namespace: 'notes' } } } as WorkflowSpec & { memory: unknown });

describe('state encryption: long-term memory', function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof workspace>;
  let keys: Record<string, string>;
  /** One word only the canary entry has (search_tokens and the vector hold it), and the entry's whole text. */
  let word: string;
  let canaryText: string;
  let metadataCanary: string;

  beforeEach(() => {
    ws = workspace();
    keys = { STATE_KEY_ONE: randomBytes(32).toString('base64'), STATE_KEY_TWO: randomBytes(32).toString('base64') };
    word = unique('canaryword');
    canaryText = `Quarterly ${word} invoices are overdue since ${unique('T')}`;
    metadataCanary = unique('META');
  });
  afterEach(() => ws.cleanup());

  const cli = (env: Record<string, string>, ...args: string[]) => runCli([...args, '--db', ws.db, '--output', 'json'], { cwd: ws.dir, env: baseEnv(env) });
  const memory = (env: Record<string, string>, ...args: string[]) => cli(env, 'memory', ...args);
  const enable = () => outcome(cli(keys, 'db', 'encryption', 'enable', '--key-id', 'prod-1', '--key-env', 'STATE_KEY_ONE'), 0);
  const inventory = (env = keys) => outcome(cli(env, 'db', 'encryption', 'inventory'), 0).data;
  const memoryRows = () => rows(ws.db, `SELECT memory_key, ${MEMORY_COLUMNS.join(', ')} FROM long_term_memory ORDER BY memory_key`);

  /** Entries written both ways: a run's write tasks (one with the canary text) and `memory put` (canary metadata). */
  function seed(env: Record<string, string> = {}): void {
    const writes = memoryWorkflow([
      { id: 'a', uses: 'action:write', with: { key: 'alpha', value: canaryText, metadata: { topic: 'billing' } } },
      { id: 'b', uses: 'action:write', with: { key: 'beta', value: 'invoices are sent monthly', metadata: { topic: 'billing' } } },
      { id: 'c', uses: 'action:write', with: { key: 'gamma', value: 'the dog sleeps all day', metadata: { topic: 'pets' } } },
    ]);
    outcome(cli(env, 'run', ws.write('write.yaml', writes)), 0);
    outcome(memory(env, 'put', 'notes', 'delta', 'invoices and the dog', '--metadata', JSON.stringify({ topic: 'billing', tag: metadataCanary })), 0);
    outcome(memory(env, 'put', 'notes', 'epsilon', 'invoices kept for a while', '--retention-days', '30'), 0);
  }

  /** Everything a reader sees of the memory: gets, searches of each mode (with a filter), and a run's search task. */
  function observe(env: Record<string, string>): unknown {
    const searchTask = memoryWorkflow([{ id: 'search', uses: 'action:search', with: { query: `overdue invoices ${word}`, mode: 'hybrid', limit: 10 } }], { results: '${{ tasks.search.output.results }}' });
    return {
      get: outcome(memory(env, 'get', 'notes', 'alpha'), 0).data,
      getMissing: outcome(memory(env, 'get', 'notes', 'nothing'), 0).data,
      text: outcome(memory(env, 'search', 'notes', 'invoices dog'), 0).data,
      textWord: outcome(memory(env, 'search', 'notes', word), 0).data,
      vector: outcome(memory(env, 'search', 'notes', 'the dog invoices', '--mode', 'vector'), 0).data,
      hybrid: outcome(memory(env, 'search', 'notes', `invoices ${word}`, '--mode', 'hybrid', '--limit', '3'), 0).data,
      filtered: outcome(memory(env, 'search', 'notes', 'invoices', '--filter', `tag="${metadataCanary}"`), 0).data,
      task: outcome(cli(env, 'run', ws.write('search.yaml', searchTask)), 0).data.output.results,
    };
  }

  it('enable seals every entry: no byte holds its text, a word of it, its metadata or its vector; reads and searches give what they gave before', () => {
    seed();
    const before = observe({});
    expect((before as any).textWord.results.map((hit: any) => hit.key)).to.deep.equal(['alpha']);
    expect((before as any).task.map((hit: any) => hit.key)).to.include('alpha');
    expect((before as any).filtered.results.map((hit: any) => hit.key)).to.deep.equal(['delta']);
    const vectors = memoryRows().map((row) => row.embedding as string);
    expect(vectors.every((vector) => typeof vector === 'string' && Buffer.from(vector, 'base64').length === 64 * 4)).to.equal(true);
    const alphaVector = memoryRows().find((row) => row.memory_key === 'alpha').embedding as string;

    // Before enable the file holds them in plaintext: the scans below would find them.
    const plain = Buffer.concat([...databaseFiles(ws.db).values()]);
    for (const needle of [word, metadataCanary, alphaVector]) expect(plain.includes(Buffer.from(needle)), needle).to.equal(true);

    const migration = enable();
    expect(migration.data).to.deep.include({ operation: 'enable', scrubbed: true });
    for (const needle of [word, canaryText, metadataCanary, alphaVector, ...vectors]) expectNowhere(ws.db, needle);
    for (const row of memoryRows()) for (const column of MEMORY_COLUMNS) expect(row[column], `${row.memory_key}.${column}`).to.match(/^agentctl\.encrypted\.v1:prod-1:/);
    // Identifiers, times and the embedding's identity stay readable.
    expect(rows(ws.db, `SELECT memory_key, embedding_provider, embedding_dimensions FROM long_term_memory ORDER BY memory_key`).map((row) => Object.values(row).join(' '))).to.deep.equal(
      ['alpha', 'beta', 'delta', 'epsilon', 'gamma'].map((key) => `${key} local_hash 64`),
    );
    const counted = inventory();
    expect(counted).to.deep.include({ plaintextValues: 0, invalidEnvelopes: 0 });
    for (const column of MEMORY_COLUMNS) expect(counted.columns.find((entry: any) => entry.column === `long_term_memory.${column}`)).to.deep.include({ values: 5, encrypted: 5, plaintext: 0, invalid: 0 });

    // The same documents, scores, order and ties, with the key; the search task ran again and records the same hits.
    expect(observe(keys)).to.deep.equal(before);
    const reindexed = outcome(memory(keys, 'reindex', 'notes'), 0).data;
    expect(reindexed).to.include({ reindexed: 5 });
    expect(observe(keys)).to.deep.equal(before);
    for (const needle of [word, canaryText, metadataCanary, alphaVector]) expectNowhere(ws.db, needle);
  });

  it('an entry written after enable is sealed as it is written, by a run and by memory put, and found by search', () => {
    seed();
    enable();
    const later = unique('laterword');
    const run = memoryWorkflow([{ id: 'w', uses: 'action:write', with: { key: 'zeta', value: `the ${later} arrives`, metadata: { topic: later } } }]);
    outcome(cli(keys, 'run', ws.write('later.yaml', run)), 0);
    outcome(memory(keys, 'put', 'notes', 'eta', `another ${later} note`, '--text', `another ${later} note`), 0);
    for (const row of memoryRows().filter((entry) => ['zeta', 'eta'].includes(entry.memory_key))) {
      for (const column of MEMORY_COLUMNS) expect(row[column], `${row.memory_key}.${column}`).to.match(/^agentctl\.encrypted\.v1:prod-1:/);
    }
    expectNowhere(ws.db, later);
    // Both share the one query word: the text scores tie, so the order is by key (a hybrid score would also weigh
    // where the random word's hash falls among the other words').
    const found = outcome(memory(keys, 'search', 'notes', later, '--mode', 'text'), 0).data;
    expect(found.results.map((hit: any) => [hit.key, hit.value])).to.deep.equal([
      ['eta', `another ${later} note`],
      ['zeta', `the ${later} arrives`],
    ]);
    expect(outcome(memory(keys, 'search', 'notes', 'arrives', '--filter', `topic="${later}"`), 0).data.results.map((hit: any) => hit.key)).to.deep.equal(['zeta']);
    expect(inventory()).to.deep.include({ plaintextValues: 0, invalidEnvelopes: 0 });
  });

  it('without the key, memory get, search, put and reindex and a run with a memory task exit 5 and change nothing', () => {
    seed();
    enable();
    const stored = memoryRows();
    const refusals = [
      memory({}, 'get', 'notes', 'alpha'),
      memory({}, 'search', 'notes', 'invoices'),
      memory({}, 'search', 'notes', 'invoices', '--mode', 'vector'),
      memory({}, 'put', 'notes', 'new', 'plain words'),
      memory({}, 'reindex', 'notes'),
      cli({}, 'run', ws.write('read.yaml', memoryWorkflow([{ id: 'r', uses: 'action:read', with: { key: 'alpha' } }]))),
      cli({}, 'gc'),
    ];
    for (const result of refusals) {
      const refused = diagnosticWithCode(errorDocument(result, 5), 'AGENTCTL_E_STATE_KEY_MISSING');
      expect(refused.message).to.contain('prod-1').and.contain('STATE_KEY_ONE');
      expect(`${result.stdout}${result.stderr}`).to.not.contain(word);
    }
    const wrong = memory({ STATE_KEY_ONE: keys.STATE_KEY_TWO! }, 'get', 'notes', 'alpha');
    diagnosticWithCode(errorDocument(wrong, 5), 'AGENTCTL_E_STATE_KEY_MISMATCH');
    expect(memoryRows()).to.deep.equal(stored);
  });

  it("the project config's stateKeys reaches the memory store, of a command and of a run's memory task", () => {
    seed();
    enable();
    ws.write('.agentctlrc.json', JSON.stringify({ stateKeys: { 'prod-1': 'CI_STATE_KEY' } }));
    const env = { CI_STATE_KEY: keys.STATE_KEY_ONE! };
    expect(outcome(memory(env, 'get', 'notes', 'alpha'), 0).data).to.include({ found: true, value: canaryText });
    const read = memoryWorkflow([{ id: 'r', uses: 'action:read', with: { key: 'alpha' } }], { value: '${{ tasks.r.output.value }}' });
    expect(outcome(cli(env, 'run', ws.write('read.yaml', read)), 0).data.output).to.deep.equal({ value: canaryText });
    diagnosticWithCode(errorDocument(memory(keys, 'get', 'notes', 'alpha'), 5), 'AGENTCTL_E_STATE_KEY_MISSING');
  });

  it('rotate reseals the entries: only the new key reads them, with the same results', () => {
    seed();
    enable();
    const before = observe(keys);
    const rotated = outcome(cli(keys, 'db', 'encryption', 'rotate', '--key-id', 'prod-2', '--key-env', 'STATE_KEY_TWO'), 0);
    expect(rotated.data).to.deep.include({ operation: 'rotate', previousKeyId: 'prod-1', scrubbed: true });
    for (const row of memoryRows()) for (const column of MEMORY_COLUMNS) expect(row[column]).to.match(/^agentctl\.encrypted\.v1:prod-2:/);
    const onlyOld = { STATE_KEY_ONE: keys.STATE_KEY_ONE! };
    diagnosticWithCode(errorDocument(memory(onlyOld, 'search', 'notes', 'invoices'), 5), 'AGENTCTL_E_STATE_KEY_MISSING');
    const onlyNew = { STATE_KEY_TWO: keys.STATE_KEY_TWO! };
    expect(observe(onlyNew)).to.deep.equal(before);
    for (const needle of [word, canaryText, metadataCanary]) expectNowhere(ws.db, needle);
  });

  it('gc removes expired entries of an encrypted database', () => {
    seed();
    enable();
    const db = new Database(ws.db);
    db.prepare(`UPDATE long_term_memory SET expires_at = '2000-01-01T00:00:00.000Z' WHERE memory_key = 'epsilon'`).run();
    db.close();
    expect(outcome(cli(keys, 'gc'), 0).data).to.include({ memoryRemoved: 1 });
    expect(memoryRows().map((row) => row.memory_key)).to.deep.equal(['alpha', 'beta', 'delta', 'gamma']);
    expect(inventory()).to.deep.include({ plaintextValues: 0, invalidEnvelopes: 0 });
  });

  it('a changed byte in a memory envelope, or an envelope moved to another column, is refused naming the column', () => {
    seed();
    enable();
    const flip = (stored: string): string => {
      const at = stored.indexOf('"ciphertext":"') + '"ciphertext":"'.length + 4;
      return `${stored.slice(0, at)}${stored[at] === 'A' ? 'B' : 'A'}${stored.slice(at + 1)}`;
    };
    const db = new Database(ws.db);
    const alpha = db.prepare(`SELECT search_tokens, embedding, entry_json FROM long_term_memory WHERE memory_key = 'alpha'`).get() as Record<string, string>;
    db.prepare(`UPDATE long_term_memory SET search_tokens = ? WHERE memory_key = 'alpha'`).run(flip(alpha.search_tokens!));
    db.prepare(`UPDATE long_term_memory SET embedding = ? WHERE memory_key = 'beta'`).run(flip(alpha.embedding!));
    db.prepare(`UPDATE long_term_memory SET metadata_json = ? WHERE memory_key = 'gamma'`).run(alpha.entry_json);
    db.close();
    const text = diagnosticWithCode(errorDocument(memory(keys, 'search', 'notes', 'invoices'), 5), 'AGENTCTL_E_STATE_ENVELOPE_INVALID');
    expect(text.message).to.contain('long_term_memory.search_tokens');
    const vector = diagnosticWithCode(errorDocument(memory(keys, 'search', 'notes', 'dog', '--mode', 'vector'), 5), 'AGENTCTL_E_STATE_ENVELOPE_INVALID');
    expect(vector.message).to.contain('long_term_memory.embedding');
    const moved = diagnosticWithCode(errorDocument(memory(keys, 'search', 'notes', 'dog', '--mode', 'vector', '--filter', 'topic="pets"'), 5), 'AGENTCTL_E_STATE_ENVELOPE_INVALID');
    expect(moved.message).to.contain('long_term_memory.metadata_json');
    expect(inventory()).to.deep.include({ invalidEnvelopes: 3 });
    // An entry whose own envelopes are intact still reads.
    expect(outcome(memory(keys, 'get', 'notes', 'delta'), 0).data).to.include({ found: true });
  });

  it('the write guards refuse plaintext in a memory column of an encrypted database', () => {
    seed();
    enable();
    const db = new Database(ws.db);
    try {
      for (const column of MEMORY_COLUMNS) {
        expect(() => db.prepare(`UPDATE long_term_memory SET ${column} = 'plain words' WHERE memory_key = 'alpha'`).run(), column).to.throw(/AGENTCTL_E_STATE_ENVELOPE_INVALID/);
      }
    } finally {
      db.close();
    }
  });
});
