// The reference's long-term memory example (opensourceops/agentctl examples/v1/long-term-memory.yaml, copied verbatim
// into fixtures/reference): it passes `check` unchanged, and a run writes the entry in one task and reads it back in
// the next, across the two separate lifecycles the reference's README describes.
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ROOT, runCli, workspace } from '../support/cli.js';
import { outcome, withDb } from '../cases/helpers.js';
import { at, expectAt, inspectedTask } from './journey-support.js';

const JSON_OUT = ['--output', 'json', '--color', 'never'];
const DB = '.agentctl/runtime.db';

describe('reference example: long-term-memory.yaml', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof workspace>;
  const cli = (...args: string[]) => runCli(args, { cwd: ws.dir });

  beforeEach(() => {
    ws = workspace();
    cpSync(join(ROOT, 'test', 'compat', 'fixtures', 'reference', 'long-term-memory.yaml'), ws.file('long-term-memory.yaml'));
  });
  afterEach(() => ws.cleanup());

  it('passes check unchanged and writes no state', () => {
    const check = outcome(cli('check', 'long-term-memory.yaml', ...JSON_OUT), 0);
    expectAt(check, { '/kind': 'CheckResult', '/data/valid': true, '/data/workflow': 'long-term-memory', '/data/tasks': 2 });
    expect(existsSync(ws.file('.agentctl'))).to.equal(false);
  });

  it('runs to succeeded: write records an external mutation, read an observation that returns "hello"', () => {
    const run = outcome(cli('run', 'long-term-memory.yaml', '--db', DB, ...JSON_OUT), 0);
    expectAt(run, { '/data/state': 'succeeded', '/data/tasks': { write: 'succeeded', read: 'succeeded' } });
    const inspection = outcome(cli('inspect', at(run, '/data/runId'), '--db', DB, ...JSON_OUT), 0);
    expect(inspectedTask(inspection, 'write').output).to.include({ status: 'changed', changed: true, namespace: 'example', key: 'greeting' });
    expect(inspectedTask(inspection, 'read').output).to.include({ status: 'unchanged', changed: false, found: true, key: 'greeting', value: 'hello' });
    const effects = (inspection.data.effects as any[]).map((effect) => [effect.request.taskId, effect.request.operation, effect.request.effectClass, effect.status]);
    expect(effects).to.deep.equal([
      ['write', 'long_term_memory.write', 'external_mutate', 'succeeded'],
      ['read', 'long_term_memory.read', 'observe', 'succeeded'],
    ]);
    // retentionDays: 30 — the entry expires thirty days after it was written.
    const read = inspectedTask(inspection, 'read').output;
    expect(Date.parse(read.expiresAt) - Date.parse(read.updatedAt)).to.equal(30 * 86_400_000);
    const rows = withDb(ws.file(DB), (db) => db.prepare('SELECT namespace, memory_key, embedding_provider, embedding_dimensions FROM long_term_memory').all());
    expect(rows).to.deep.equal([{ namespace: 'example', memory_key: 'greeting', embedding_provider: 'local_hash', embedding_dimensions: 64 }]);

    // The entry outlives the run: the CLI reads it from the same database.
    expectAt(outcome(cli('memory', 'get', 'example', 'greeting', '--db', DB, ...JSON_OUT), 0), { '/kind': 'MemoryEntry', '/data/found': true, '/data/value': 'hello' });
  });
});
