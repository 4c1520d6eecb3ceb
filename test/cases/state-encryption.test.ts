// Sensitive-state encryption through the real CLI: `db encryption enable|rotate|inventory`, every byte of the database
// and its -wal scanned for a canary value, reads and runs on an encrypted database, a flipped byte, a dry run and a
// crash half way through enable (docs/state-encryption.md). state-encryption-keys.test.ts has the refusals.
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { baseEnv, runCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, rows } from './helpers.js';
import { databaseFiles, encryptionCase, encryptionTools, expectNowhere, fileDigest, type Workspace } from './state-encryption-support.js';

describe('state encryption: db encryption enable, rotate and inventory', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let keys: Record<string, string>;
  let canary: string;
  beforeEach(() => ({ ws, keys, canary } = encryptionCase()));
  afterEach(() => ws.cleanup());
  const { cli, withKeys, enable, inventory, seed, noKeyLeaks } = encryptionTools(() => ({ ws, keys, canary }));

  it('enable seals every protected value: no byte of the file holds the canary; inspect, approvals, resume, replay and inventory work with the key', () => {
    const { paused, finished } = seed();
    expect(readFileSync(ws.db).includes(Buffer.from(canary)) || (existsSync(`${ws.db}-wal`) && readFileSync(`${ws.db}-wal`).includes(Buffer.from(canary)))).to.equal(true);
    const before = inventory({});
    expect(before).to.deep.include({ enabled: false, keyId: null, keyReference: null, encryptedValues: 0, invalidEnvelopes: 0, keysInUse: {}, scrubPending: false });
    expect(before.plaintextValues).to.equal(before.protectedValues).and.be.above(10);

    // A connection held open across enable keeps its -wal in place: the log is scanned as enable leaves it.
    const witness = new Database(ws.db, { readonly: true });
    witness.prepare('SELECT COUNT(*) FROM runs').get();
    let enabled: any;
    try {
      enabled = outcome(enable(), 0);
      expect(expectNowhere(ws.db, canary)).to.include('runtime.db-wal');
    } finally {
      witness.close();
    }
    expect(enabled.kind).to.equal('EncryptionMigration');
    expect(enabled.data).to.deep.equal({ operation: 'enable', dryRun: false, keyId: 'prod-1', keyReference: 'STATE_KEY_ONE', previousKeyId: null, valuesScanned: before.protectedValues, valuesRewritten: before.protectedValues, scrubbed: true });
    // Every file of the database: the old values went with the VACUUM and the truncated log.
    expectNowhere(ws.db, canary);
    expect(inventory()).to.deep.include({ enabled: true, keyId: 'prod-1', keyReference: 'STATE_KEY_ONE', protectedValues: before.protectedValues, encryptedValues: before.protectedValues, plaintextValues: 0, invalidEnvelopes: 0, keysInUse: { 'prod-1': before.protectedValues }, scrubPending: false });
    // The database records the key's id and variable, never the key.
    expect(rows(ws.db, 'SELECT key_id, key_reference FROM state_encryption')).to.deep.equal([{ key_id: 'prod-1', key_reference: 'STATE_KEY_ONE' }]);
    noKeyLeaks(databaseFiles(ws.db).get('runtime.db')!.toString('latin1'));

    // A connection held open keeps the -wal after each command: it is scanned as the commands leave it.
    const holder = new Database(ws.db, { readonly: true });
    holder.prepare('SELECT COUNT(*) FROM runs').get();
    try {
      const inspected = outcome(withKeys('inspect', paused), 0).data;
      expect(inspected.run.inputs).to.deep.equal({ secret: canary });
      expect(inspected.tasks.find((task: any) => task.taskId === 'keep').output.output).to.deep.equal({ value: canary });
      const approval = outcome(withKeys('approvals', 'list', paused), 0).data[0];
      outcome(withKeys('approvals', 'approve', approval.approvalId, '--reason', `approved for ${canary}`), 0);
      const resumed = outcome(withKeys('resume', paused), 0).data;
      expect(resumed.output).to.deep.equal({ kept: canary });
      const effect = outcome(withKeys('effects', 'list', paused), 0).data.effects.find((entry: any) => entry.operation === 'process.exec');
      expect(JSON.stringify(effect.result)).to.contain(`said ${canary}`);
      const another = outcome(withKeys('run', ws.file('wf.yaml'), '--input', `secret=${canary}-2`), 3).data.runId as string;
      expect(outcome(withKeys('replay', finished), 0).data.state).to.equal('succeeded');
      expect(outcome(withKeys('inspect', another), 0).data.run.inputs).to.deep.equal({ secret: `${canary}-2` });
      expect(existsSync(`${ws.db}-wal`), 'the -wal is kept by the open connection').to.equal(true);
      expect(expectNowhere(ws.db, canary)).to.include('runtime.db-wal');
      const checkpointer = new Database(ws.db);
      try {
        checkpointer.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        checkpointer.close();
      }
      expectNowhere(ws.db, canary);
    } finally {
      holder.close();
    }
    const after = inventory();
    expect(after).to.deep.include({ plaintextValues: 0, invalidEnvelopes: 0 });
    expect(after.keysInUse).to.deep.equal({ 'prod-1': after.protectedValues });
    // The write guards: plaintext written into a protected column behind agentctl's back is refused by the database.
    const writer = new Database(ws.db);
    try {
      expect(() => writer.prepare(`UPDATE runs SET inputs_json = '{}' WHERE id = ?`).run(paused)).to.throw(/AGENTCTL_E_STATE_ENVELOPE_INVALID/);
    } finally {
      writer.close();
    }
  });

  it('rotate re-seals every value under the new key in one transaction; afterwards only the new key opens the database', () => {
    const { finished } = seed(keys);
    outcome(enable(), 0);
    const before = inventory();
    const dry = outcome(withKeys('db', 'encryption', 'rotate', '--key-id', 'prod-2', '--key-env', 'STATE_KEY_TWO', '--dry-run'), 0);
    expect(dry.data).to.deep.equal({ operation: 'rotate', dryRun: true, keyId: 'prod-2', keyReference: 'STATE_KEY_TWO', previousKeyId: 'prod-1', valuesScanned: before.protectedValues, valuesRewritten: 0, scrubbed: false });
    expect(inventory().keyId).to.equal('prod-1');

    const rotated = outcome(withKeys('db', 'encryption', 'rotate', '--key-id', 'prod-2', '--key-env', 'STATE_KEY_TWO'), 0);
    expect(rotated.data).to.deep.equal({ operation: 'rotate', dryRun: false, keyId: 'prod-2', keyReference: 'STATE_KEY_TWO', previousKeyId: 'prod-1', valuesScanned: before.protectedValues, valuesRewritten: before.protectedValues, scrubbed: true });
    const onlyNew = { STATE_KEY_TWO: keys.STATE_KEY_TWO! };
    expect(inventory(onlyNew)).to.deep.include({ keyId: 'prod-2', keyReference: 'STATE_KEY_TWO', plaintextValues: 0, invalidEnvelopes: 0, keysInUse: { 'prod-2': before.protectedValues } });
    // No envelope of the old key is left anywhere in the files.
    expectNowhere(ws.db, 'agentctl.encrypted.v1:prod-1:');
    expectNowhere(ws.db, canary);
    expect(outcome(cli(onlyNew, 'replay', finished), 0).data.state).to.equal('succeeded');
    const oldOnly = errorDocument(cli({ STATE_KEY_ONE: keys.STATE_KEY_ONE! }, 'replay', finished), 5);
    expect(diagnosticWithCode(oldOnly, 'AGENTCTL_E_STATE_KEY_MISSING').message).to.contain('prod-2').and.contain('STATE_KEY_TWO');
  });

  it('a flipped byte, or an envelope moved to another field, fails authentication: exit 5 naming the column, and inventory counts it', () => {
    const { paused } = seed(keys);
    outcome(enable(), 0);
    const tamper = new Database(ws.db);
    let original = '';
    try {
      const stored = (tamper.prepare('SELECT inputs_json FROM runs WHERE id = ?').get(paused) as { inputs_json: string }).inputs_json;
      const at = stored.indexOf('"ciphertext":"') + 20;
      const flipped = `${stored.slice(0, at)}${stored[at] === 'A' ? 'B' : 'A'}${stored.slice(at + 1)}`;
      tamper.prepare('UPDATE runs SET inputs_json = ? WHERE id = ?').run(flipped, paused);
      original = stored;
    } finally {
      tamper.close();
    }
    const failed = errorDocument(withKeys('inspect', paused), 5);
    expect(diagnosticWithCode(failed, 'AGENTCTL_E_STATE_ENVELOPE_INVALID').message).to.contain('runs.inputs_json').and.contain('authentication');
    const counted = inventory();
    expect(counted.invalidEnvelopes).to.equal(1);
    expect(counted.columns.find((entry: any) => entry.column === 'runs.inputs_json')).to.deep.include({ invalid: 1 });
    // A rotation refuses a database with an invalid value, and changes nothing.
    const bytes = fileDigest(ws.db);
    diagnosticWithCode(errorDocument(withKeys('db', 'encryption', 'rotate', '--key-id', 'prod-2', '--key-env', 'STATE_KEY_TWO'), 5), 'AGENTCTL_E_STATE_ENVELOPE_INVALID');
    expect(fileDigest(ws.db)).to.equal(bytes);

    // A valid envelope of tasks.output_json copied into tasks.input_json: it names the current key, so the write guard
    // lets it in, and its associated data (the column) refuses it on read.
    const move = new Database(ws.db);
    try {
      move.prepare('UPDATE runs SET inputs_json = ? WHERE id = ?').run(original, paused);
      move.prepare(`UPDATE tasks SET input_json = output_json WHERE run_id = ? AND task_id = 'keep'`).run(paused);
    } finally {
      move.close();
    }
    expect(diagnosticWithCode(errorDocument(withKeys('inspect', paused), 5), 'AGENTCTL_E_STATE_ENVELOPE_INVALID').message).to.contain('tasks.input_json');
  });

  it('dry runs change nothing: the file is byte for byte the same, and the report counts what enable would rewrite', () => {
    seed();
    const bytes = fileDigest(ws.db);
    const dry = outcome(enable(keys, '--dry-run'), 0);
    const counted = inventory({});
    expect(dry.data).to.deep.equal({ operation: 'enable', dryRun: true, keyId: 'prod-1', keyReference: 'STATE_KEY_ONE', previousKeyId: null, valuesScanned: counted.protectedValues, valuesRewritten: 0, scrubbed: false });
    expect(fileDigest(ws.db)).to.equal(bytes);
    // A read-only open of a WAL database may leave an empty log and its index beside it, as inspect does: no frame.
    expect(databaseFiles(ws.db).get('runtime.db-wal')?.length ?? 0).to.equal(0);
    expect(counted).to.deep.include({ enabled: false, encryptedValues: 0 });
  });

  it('a crash half way through enable leaves the database as it was; enable again encrypts all of it', () => {
    const { paused } = seed();
    const before = inventory({});
    const killed = runCli(['db', 'encryption', 'enable', '--key-id', 'prod-1', '--key-env', 'STATE_KEY_ONE', '--db', ws.db, '--output', 'json'], {
      cwd: ws.dir,
      env: baseEnv({ ...keys, AGENTCTL_TEST_ENCRYPTION_KILL_AFTER: '5' }),
    });
    expect(killed.signal, killed.stderr).to.equal('SIGKILL');
    // Nothing of the rewrite was committed: the database is plaintext, readable without a key, and says so.
    expect(inventory({})).to.deep.equal(before);
    expect(outcome(cli({}, 'inspect', paused), 0).data.run.inputs).to.deep.equal({ secret: canary });
    const again = outcome(enable(), 0);
    expect(again.data).to.deep.include({ valuesRewritten: before.protectedValues, scrubbed: true });
    expect(inventory()).to.deep.include({ encryptedValues: before.protectedValues, plaintextValues: 0, invalidEnvelopes: 0 });
    expectNowhere(ws.db, canary);
    expect(outcome(withKeys('inspect', paused), 0).data.run.inputs).to.deep.equal({ secret: canary });
  });

  it('a database encrypted from the start: enable on a new file, then runs write envelopes only', () => {
    outcome(enable(), 0);
    expect(inventory()).to.deep.include({ enabled: true, protectedValues: 0 });
    const runId = outcome(withKeys('run', ws.file('wf.yaml'), '--input', `secret=${canary}`), 3).data.runId as string;
    const finished = outcome(withKeys('run', ws.file('plain.yaml')), 0).data.runId as string;
    // Derived runs read the source's sealed rows and write their own sealed.
    expect(outcome(withKeys('retry', ws.file('plain.yaml'), finished, '--from', 'a', '--restart-successful'), 0).data.state).to.equal('succeeded');
    expect(outcome(withKeys('fork', finished), 0).data.state).to.equal('succeeded');
    const counted = inventory();
    expect(counted).to.deep.include({ plaintextValues: 0, invalidEnvelopes: 0 });
    expect(counted.encryptedValues).to.be.above(10);
    expect(outcome(withKeys('inspect', runId), 0).data.run.inputs).to.deep.equal({ secret: canary });
    const holder = new Database(ws.db, { readonly: true });
    holder.prepare('SELECT COUNT(*) FROM runs').get();
    try {
      outcome(withKeys('run', ws.file('wf.yaml'), '--input', `secret=${canary}`), 3);
      expect(expectNowhere(ws.db, canary)).to.include('runtime.db-wal');
    } finally {
      holder.close();
    }
  });
});
