// The reference implementation's command table (opensourceops/agentctl v0.4.0, docs/generated/CLI.md, plus the
// `doctor` and `explain` commands its CLI tests drive): every command and subcommand must exist here, so
// `agentctl COMMAND... --help` exits 0 and shows that command's usage with the global options.
import { expect } from 'chai';
import { runCliAsync } from '../support/cli.js';

/**
 * Commands not required here, each with its reason: those a later issue brings (`update`
 * once agentctl's npm package name is settled), and `migrate`, which translates the reference's own pre-v1
 * TypeScript-era format that agentctl never had (docs/compatibility.md).
 */
const LATER: Readonly<Record<string, string>> = {
  update: "its reinstall command names agentctl's npm package, which the packaging issue settles",
  migrate: "it translates the reference's pre-v1 TypeScript-era workflows, a format agentctl never had",
};

const REFERENCE_COMMANDS = [
  'check',
  'plan',
  'run',
  'resume',
  'replay',
  'fork',
  'repair',
  'retry',
  'compensate',
  'runs',
  'runs analyze',
  'runs upgrade',
  'cancel',
  'inspect',
  'effects',
  'effects list',
  'effects inspect',
  'effects reconcile',
  'effects continue-remote',
  'approvals',
  'approvals list',
  'approvals approve',
  'approvals reject',
  'providers',
  'providers inspect',
  'providers smoke-openai',
  'auth',
  'auth check',
  'schema',
  'migrate',
  'packs',
  'packs inspect',
  'packs verify',
  'artifacts',
  'artifacts list',
  'artifacts inspect',
  'artifacts verify',
  'artifacts export',
  'artifacts gc',
  'db',
  'db stats',
  'db migrate',
  'db encryption',
  'db encryption inventory',
  'db encryption enable',
  'db encryption rotate',
  'memory',
  'memory get',
  'memory put',
  'memory search',
  'memory reindex',
  'gc',
  'completion',
  'version',
  'update',
  'doctor',
  'explain',
];

describe('compat: the reference command table', function () {
  this.timeout(120_000);

  for (const command of REFERENCE_COMMANDS) {
    const title = `agentctl ${command} --help exits 0 with its usage and the global options`;
    if (LATER[command]) {
      it.skip(`${title} (pending: ${LATER[command]})`);
      continue;
    }
    it(title, async () => {
      const words = command.split(' ');
      const result = await runCliAsync([...words, '--help']);
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stdout).to.contain(`agentctl ${command}`);
      for (const option of ['--output', '--color', '--verbose']) expect(result.stdout, option).to.contain(option);
    });
  }

  it('--verbose is accepted before and after the command', async () => {
    for (const args of [['--verbose', 'version'], ['version', '--verbose']]) expect((await runCliAsync(args)).status, args.join(' ')).to.equal(0);
  });
});
