// Packs load wherever agentctl runs: the CLI is packed (`npm pack`) and installed globally into a temporary prefix, as
// `npm install -g` does, and every pack below sits in a folder with no agentctl in any node_modules above it. The pack
// gets the SDK of the agentctl that loads it, by today's name (`@agentctl/sdk`) or the older one (`agentctl/sdk`), and
// that SDK is the host's even when a copy is installed beside the pack.
//
// The install is real and done once for the file: `npm install -g @agentctl/cli` from a loopback registry that
// publishes the packed tarballs, everything else from npm's cache first, and better-sqlite3's binding from a local
// prebuild of the one this checkout built (test/support/packages.ts). Minutes of npm: `npm run test:install` runs it.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { temporaryFolder } from '../../core/testing/fixtures.js';
import { errorDocument, outcome, workflow } from '../cases/helpers.js';
import { baseEnv, ROOT, type CliResult } from '../support/cli.js';
import { localPrebuilds, npmFlags, packTarballs, run } from '../support/packages.js';
import { startRegistry } from '../support/registry.js';

const HELLO_WORKFLOW = workflow({
  actions: { greet: { kind: 'hello.greet' } },
  tasks: [{ id: 'greet', uses: 'action:greet', with: { name: 'world' } }],
  outputs: { greeting: '${{ tasks.greet.output.greeting }}' },
});

/** The specifiers a pack may import the SDK by, paired today's name with the older one. */
const SPECIFIERS = [
  ['@agentctl/sdk', 'agentctl/sdk'],
  ['@agentctl/sdk/documents', 'agentctl/sdk/documents'],
  ['@agentctl/sdk/process', 'agentctl/sdk/process'],
  ['@agentctl/testing', 'agentctl/sdk/testing'],
] as const;

