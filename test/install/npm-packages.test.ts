// The packages as a user installs them: `npm pack` makes the tarballs of the CLI, the SDK, the test kit and the
// shipped packs; a registry on loopback publishes them (test/support/registry.ts; npm asks it for the @agentctl
// scope only); and npm installs them by name into fresh folders — as a project dependency, globally with a prefix,
// and through npx — where each runs a workflow that uses a shipped pack.
//
// Every other package comes from npm's cache (--prefer-offline: the registry only for what the cache lacks). The
// project's package.json approves install scripts as docs/dependencies.md tells a user to (better-sqlite3 yes, the
// optional native parts of dockerode's ssh2 no), and better-sqlite3's own install script finds its native binding
// as a local prebuild (prebuild-install's `npm_config_better_sqlite3_local_prebuilds` folder), made from the binding
// this checkout built, instead of compiling it once more for each folder.
//
// Minutes of npm: `npm run test:install` runs this file, after `npm test` in .ci/run.
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryFolder } from '../../core/testing/fixtures.js';
import type { CliResult } from '../support/cli.js';
import { outcome } from '../cases/helpers.js';
import { ALLOW_SCRIPTS, localPrebuilds, npmFlags, packTarballs, run as runIn } from '../support/packages.js';
import { startRegistry, type Registry } from '../support/registry.js';

const GREET = `apiVersion: agentctl.dev/v1alpha1
kind: Workflow
metadata:
  name: greet
spec:
  inputs:
    who: { type: string }
  actions:
    greet: { kind: hello.greet }
  tasks:
    - id: greet
      uses: action:greet
      with:
        name: \${{ inputs.who }}
  outputs:
    greeting: \${{ tasks.greet.output.greeting }}
`;

type Run = CliResult;

