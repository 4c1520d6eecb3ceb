// `agentctl memory get|put|search|reindex` on a real database: the documents they print, what they write, and the
// bad inputs each refuses with its code before anything is written.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../core/store/migrations.js';
import { errorDocument, outcome, withDb } from './helpers.js';

const JSON_OUT = ['--output', 'json'];

describe('memory commands', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  const memory = (...args: string[]) => runCli(['memory', ...args, '--db', ws.db], { cwd: ws.dir });
  const rows = () => withDb(ws.db, (db) => db.prepare('SELECT namespace, memory_key, entry_json, expires_at FROM long_term_memory ORDER BY namespace, memory_key').all());

  beforeEach(() => {
    ws = workspace();
  });
  afterEach(() => ws.cleanup());

  it('put creates the database and writes a typed entry; get reads it back, or found: false', () => {
    const put = outcome(memory('put', 'notes', 'billing', 'Invoices go out on the 1st', '--metadata', '{"topic":"billing"}', ...JSON_OUT), 0);
    expect(put.kind).to.equal('MemoryWrite');
    expect(put.data).to.deep.include({ written: true, namespace: 'notes', key: 'billing', value: 'Invoices go out on the 1st', text: 'Invoices go out on the 1st', expiresAt: null });
    expect(put.data.entry).to.deep.equal({ formatVersion: 1, content: { type: 'json', value: 'Invoices go out on the 1st', text: 'Invoices go out on the 1st' }, metadata: { topic: 'billing' } });
    expect(put.data.embedding).to.deep.equal({ provider: 'local_hash', model: null, dimensions: 64 });

    // VALUE is JSON when it parses as JSON; --text is the searchable text.
    outcome(memory('put', 'notes', 'count', '{"open": 3}', '--text', 'open invoices', ...JSON_OUT), 0);
    const get = outcome(memory('get', 'notes', 'count', ...JSON_OUT), 0);
    expect(get.kind).to.equal('MemoryEntry');
    expect(get.data).to.deep.include({ found: true, value: { open: 3 }, text: 'open invoices' });
    expect(outcome(memory('get', 'notes', 'nothing', ...JSON_OUT), 0).data).to.deep.equal({ found: false, namespace: 'notes', key: 'nothing', value: null });
    expect(memory('get', 'notes', 'count').stdout).to.equal('{"open":3}\n');
  });

  it('put --retention-days sets the expiry; an expired entry is not returned and gc removes it', () => {
    const put = outcome(memory('put', 'notes', 'short', 'gone soon', '--retention-days', '2', ...JSON_OUT), 0);
    expect(Date.parse(put.data.expiresAt) - Date.parse(put.data.updatedAt)).to.equal(2 * 86_400_000);
    const db = new Database(ws.db);
    db.prepare(`UPDATE long_term_memory SET expires_at = '2001-01-01T00:00:00.000Z'`).run();
    db.close();
    expect(outcome(memory('get', 'notes', 'short', ...JSON_OUT), 0).data.found).to.equal(false);
    expect(outcome(memory('search', 'notes', 'gone', ...JSON_OUT), 0).data.count).to.equal(0);
    const gc = outcome(runCli(['gc', '--db', ws.db, ...JSON_OUT], { cwd: ws.dir }), 0);
    expect(gc.data).to.include({ memoryRemoved: 1 });
    expect(rows()).to.deep.equal([]);
  });

  it('search prints the ranked results with their scores; --filter and --limit narrow them; vector and hybrid modes rank by vector', () => {
    outcome(memory('put', 'notes', 'b', 'invoices are sent', '--metadata', '{"topic":"billing"}', ...JSON_OUT), 0);
    outcome(memory('put', 'notes', 'a', 'invoices are sent monthly', '--metadata', '{"topic":"billing"}', ...JSON_OUT), 0);
    outcome(memory('put', 'notes', 'c', 'the dog sleeps', '--metadata', '{"topic":"pets"}', ...JSON_OUT), 0);
    const text = outcome(memory('search', 'notes', 'invoices sent', ...JSON_OUT), 0);
    expect(text.kind).to.equal('MemorySearch');
    expect(text.data).to.include({ namespace: 'notes', query: 'invoices sent', mode: 'text', limit: 10, count: 2 });
    // Equal scores: key order.
    expect(text.data.results.map((hit: any) => [hit.key, hit.score])).to.deep.equal([
      ['a', 1],
      ['b', 1],
    ]);
    expect(outcome(memory('search', 'notes', 'invoices', '--limit', '1', ...JSON_OUT), 0).data.results.map((hit: any) => hit.key)).to.deep.equal(['a']);
    expect(outcome(memory('search', 'notes', 'sleeps', '--filter', 'topic="billing"', ...JSON_OUT), 0).data.count).to.equal(0);
    expect(outcome(memory('search', 'notes', 'dog', '--mode', 'vector', '--filter', 'topic=pets', ...JSON_OUT), 0).data.results.map((hit: any) => hit.key)).to.deep.equal(['c']);
    const hybrid = outcome(memory('search', 'notes', 'monthly invoices', '--mode', 'hybrid', ...JSON_OUT), 0);
    expect(hybrid.data.results[0].key).to.equal('a');
    expect(memory('search', 'notes', 'nothing matches').stdout).to.equal('no results\n');
  });

  it('reindex embeds a namespace again, repairing a corrupt vector', () => {
    outcome(memory('put', 'notes', 'a', 'the dog sleeps', ...JSON_OUT), 0);
    const db = new Database(ws.db);
    db.prepare(`UPDATE long_term_memory SET embedding = 'AQ=='`).run();
    db.close();
    expect(errorDocument(memory('search', 'notes', 'dog', '--mode', 'vector', ...JSON_OUT), 5).diagnostics[0].code).to.equal('AGENTCTL_E_MEMORY_VECTOR_CORRUPT');
    const reindex = outcome(memory('reindex', 'notes', ...JSON_OUT), 0);
    expect(reindex.kind).to.equal('MemoryReindex');
    expect(reindex.data).to.deep.equal({ namespace: 'notes', reindexed: 1, embedding: { provider: 'local_hash', model: null, dimensions: 64 } });
    expect(outcome(memory('search', 'notes', 'dog', '--mode', 'vector', ...JSON_OUT), 0).data.results.map((hit: any) => hit.key)).to.deep.equal(['a']);
  });

  it('get and search refuse a database of an earlier schema without changing it, as inspect does; put brings it up to date; db stats counts the entries', () => {
    const before = MIGRATIONS.slice(0, MIGRATIONS.findIndex((migration) => migration.sql.includes('CREATE TABLE long_term_memory')));
    const old = new Database(ws.write('state/runtime.db', ''));
    old.pragma('journal_mode = WAL');
    for (const migration of before) old.exec(migration.sql);
    old.pragma(`user_version = ${before.at(-1)!.version}`);
    old.close();
    for (const args of [['get', 'notes', 'k'], ['search', 'notes', 'anything']]) {
      const refused = errorDocument(memory(...args, ...JSON_OUT), 5);
      expect(refused.diagnostics[0].code).to.equal('AGENTCTL_E_DB_OPEN');
      expect(refused.diagnostics[0].help).to.contain('db migrate');
    }
    expect(withDb(ws.db, (db) => db.pragma('user_version', { simple: true }))).to.equal(before.at(-1)!.version);
    outcome(memory('put', 'notes', 'k', 'v', ...JSON_OUT), 0);
    outcome(memory('put', 'other', 'k', 'v', ...JSON_OUT), 0);
    expect(withDb(ws.db, (db) => db.pragma('user_version', { simple: true }))).to.equal(SCHEMA_VERSION);
    const stats = outcome(runCli(['db', 'stats', '--db', ws.db, ...JSON_OUT], { cwd: ws.dir }), 0);
    expect(stats.data).to.include({ longTermMemory: 2 });
    expect(stats.data.tables).to.include({ long_term_memory: 2 });
  });

  it('refuses bad inputs with their codes and writes nothing', () => {
    const refused = (code: string, exit: number, ...args: string[]) => expect(errorDocument(memory(...args, ...JSON_OUT), exit).diagnostics[0].code, args.join(' ')).to.equal(code);
    refused('AGENTCTL_E_MEMORY_INVALID', 2, 'put', '', 'k', 'v');
    refused('AGENTCTL_E_MEMORY_INVALID', 2, 'put', 'notes', '', 'v');
    refused('AGENTCTL_E_MEMORY_INVALID', 2, 'put', 'notes', 'k', '""');
    refused('AGENTCTL_E_USAGE', 2, 'put', 'notes', 'k', 'v', '--metadata', '[1]');
    refused('AGENTCTL_E_USAGE', 2, 'put', 'notes', 'k', 'v', '--retention-days', '0');
    refused('AGENTCTL_E_USAGE', 2, 'put', 'notes', 'k', 'v', '--retention-days', '36501');
    expect(existsSync(ws.db), 'a refused put creates no database').to.equal(false);
    refused('AGENTCTL_E_DB_OPEN', 5, 'get', 'notes', 'k');
    expect(existsSync(ws.db), 'get creates no database').to.equal(false);

    outcome(memory('put', 'notes', 'k', 'v', ...JSON_OUT), 0);
    refused('AGENTCTL_E_MEMORY_INVALID', 2, 'search', 'notes', 'v', '--limit', '0');
    refused('AGENTCTL_E_MEMORY_INVALID', 2, 'search', 'notes', 'v', '--limit', '101');
    refused('AGENTCTL_E_MEMORY_INVALID', 2, 'search', 'notes', '');
    refused('AGENTCTL_E_MEMORY_INVALID', 2, 'search', 'notes', 'q'.repeat(65_537));
    refused('AGENTCTL_E_USAGE', 2, 'search', 'notes', 'v', '--filter', 'topic');
    refused('AGENTCTL_E_USAGE', 2, 'search', 'notes', 'v', '--mode', 'fuzzy');
    expect(rows().map((row: any) => row.memory_key)).to.deep.equal(['k']);
  });
});