function sh(command: string, args: readonly string[], cwd: string, timeout: number): CliResult {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: baseEnv(), timeout, maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, signal: result.signal, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** A folder's ancestors hold no node_modules with agentctl in it: what the packs below must do without. */
function noAgentctlAbove(folder: string): void {
  for (let dir = folder; dirname(dir) !== dir; dir = dirname(dir)) {
    for (const name of ['agentctl', '@agentctl']) expect(existsSync(join(dir, 'node_modules', name)), join(dir, 'node_modules', name)).to.equal(false);
  }
}

describe('packs load wherever agentctl runs (the CLI installed globally from its packed tarball)', function () {
  this.timeout(60_000);
  let base = '';
  let prefix = '';
  const cli = (args: readonly string[], cwd: string) => sh(process.execPath, [join(prefix, 'bin', 'agentctl'), ...args], cwd, 60_000);
  /** A new folder with nothing above it but the temporary folder. */
  const folder = (name: string) => {
    const path = join(base, name);
    mkdirSync(path, { recursive: true });
    return path;
  };

  before(async function () {
    this.timeout(30 * 60_000);
    base = realpathSync(temporaryFolder('agentctl-anywhere-'));
    prefix = join(base, 'global');
    const env = { ...baseEnv(), npm_config_update_notifier: 'false', ...(await localPrebuilds(join(base, 'prebuilds'))) };
    // dist/ is built before the tests run; --ignore-scripts keeps npm pack from building it again.
    const tarballs = await packTarballs(join(base, 'tarballs'), env);
    const registry = await startRegistry([...tarballs.values()]);
    try {
      const installed = await run('npm', ['install', '--global', '--prefix', prefix, '@agentctl/cli', ...npmFlags(registry.url)], base, env, 25 * 60_000);
      expect(installed.status, installed.stderr).to.equal(0);
    } finally {
      await registry.close();
    }
    expect(cli(['--version'], base).status).to.equal(0);
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('runs a folder made by packs vendor from packs/hello, copied alone elsewhere, with --locked --offline', () => {
    const project = folder('project');
    cpSync(join(ROOT, 'packs', 'hello'), join(project, 'hello'), { recursive: true, filter: (path) => !path.includes('node_modules') && !path.includes(`${join('hello', 'test')}`) });
    writeFileSync(join(project, 'agentctl.config.json'), `${JSON.stringify({ packs: [{ path: './hello' }] })}\n`);
    writeFileSync(join(project, 'wf.yaml'), HELLO_WORKFLOW);
    const vendored = outcome(cli(['packs', 'vendor', '--out', 'ci', 'wf.yaml', '--output', 'json'], project), 0);
    expect(vendored.data.codePacks.map((pack: { name: string; file: string }) => [pack.name, pack.file])).to.deep.equal([['agentctl-pack-hello', 'packs/agentctl-pack-hello.mjs']]);
    // The SDK stays an import of the bundle, by the name the pack wrote.
    expect(readFileSync(join(project, 'ci', 'packs', 'agentctl-pack-hello.mjs'), 'utf8')).to.contain('from "@agentctl/sdk";');

    const alone = folder('alone');
    cpSync(join(project, 'ci'), join(alone, 'ci'), { recursive: true });
    noAgentctlAbove(join(alone, 'ci'));
    const run = outcome(cli(['run', 'ci/wf.yaml', '--locked', '--offline', '--db', join(alone, 'state', 'runtime.db'), '--output', 'json'], alone), 0);
    expect(run.data.state).to.equal('succeeded');
    expect(run.data.output).to.deep.equal({ greeting: 'Hello, world!' });
  });

  it('runs a local code pack written against agentctl/sdk from a folder with no node_modules; every SDK name is the host module', () => {
    const project = folder('local');
    writeFileSync(join(project, 'agentctl.config.json'), `${JSON.stringify({ packs: [{ path: './my-pack' }] })}\n`);
    writeFileSync(join(project, 'wf.yaml'), workflow({
      actions: { where: { kind: 'local-pack.where' } },
      tasks: [{ id: 'where', uses: 'action:where' }],
      outputs: { where: '${{ tasks.where.output }}' },
    }));
    mkdirSync(join(project, 'my-pack'));
    writeFileSync(join(project, 'my-pack', 'package.json'), '{"name": "local-pack", "version": "1.0.0", "type": "module", "exports": "./index.mjs"}\n');
    writeFileSync(join(project, 'my-pack', 'index.mjs'), [
      "import { definePlugin, z } from 'agentctl/sdk';",
      "import * as today from '@agentctl/sdk';",
      "import * as older from 'agentctl/sdk';",
      `const specifiers = ${JSON.stringify(SPECIFIERS.flat())};`,
      'export default definePlugin({',
      "  name: 'local-pack', version: '1.0.0', hostRange: '>=0.1.0',",
      '  setup(api) {',
      '    api.registerActionKind({',
      "      name: 'local-pack.where', description: 'Where each SDK name resolves.',",
      '      actionSchema: z.strictObject({}), inputSchema: z.strictObject({}),',
      "      effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },",
      '      async dispatch() {',
      '        const resolved = Object.fromEntries(specifiers.map((specifier) => [specifier, import.meta.resolve(specifier)]));',
      '        return { resolved, sameErrorClass: today.AgentctlError === older.AgentctlError };',
      '      },',
      '    });',
      '  },',
      '});',
      '',
    ].join('\n'));
    noAgentctlAbove(join(project, 'my-pack'));
    const run = outcome(cli(['run', 'wf.yaml', '--db', join(project, 'state', 'runtime.db'), '--output', 'json'], project), 0);
    const { resolved, sameErrorClass } = run.data.output.where;
    expect(sameErrorClass).to.equal(true);
    const installed = pathToFileURL(realpathSync(prefix)).href;
    const urls = SPECIFIERS.map(([today, older]) => {
      expect(resolved[older], older).to.equal(resolved[today]);
      expect(resolved[today], today).to.match(/\.js$/).and.satisfy((url: string) => url.startsWith(`${installed}/`));
      return resolved[today];
    });
    expect(new Set(urls).size).to.equal(SPECIFIERS.length);
  });

  it("gives the host's SDK to a pack whose own node_modules holds a different SDK copy: its error keeps its code", () => {
    const project = folder('duplicate');
    const pack = join(project, 'my-pack');
    // The copy: the installed SDK's files with another error brand and a marker, under both names, beside the pack.
    const sdk = dirname(resolvedSdk(prefix));
    const copy = (target: string, manifest: unknown, sdkFolder: string) => {
      cpSync(sdk, join(target, sdkFolder), { recursive: true });
      writeFileSync(join(target, 'package.json'), `${JSON.stringify(manifest)}\n`);
      const errors = join(target, sdkFolder, 'errors.js');
      writeFileSync(errors, readFileSync(errors, 'utf8').replaceAll("Symbol.for('agentctl.error')", "Symbol.for('agentctl.error.copy')"));
      writeFileSync(join(target, sdkFolder, 'index.js'), `${readFileSync(join(target, sdkFolder, 'index.js'), 'utf8')}\nexport const SDK_COPY = 'beside the pack';\n`);
    };
    copy(join(pack, 'node_modules', '@agentctl', 'sdk'), { name: '@agentctl/sdk', version: '0.1.0', type: 'module', exports: { '.': './dist/index.js' } }, 'dist');
    copy(join(pack, 'node_modules', 'agentctl'), { name: 'agentctl', version: '0.1.0', type: 'module', exports: { './sdk': './dist/sdk/index.js' } }, join('dist', 'sdk'));
    symlinkSync(realpathSync(join(ROOT, 'node_modules', 'zod')), join(pack, 'node_modules', 'zod'));
    writeFileSync(join(pack, 'package.json'), '{"name": "dup-pack", "version": "1.0.0", "type": "module", "exports": "./index.mjs", "peerDependencies": {"@agentctl/sdk": "*"}}\n');
    writeFileSync(join(pack, 'index.mjs'), [
      "import { AgentctlError, defineActionKind, z } from '@agentctl/sdk';",
      "import * as older from 'agentctl/sdk';",
      'export default defineActionKind({',
      "  plugin: 'dup-pack', version: '1.0.0', hostRange: '>=0.1.0', name: 'dup-pack.check', description: 'Which SDK it got.',",
      "  errorCodes: { DUP_PACK_E_REFUSED: { exitCode: 4, description: 'Asked to refuse.' } },",
      '  actionSchema: z.strictObject({}), inputSchema: z.strictObject({ refuse: z.boolean() }),',
      "  effect: { effectClass: 'pure', risk: 'low', idempotency: 'pure' },",
      '  async dispatch({ input }) {',
      "    if (input.refuse) throw new AgentctlError('DUP_PACK_E_REFUSED', 'refused as asked', { help: 'ask it not to' });",
      "    const copies = [(await import('@agentctl/sdk')).SDK_COPY, older.SDK_COPY].map((marker) => marker ?? 'the host');",
      '    return { copies, sameErrorClass: older.AgentctlError === AgentctlError };',
      '  },',
      '});',
      '',
    ].join('\n'));
    writeFileSync(join(project, 'agentctl.config.json'), `${JSON.stringify({ packs: [{ path: './my-pack' }] })}\n`);
    const flow = (refuse: boolean) => workflow({
      actions: { check: { kind: 'dup-pack.check' } },
      tasks: [{ id: 'check', uses: 'action:check', with: { refuse } }],
      outputs: { check: '${{ tasks.check.output }}' },
    });
    writeFileSync(join(project, 'wf.yaml'), flow(false));
    writeFileSync(join(project, 'refuse.yaml'), flow(true));
    const db = join(project, 'state', 'runtime.db');

    const run = outcome(cli(['run', 'wf.yaml', '--db', db, '--output', 'json'], project), 0);
    expect(run.data.output.check).to.deep.equal({ copies: ['the host', 'the host'], sameErrorClass: true });
    const refused = errorDocument(cli(['run', 'refuse.yaml', '--db', db, '--output', 'json'], project), 4);
    expect(refused.diagnostics.map((item: { code: string; plugin?: string; taskId?: string }) => [item.code, item.plugin, item.taskId])).to.deep.equal([['DUP_PACK_E_REFUSED', 'dup-pack', 'check']]);
    expect(refused.error.message).to.equal('task check failed: refused as asked');
  });
});

/** The SDK module of the agentctl installed under `prefix`, as Node resolves it from the installed CLI. */
function resolvedSdk(prefix: string): string {
  return createRequire(realpathSync(join(prefix, 'bin', 'agentctl'))).resolve('@agentctl/sdk');
}