describe('npm packages: pack, install, run a workflow with a shipped pack', function () {
  this.timeout(10 * 60_000);
  let base = '';
  let tarballs = new Map<string, string>();
  let env: NodeJS.ProcessEnv = {};
  let registry: Registry | undefined;

  // Asynchronous: the registry answers from this process while npm runs.
  const run = (command: string, args: readonly string[], cwd: string) => runIn(command, args, cwd, env);
  const npm = async (args: readonly string[], cwd: string): Promise<Run> => {
    const result = await run('npm', [...args, ...npmFlags(registry!.url)], cwd);
    expect(result.status, `npm ${args.join(' ')}\n${result.stderr}`).to.equal(0);
    return result;
  };
  const tarball = (name: string) => tarballs.get(name)!;
  /** A project folder with a package.json, the hello pack listed in its config and a workflow that uses it. */
  const project = (name: string) => {
    const dir = join(base, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true, allowScripts: ALLOW_SCRIPTS }, null, 2)}\n`);
    writeFileSync(join(dir, '.agentctlrc.json'), `${JSON.stringify({ packs: ['@agentctl/pack-hello'] })}\n`);
    writeFileSync(join(dir, 'greet.yaml'), GREET);
    return dir;
  };
  const expectGreeting = (result: Run, who: string) => {
    expect(result.status, result.stderr).to.equal(0);
    const document = outcome(result, 0);
    expect(document.data.state).to.equal('succeeded');
    expect(document.data.output).to.deep.equal({ greeting: `Hello, ${who}!` });
  };

  before(async () => {
    base = realpathSync(temporaryFolder('agentctl-npm-'));
    env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', npm_config_update_notifier: 'false', ...(await localPrebuilds(join(base, 'prebuilds'))) };
    // dist/ and sdk/dist/ are built by `npm test` before mocha starts; --ignore-scripts keeps npm pack from building again.
    tarballs = await packTarballs(join(base, 'tarballs'), env);
    expect([...tarballs.keys()].sort()).to.deep.equal(['agentctl-cli', 'agentctl-pack-github', 'agentctl-pack-hello', 'agentctl-pack-http', 'agentctl-pack-otel', 'agentctl-sdk', 'agentctl-testing']);
    registry = await startRegistry([...tarballs.values()]);
  });
  after(async () => {
    await registry?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('the tarballs hold the built code, and no sources, tests, databases or other packages', async () => {
    const listing = async (name: string) => (await run('tar', ['-tzf', tarball(name)], base)).stdout.split('\n').filter(Boolean);
    const cli = await listing('agentctl-cli');
    expect(cli).to.include.members(['package/bin/agentctl.js', 'package/dist/core/cli/main.js', 'package/dist/core/testing/index.js', 'package/package.json', 'package/README.md']);
    const sdk = await listing('agentctl-sdk');
    expect(sdk).to.include.members(['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/documents/index.js', 'package/dist/process.js', 'package/package.json', 'package/README.md']);
    const otel = await listing('agentctl-pack-otel');
    expect(otel).to.include.members(['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/tracing.js', 'package/package.json', 'package/README.md']);
    for (const paths of [cli, sdk, otel]) {
      expect(paths.filter((path) => /\.ts$/.test(path) && !path.endsWith('.d.ts'))).to.deep.equal([]);
      // `packs new`'s templates (`*.tmpl`, one of them a pack's test to be) are part of the CLI; no test of ours is.
      expect(paths.filter((path) => /^package\/(test|core|builtins|sdk|scripts|bench|node_modules)\//.test(path) || (/\.test\./.test(path) && !path.endsWith('.tmpl')) || /\.db$/.test(path))).to.deep.equal([]);
    }
  });

  it('as a project dependency: npm install @agentctl/cli @agentctl/pack-hello, then npx agentctl runs a workflow with the pack', async () => {
    const dir = project('dependency');
    await npm(['install', '@agentctl/cli', '@agentctl/pack-hello'], dir);
    expect(existsSync(join(dir, 'node_modules', '.bin', 'agentctl'))).to.equal(true);
    expectGreeting(await run('npx', ['agentctl', 'run', 'greet.yaml', '--input', 'who=Ada', '--output', 'json'], dir), 'Ada');
    const listed = outcome(await run('npx', ['agentctl', 'plugins', 'list', '--output', 'json'], dir), 0);
    expect(listed.data.plugins.find((plugin: { name: string }) => plugin.name === 'agentctl-pack-hello')).to.include({ source: 'npm' });
  });

  it('globally with a prefix: the installed agentctl runs a project\'s workflow with the pack the project installed', async () => {
    const prefix = join(base, 'global');
    // A global install has no project package.json to approve scripts in: the flags say the same.
    await npm(['install', '--global', '--prefix', prefix, '@agentctl/cli'], base);
    const agentctl = join(prefix, 'bin', 'agentctl');
    expect((await run(agentctl, ['--version'], base)).stdout.trim()).to.equal('0.1.0');
    // The global install finds the scaffold's templates in its own package.
    const scaffold = outcome(await run(agentctl, ['packs', 'new', 'greeter', '--dir', join(base, 'global-scaffold'), '--output', 'json'], base), 0);
    expect(scaffold.data.files).to.include.members(['package.json', 'src/index.ts', 'test/echo.test.ts']);
    expect(readdirSync(join(base, 'global-scaffold', 'src'))).to.deep.equal(['index.ts']);
    const dir = project('global-project');
    await npm(['install', '@agentctl/pack-hello'], dir);
    expectGreeting(await run(agentctl, ['run', 'greet.yaml', '--input', 'who=Grace', '--output', 'json'], dir), 'Grace');
  });

  it('through npx: npx --package @agentctl/cli agentctl runs the workflow, the CLI not installed in the project', async () => {
    const dir = project('npx-project');
    await npm(['install', '@agentctl/pack-hello'], dir);
    // The packages are packed anew under the same version on every run, and npx reuses the tree it installed for the
    // same spec before: drop that tree, or an SDK of an earlier build stays beside this build's CLI.
    const npxCache = join((await run('npm', ['config', 'get', 'cache'], dir)).stdout.trim(), '_npx');
    for (const entry of existsSync(npxCache) ? readdirSync(npxCache) : []) {
      if (existsSync(join(npxCache, entry, 'node_modules', '@agentctl', 'cli'))) rmSync(join(npxCache, entry), { recursive: true, force: true });
    }
    const result = await run('npx', ['--yes', ...npmFlags(registry!.url), '--package', '@agentctl/cli', 'agentctl', 'run', 'greet.yaml', '--input', 'who=Linus', '--output', 'json'], dir);
    expectGreeting(result, 'Linus');
    expect(existsSync(join(dir, 'node_modules', '@agentctl', 'cli'))).to.equal(false);
  });
});
