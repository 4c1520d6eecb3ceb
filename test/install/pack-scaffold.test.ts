// `agentctl packs new` as a user meets it: the CLI installed by npm from its tarball (so the templates are found in
// an installed package, not in this checkout) scaffolds a pack into a project; npm installs the pack's development
// dependencies (@agentctl/* from the tarballs on a loopback registry, typescript and mocha from npm's cache), which
// builds it (`prepare`); its own `npm test` passes; and the project, listing it in its config, locks it and runs its
// example workflow with --locked. The packages and the registry are those of npm-packages.test.ts.
//
// Minutes of npm (two installs): `npm run test:install` runs this file.
import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryFolder } from '../../core/testing/fixtures.js';
import { outcome } from '../cases/helpers.js';
import { ALLOW_SCRIPTS, localPrebuilds, npmFlags, packTarballs, run as runIn } from '../support/packages.js';
import { startRegistry, type Registry } from '../support/registry.js';
import type { CliResult } from '../support/cli.js';

describe('npm packages: packs new makes a pack that builds, tests, locks and runs out of the box', function () {
  this.timeout(15 * 60_000);
  let base = '';
  let env: NodeJS.ProcessEnv = {};
  let registry: Registry | undefined;

  const run = (command: string, args: readonly string[], cwd: string) => runIn(command, args, cwd, env);
  const succeeds = async (command: string, args: readonly string[], cwd: string): Promise<CliResult> => {
    const result = await run(command, command === 'npm' ? [...args, ...npmFlags(registry!.url)] : args, cwd);
    expect(result.status, `${command} ${args.join(' ')}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`).to.equal(0);
    return result;
  };

  before(async () => {
    base = realpathSync(temporaryFolder('agentctl-scaffold-'));
    env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', npm_config_update_notifier: 'false', ...(await localPrebuilds(join(base, 'prebuilds'))) };
    const tarballs = await packTarballs(join(base, 'tarballs'), env);
    registry = await startRegistry([...tarballs.values()]);
  });
  after(async () => {
    await registry?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it("scaffold with the installed CLI, then the pack's README as written: npm install and npm test in the pack, a run, packs lock and a locked run in the project", async () => {
    const project = join(base, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'project', private: true, allowScripts: ALLOW_SCRIPTS }, null, 2)}\n`);
    await succeeds('npm', ['install', '@agentctl/cli'], project);
    const agentctl = join(project, 'node_modules', '.bin', 'agentctl');

    const made = outcome(await run(agentctl, ['packs', 'new', '@acme/agentctl-pack-greet', '--dir', 'packs/greet', '--output', 'json'], project), 0);
    expect(made.data).to.include({ name: '@acme/agentctl-pack-greet', path: join(project, 'packs', 'greet') });
    const pack = join(project, 'packs', 'greet');

    // The README's commands, as written: the first block in the pack's folder, the last one in the project's, with the
    // config it shows. Each must succeed.
    const readme = readFileSync(join(pack, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({ language: match[1]!, lines: match[2]!.split('\n').filter((line) => line.trim() !== '') }));
    const shell = blocks.filter((block) => block.language === 'sh');
    expect(shell.map((block) => block.lines)).to.deep.equal([
      ['npm install', 'npm test'],
      [
        'npx agentctl run packs/greet/examples/echo.yaml --config agentctl.config.json --input message=Hi',
        'npx agentctl packs lock',
        'npx agentctl run packs/greet/examples/echo.yaml --config agentctl.config.json --input message=Hi --locked',
      ],
    ]);
    const config = blocks.find((block) => block.language === 'json')!.lines.join('\n');
    expect(JSON.parse(config)).to.deep.equal({ packs: ['./packs/greet'] });

    const outputs: CliResult[] = [];
    for (const line of shell[0]!.lines) outputs.push(await succeeds('npm', line.split(' ').slice(1), pack));
    // `prepare` built the pack on install: its entry exists before any script of ours ran.
    expect(existsSync(join(pack, 'dist', 'src', 'index.js'))).to.equal(true);
    expect(outputs[1]!.stdout).to.match(/7 passing/).and.not.match(/failing/);

    writeFileSync(join(project, 'agentctl.config.json'), `${config}\n`);
    for (const line of shell[1]!.lines) outputs.push(await succeeds('npx', line.split(' ').slice(1), project));
    expect(outputs.at(-1)!.stdout).to.include('message: Hi');
    expect(readFileSync(join(project, 'agentctl.pack.lock'), 'utf8')).to.include("name: '@acme/agentctl-pack-greet'");

    const listed = outcome(await run(agentctl, ['plugins', 'list', '--output', 'json'], project), 0);
    expect(listed.data.plugins.find((plugin: { name: string }) => plugin.name === '@acme/agentctl-pack-greet')).to.deep.include({ source: 'path', actionKinds: ['greet.echo'] });
    const verified = outcome(await run(agentctl, ['packs', 'verify-lock', '--output', 'json'], project), 0);
    expect(verified.data.codePacks).to.deep.equal([{ name: '@acme/agentctl-pack-greet', version: '0.1.0' }]);

    const workflow = join('packs', 'greet', 'examples', 'echo.yaml');
    const ran = outcome(await run(agentctl, ['run', workflow, '--config', 'agentctl.config.json', '--locked', '--input', 'message=Hi', '--output', 'json'], project), 0);
    expect(ran.data.state).to.equal('succeeded');
    expect(ran.data.output).to.deep.equal({ message: 'Hi', sha256: '3639efcd08abb273b1619e82e78c29a7df02c1051b1820e99fc395dcaa3326b8' });
    // The task's effect is in the ledger.
    const inspected = outcome(await run(agentctl, ['inspect', ran.data.runId, '--output', 'json'], project), 0);
    expect(inspected.data.effects.map((effect: { operation: string; state: string }) => [effect.operation, effect.state])).to.deep.equal([['greet.echo', 'succeeded']]);
  });
});
