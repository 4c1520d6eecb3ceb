// State keys through the real CLI: every command that opens an encrypted database needs its key; missing, wrong,
// malformed and misplaced keys and flags are refused with their codes and change nothing; a driven run holds enable
// back; the project config's stateKeys names where a key is (docs/state-encryption.md).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCli, startCli } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, finished, outcome, rows, waitFor, workflow } from './helpers.js';
import { encryptionCase, encryptionTools, fileDigest, type Workspace } from './state-encryption-support.js';

describe('state encryption: keys, refusals and the runs that hold enable back', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let keys: Record<string, string>;
  let canary: string;
  beforeEach(() => ({ ws, keys, canary } = encryptionCase()));
  afterEach(() => ws.cleanup());
  const { cli, withKeys, enable, inventory, seed, noKeyLeaks } = encryptionTools(() => ({ ws, keys, canary }));

  it('every command that opens the database needs its key: without it each exits 5 naming the key id and the variable; with the wrong key, 5 as well', () => {
    const { paused, finished } = seed(keys);
    outcome(enable(), 0);
    const commands = [
      ['inspect', paused],
      ['report', paused, '--format', 'markdown'],
      ['runs', 'list'],
      ['effects', 'list', paused],
      ['approvals', 'list', paused],
      ['artifacts', 'list'],
      ['replay', finished],
      ['resume', paused],
      ['retry', ws.file('plain.yaml'), finished, '--from', 'a'],
      ['repair', ws.file('plain.yaml'), finished, '--from', 'a'],
      ['fork', finished],
      ['cancel', paused],
      ['compensate', finished, '--plan'],
      ['gc'],
      ['db', 'stats'],
      ['db', 'encryption', 'inventory'],
      ['run', ws.file('plain.yaml')],
    ];
    const bytes = fileDigest(ws.db);
    for (const command of commands) {
      const missing = errorDocument(cli({}, ...command), 5);
      const found = diagnosticWithCode(missing, 'AGENTCTL_E_STATE_KEY_MISSING');
      expect(found.message, command.join(' ')).to.contain('prod-1').and.contain('STATE_KEY_ONE');
      const wrong = errorDocument(cli({ STATE_KEY_ONE: keys.STATE_KEY_TWO! }, ...command), 5);
      expect(diagnosticWithCode(wrong, 'AGENTCTL_E_STATE_KEY_MISMATCH').message, command.join(' ')).to.contain('prod-1');
      noKeyLeaks(JSON.stringify(wrong));
    }
    expect(fileDigest(ws.db), 'refused commands change nothing').to.equal(bytes);
    // With the key, the same reads work.
    expect(outcome(withKeys('runs', 'list'), 0).data.runs).to.have.length(3);
    const report = runCli(['report', paused, '--format', 'markdown', '--db', ws.db], { cwd: ws.dir, env: baseEnv(keys) });
    expect(report.status, report.stderr).to.equal(0);
    expect(report.stdout).to.contain(paused);
  });

  it('enabling twice, rotating to the same key id or without encryption, and malformed, missing or short keys are each refused with their code; nothing changes', () => {
    const { paused } = seed();
    const refused = (result: ReturnType<typeof cli>, code: string, exit = 5) => {
      const document = errorDocument(result, exit);
      noKeyLeaks(`${result.stderr}${result.stdout}`);
      return diagnosticWithCode(document, code).message as string;
    };
    const rotate = (env: Record<string, string>, id: string, variable: string) => cli(env, 'db', 'encryption', 'rotate', '--key-id', id, '--key-env', variable);
    const plainBytes = fileDigest(ws.db);
    refused(rotate(keys, 'prod-2', 'STATE_KEY_TWO'), 'AGENTCTL_E_STATE_ENCRYPTION_DISABLED');
    expect(refused(enable({ STATE_KEY_ONE: 'not base64!' }), 'AGENTCTL_E_STATE_KEY_MALFORMED')).to.contain('STATE_KEY_ONE').and.contain('prod-1');
    expect(refused(enable({ STATE_KEY_ONE: randomBytes(16).toString('base64') }), 'AGENTCTL_E_STATE_KEY_MALFORMED')).to.contain('decodes to 16');
    expect(refused(enable({}), 'AGENTCTL_E_STATE_KEY_MISSING')).to.contain('STATE_KEY_ONE').and.contain('prod-1');
    refused(cli(keys, 'db', 'encryption', 'enable', '--key-id', 'bad id!', '--key-env', 'STATE_KEY_ONE'), 'AGENTCTL_E_STATE_KEY_REFERENCE');
    refused(cli(keys, 'db', 'encryption', 'enable', '--key-id', 'prod-1', '--key-env', keys.STATE_KEY_ONE!), 'AGENTCTL_E_STATE_KEY_REFERENCE');
    refused(cli(keys, 'db', 'encryption', 'enable', '--key-env', 'STATE_KEY_ONE'), 'AGENTCTL_E_USAGE', 2);
    expect(fileDigest(ws.db)).to.equal(plainBytes);
    // A text that begins like an envelope could not be read back from a database without a key: it is refused.
    const approval = outcome(cli({}, 'approvals', 'list', paused), 0).data[0];
    refused(cli({}, 'approvals', 'approve', approval.approvalId, '--reason', 'agentctl.encrypted.v1:x:{}'), 'AGENTCTL_E_STATE_ENVELOPE_INVALID');
    expect(outcome(cli({}, 'approvals', 'list', paused), 0).data[0].status).to.equal('pending');
    expect(inventory({}).enabled).to.equal(false);

    outcome(enable(), 0);
    const bytes = fileDigest(ws.db);
    expect(refused(enable(), 'AGENTCTL_E_STATE_ENCRYPTION_ENABLED')).to.contain('prod-1');
    expect(refused(rotate(keys, 'prod-1', 'STATE_KEY_TWO'), 'AGENTCTL_E_STATE_KEY_UNCHANGED')).to.contain('prod-1');
    refused(rotate({ ...keys, STATE_KEY_TWO: 'AAAA' }, 'prod-2', 'STATE_KEY_TWO'), 'AGENTCTL_E_STATE_KEY_MALFORMED');
    expect(refused(rotate({ STATE_KEY_ONE: keys.STATE_KEY_ONE! }, 'prod-2', 'STATE_KEY_TWO'), 'AGENTCTL_E_STATE_KEY_MISSING')).to.contain('prod-2');
    // Rotation needs the current key as well as the new one.
    expect(refused(rotate({ STATE_KEY_TWO: keys.STATE_KEY_TWO! }, 'prod-2', 'STATE_KEY_TWO'), 'AGENTCTL_E_STATE_KEY_MISSING')).to.contain('prod-1');
    expect(fileDigest(ws.db)).to.equal(bytes);
    expect(inventory()).to.deep.include({ keyId: 'prod-1', plaintextValues: 0, invalidEnvelopes: 0 });
  });

  it('enable (like rotate) waits for a run another process drives: exit 5, AGENTCTL_E_RUN_LEASED, nothing changed; an interrupted run does not hold it back', async () => {
    ws.write('slow.yaml', workflow({ policy: { processAllowlist: ['sh'], approval: 'never' }, actions: { wait: { kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'while [ ! -f go ]; do sleep 0.1; done'] } }, tasks: [{ id: 'wait', uses: 'action:wait' }] }));
    const child = startCli(['run', ws.file('slow.yaml'), '--db', ws.db, '--output', 'json'], { cwd: ws.dir });
    try {
      await waitFor('the run to start its process', () => existsSync(ws.db) && rows(ws.db, `SELECT state FROM effects WHERE state = 'started'`).length === 1);
      const before = inventory({});
      const refused = errorDocument(enable(), 5);
      expect(diagnosticWithCode(refused, 'AGENTCTL_E_RUN_LEASED').message).to.match(/run run_\w+ is being driven/);
      expect(inventory({})).to.deep.equal(before);
    } finally {
      // SIGKILLed, its owner is gone: an interrupted run is not driven, and is resumed later with the key.
      child.kill('SIGKILL');
      await finished(child);
    }
    outcome(enable(), 0);
    const [run] = outcome(withKeys('runs', 'list'), 0).data.runs;
    expect(run).to.deep.include({ state: 'running', liveness: 'interrupted' });
  });

  it("the project config's stateKeys names the variable that holds a key id's key on this machine; a key pasted there is refused", () => {
    const { paused } = seed(keys);
    outcome(enable(), 0);
    ws.write('.agentctlrc.json', JSON.stringify({ stateKeys: { 'prod-1': 'CI_STATE_KEY' } }));
    expect(outcome(cli({ CI_STATE_KEY: keys.STATE_KEY_ONE! }, 'inspect', paused), 0).data.run.inputs).to.deep.equal({ secret: canary });
    const shown = outcome(cli({}, 'config', 'show'), 0).data.settings.stateKeys;
    expect(shown).to.deep.equal({ value: { 'prod-1': 'CI_STATE_KEY' }, source: ws.file('.agentctlrc.json') });
    // The mapped variable is the one read, and named: the recorded one is not consulted.
    expect(diagnosticWithCode(errorDocument(cli(keys, 'inspect', paused), 5), 'AGENTCTL_E_STATE_KEY_MISSING').message).to.contain('CI_STATE_KEY');
    expect(diagnosticWithCode(errorDocument(cli({ CI_STATE_KEY: keys.STATE_KEY_TWO! }, 'inspect', paused), 5), 'AGENTCTL_E_STATE_KEY_MISMATCH').message).to.contain('CI_STATE_KEY');
    ws.write('.agentctlrc.json', JSON.stringify({ stateKeys: { 'prod-1': keys.STATE_KEY_ONE } }));
    const bad = cli(keys, 'inspect', paused);
    diagnosticWithCode(errorDocument(bad, 2), 'AGENTCTL_E_CONFIG_INVALID');
    noKeyLeaks(`${bad.stdout}${bad.stderr}`);
  });

});
