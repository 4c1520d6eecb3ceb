// A config is loaded only from a place the user controls, through the real CLI: the search never enters a folder
// others can write to and refuses a config file of another user (both overridden by naming the file with --config);
// commands that only work on the database never import a code config; config files are read with the bounded,
// FIFO- and device-refusing reader of workflows. The ownership cases need root (to chown a file to another user).
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync } from 'node:fs';
import { expect } from 'chai';
import { runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, workflow } from './helpers.js';

const ASSIGN = workflow({ actions: { set: { kind: 'builtin.assign' } }, tasks: [{ id: 'set', uses: 'action:set', with: { x: 1 } }] });

/** A code config that leaves a marker file when it is imported: the proof that its code ran. */
const planted = (marker: string) => `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'imported');\nexport default { output: 'json' };\n`;

const asRoot = process.getuid?.() === 0;

describe('config trust: a config is loaded only from a place the user controls', () => {
  let ws: ReturnType<typeof workspace>;
  beforeEach(() => {
    ws = workspace();
  });
  afterEach(() => ws.cleanup());

  it('the search stops at a world-writable folder without the sticky bit: a config planted there is refused (AGENTCTL_E_CONFIG_UNSAFE_FOLDER) and never imported, by check, run, runs list and inspect', () => {
    const marker = ws.file('imported');
    mkdirSync(ws.file('shared/project'), { recursive: true });
    chmodSync(ws.file('shared'), 0o777);
    const config = ws.write('shared/.agentctlrc.mjs', planted(marker));
    ws.write('shared/project/wf.yaml', ASSIGN);
    const cwd = ws.file('shared/project');
    for (const args of [['check', 'wf.yaml'], ['run', 'wf.yaml', '--db', ws.db], ['runs', 'list', '--db', ws.db], ['inspect', 'run_x', '--db', ws.db]]) {
      const refused = errorDocument(runCli([...args, '--output', 'json'], { cwd }), 2);
      const found = diagnosticWithCode(refused, 'AGENTCTL_E_CONFIG_UNSAFE_FOLDER');
      expect(found.file, args.join(' ')).to.equal(config);
      expect(found.message).to.equal(`config file ${config} is in ${ws.file('shared')}, a folder other users can write to (group- or world-writable, and not a sticky folder of yours); it was not loaded`);
      expect(found.help).to.equal(`if you trust it, name it with --config ${config}; else use --no-config, or run from a folder of your own`);
    }
    expect(existsSync(marker), 'the planted config was imported').to.equal(false);
    expect(existsSync(ws.db), 'a database was created').to.equal(false);
    // Naming it is the user's decision: it is imported (its output json needs no flag).
    expect(outcome(runCli(['check', 'wf.yaml', '--config', config], { cwd }), 0).kind).to.equal('CheckResult');
    expect(existsSync(marker)).to.equal(true);
  });

  it('a folder group-writable is unsafe too; one with the sticky bit that belongs to you (1777) is searched', () => {
    const marker = ws.file('imported');
    mkdirSync(ws.file('shared/project'), { recursive: true });
    ws.write('shared/.agentctlrc.json', JSON.stringify({ output: 'json' }));
    ws.write('shared/project/wf.yaml', ASSIGN);
    const cwd = ws.file('shared/project');
    chmodSync(ws.file('shared'), 0o770);
    diagnosticWithCode(errorDocument(runCli(['check', 'wf.yaml', '--output', 'json'], { cwd }), 2), 'AGENTCTL_E_CONFIG_UNSAFE_FOLDER');
    chmodSync(ws.file('shared'), 0o1777);
    const shown = outcome(runCli(['config', 'show', 'wf.yaml'], { cwd }), 0);
    expect(shown.data.file).to.equal(ws.file('shared/.agentctlrc.json'));
    // A writable folder above the one holding the config is never reached: the config is found first.
    ws.write('shared/project/.agentctlrc.mjs', planted(marker));
    chmodSync(ws.file('shared'), 0o777);
    expect(outcome(runCli(['check', 'wf.yaml'], { cwd }), 0).kind).to.equal('CheckResult');
    expect(existsSync(marker)).to.equal(true);
  });

  (asRoot ? it : it.skip)('a config file of another user is refused (AGENTCTL_E_CONFIG_UNTRUSTED_OWNER) and never imported; --config names it', () => {
    const marker = ws.file('imported');
    const config = ws.write('project/agentctl.config.mjs', planted(marker));
    ws.write('project/wf.yaml', ASSIGN);
    chownSync(config, 12345, 12345);
    const cwd = ws.file('project');
    for (const args of [['run', 'wf.yaml', '--db', ws.db], ['runs', 'list', '--db', ws.db]]) {
      const refused = errorDocument(runCli([...args, '--output', 'json'], { cwd }), 2);
      const found = diagnosticWithCode(refused, 'AGENTCTL_E_CONFIG_UNTRUSTED_OWNER');
      expect(found.message).to.equal(`config file ${config} belongs to user id 12345, not to you (0) or root; it was not loaded`);
      expect(found.help).to.equal(`if you trust it, name it with --config ${config}; else use --no-config`);
    }
    expect(existsSync(marker)).to.equal(false);
    expect(existsSync(ws.db)).to.equal(false);
    outcome(runCli(['run', 'wf.yaml', '--db', ws.db, '--config', config], { cwd }), 0);
    expect(existsSync(marker)).to.equal(true);
  });

  it('commands that only work on the database never import a code config; run and check do', () => {
    const marker = ws.file('imported');
    ws.write('project/agentctl.config.mjs', planted(marker));
    ws.write('project/wf.yaml', ASSIGN);
    const cwd = ws.file('project');
    const run = outcome(runCli(['run', 'wf.yaml', '--db', ws.db], { cwd }), 0);
    expect(existsSync(marker), 'run imports the config').to.equal(true);
    execFileSync('rm', [marker]);
    for (const args of [['runs', 'list'], ['inspect', run.data.runId], ['effects', 'list', run.data.runId], ['approvals', 'list', run.data.runId]]) {
      const result = runCli([...args, '--db', ws.db], { cwd });
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).to.equal(0);
      // The config's `output: json` does not apply: it was not imported, so the output is the human one.
      expect(result.stdout.startsWith('{'), args.join(' ')).to.equal(false);
    }
    expect(existsSync(marker), 'a ledger command imported the config').to.equal(false);
  });

  it('config files are read like workflows: a FIFO is refused at once, a device and a file over 1 MiB are refused', () => {
    ws.write('project/wf.yaml', ASSIGN);
    execFileSync('mkfifo', [ws.file('project/agentctl.config.json')]);
    const cwd = ws.file('project');
    const fifo = errorDocument(runCli(['check', 'wf.yaml', '--output', 'json'], { cwd, timeoutMs: 20_000 }), 2);
    expect(diagnosticWithCode(fifo, 'AGENTCTL_E_FILE_NOT_FOUND').message).to.equal('config file cannot be read: it is not a regular file');
    const device = errorDocument(runCli(['check', 'wf.yaml', '--config', '/dev/zero', '--output', 'json'], { cwd, timeoutMs: 20_000 }), 2);
    expect(diagnosticWithCode(device, 'AGENTCTL_E_FILE_NOT_FOUND')).to.deep.include({ file: '/dev/zero', message: 'config file cannot be read: it is not a regular file' });
    const large = ws.write('big.yaml', `# ${'x'.repeat(1024 * 1024)}\n`);
    const tooLarge = errorDocument(runCli(['check', 'wf.yaml', '--config', large, '--output', 'json'], { cwd }), 2);
    expect(diagnosticWithCode(tooLarge, 'AGENTCTL_E_DOCUMENT_TOO_LARGE').message).to.equal('config file is 1048579 bytes; the limit is 1048576 bytes (1 MiB)');
  });
});
