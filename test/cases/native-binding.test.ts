// better-sqlite3's native binding missing or built for another Node: the CLI installed from its packed tarball, the
// way a user installs it, says so (AGENTCTL_E_SQLITE_BINDING, exit 5) with the fix, instead of "check --db".
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sqliteBindingError } from '../../core/store/sqlite-binding.js';
import { baseEnv, ROOT, type CliResult } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, shellWorkflow } from './helpers.js';

const BINDING = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');

function npm(args: string[], cwd: string): string {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', env: process.env, timeout: 300_000 });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${result.status}): ${result.stdout}${result.stderr}`);
  return result.stdout;
}

/**
 * A fresh folder with the CLI installed from its packed tarball, with the tarballs of the SDK and the shipped pack it depends on (as the
 * registry would give it), install scripts skipped (so no binding is built); other packages from npm's cache first.
 */
function installWithoutScripts(tarballs: readonly string[]): string {
  const folder = mkdtempSync(join(tmpdir(), 'agentctl-installed-'));
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'project', private: true }));
  npm(['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], folder);
  return folder;
}

describe('native binding: the CLI installed without better-sqlite3\'s install script', function () {
  let packed: string;
  let project: string;

  before(function () {
    this.timeout(600_000);
    packed = mkdtempSync(join(tmpdir(), 'agentctl-packed-'));
    // dist/ is built by `npm test` already; the tarball is what `npm publish` would upload.
    const tarballs = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', packed, '--workspace', 'sdk', '--workspace', 'packs/otel', '--include-workspace-root'], ROOT)) as { filename: string }[];
    expect(tarballs.map((tarball) => tarball.filename).sort()).to.deep.equal(['agentctl-cli-0.1.0.tgz', 'agentctl-pack-otel-0.1.0.tgz', 'agentctl-sdk-0.1.0.tgz']);
    project = installWithoutScripts(tarballs.map((tarball) => join(packed, tarball.filename)));
  });

  after(() => {
    for (const folder of [packed, project]) if (folder) rmSync(folder, { recursive: true, force: true });
  });

  /** The installed agentctl (its bin link), run by `node` in the project folder. */
  function installed(args: string[], node = process.execPath): CliResult {
    const result = spawnSync(node, [join(project, 'node_modules', '.bin', 'agentctl'), ...args], { cwd: project, env: baseEnv(), encoding: 'utf8', timeout: 60_000 });
    return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
  }

  const workflowFile = () => {
    const file = join(project, 'wf.yaml');
    writeFileSync(file, shellWorkflow({ command: 'true' }, { processAllowlist: ['true'], approval: 'never' }));
    return file;
  };

  it('a run exits 5 with AGENTCTL_E_SQLITE_BINDING naming the missing file and where to rebuild it, and creates nothing', () => {
    expect(existsSync(join(project, BINDING)), 'the install built no binding').to.equal(false);
    const document = errorDocument(installed(['run', workflowFile(), '--db', join(project, 'state', 'runtime.db'), '--output', 'json']), 5);
    const diagnostic = diagnosticWithCode(document, 'AGENTCTL_E_SQLITE_BINDING');
    expect(document.diagnostics).to.have.length(1);
    expect(diagnostic.message).to.equal(
      `better-sqlite3's native binding is missing: ${join(project, BINDING)} does not exist (nor 12 other places it was looked for), so agentctl cannot open its SQLite database`,
    );
    expect(diagnostic.help).to.include(`run \`npm rebuild better-sqlite3\` in ${project} with the Node that runs agentctl`);
    expect(diagnostic.help).to.include('--ignore-scripts');
    expect(diagnostic.help).to.include('npm approve-scripts better-sqlite3');
    expect(existsSync(join(project, 'state')), 'no database folder').to.equal(false);
  });

  it('the human diagnostic names the code and the fix on stderr', () => {
    const result = installed(['run', workflowFile(), '--db', join(project, 'state', 'runtime.db')]);
    expect(result.status).to.equal(5);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.include(`error: better-sqlite3's native binding is missing: ${join(project, BINDING)} does not exist`);
    expect(result.stderr).to.include('AGENTCTL_E_SQLITE_BINDING');
    expect(result.stderr).to.include(`npm rebuild better-sqlite3\` in ${project}`);
  });

  it('--version, check, plan and schema work without the binding', () => {
    expect(installed(['--version'])).to.include({ status: 0, stdout: `${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n` });
    expect(outcome(installed(['check', workflowFile(), '--output', 'json']), 0).kind).to.equal('CheckResult');
    expect(outcome(installed(['plan', workflowFile(), '--output', 'json']), 0).data.order).to.deep.equal(['cmd']);
    expect(outcome(installed(['schema', '--output', 'json']), 0).kind).to.equal('WorkflowSchema');
  });

  it('a binding built for another Node ABI is named with both ABIs, and the same fix', function () {
    this.timeout(300_000);
    // The current LTS Node (cached by `npm run test:lts`, fetched from the registry otherwise) against this Node's binding.
    const lts = spawnSync(process.execPath, [join(ROOT, 'scripts', 'node-lts.mjs'), 'node'], { encoding: 'utf8', timeout: 240_000 });
    expect(lts.status, lts.stderr).to.equal(0);
    const node = lts.stdout.trim();
    const [version, abi] = spawnSync(node, ['-p', 'process.version + " " + process.versions.modules'], { encoding: 'utf8' }).stdout.trim().split(' ');
    expect(abi).to.not.equal(process.versions.modules);
    mkdirSync(join(project, BINDING, '..'), { recursive: true });
    copyFileSync(join(ROOT, BINDING), join(project, BINDING));
    try {
      const document = errorDocument(installed(['run', workflowFile(), '--db', join(project, 'state', 'runtime.db'), '--output', 'json'], node), 5);
      const diagnostic = diagnosticWithCode(document, 'AGENTCTL_E_SQLITE_BINDING');
      expect(diagnostic.message).to.equal(
        `better-sqlite3's native binding ${join(project, BINDING)} was built for Node ABI ${process.versions.modules} (NODE_MODULE_VERSION); this Node ${version} is ABI ${abi}`,
      );
      expect(diagnostic.help).to.include(`it was installed with another Node: run \`npm rebuild better-sqlite3\` in ${project} with the Node that runs agentctl`);
      expect(existsSync(join(project, 'state')), 'no database folder').to.equal(false);
    } finally {
      rmSync(join(project, 'node_modules', 'better-sqlite3', 'build'), { recursive: true, force: true });
    }
  });

  it('with the binding the message names in place, the same run succeeds', () => {
    mkdirSync(join(project, BINDING, '..'), { recursive: true });
    copyFileSync(join(ROOT, BINDING), join(project, BINDING));
    try {
      const document = outcome(installed(['run', workflowFile(), '--db', join(project, 'state', 'runtime.db'), '--output', 'json']), 0);
      expect(document.data.state).to.equal('succeeded');
      expect(document.data.tasks).to.deep.equal({ cmd: 'succeeded' });
      expect(readdirSync(join(project, 'state'))).to.include('runtime.db');
    } finally {
      rmSync(join(project, 'node_modules', 'better-sqlite3', 'build'), { recursive: true, force: true });
      rmSync(join(project, 'state'), { recursive: true, force: true });
    }
  });
});

// What Node and the `bindings` package say, captured from real loads (Node 20.20.2 loading a binding node-gyp built for
// Node 24.22.3, and a truncated binding): the classifier turns each into the binding error, and nothing else.
describe('native binding: the classifier', () => {
  const dlopen = (message: string) => Object.assign(new Error(message), { code: 'ERR_DLOPEN_FAILED' });

  it('reads both ABI numbers from Node\'s NODE_MODULE_VERSION message', () => {
    const error = sqliteBindingError(dlopen(
      "The module '/srv/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 137. This version of Node.js requires\nNODE_MODULE_VERSION 115. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
    ));
    expect(error?.code).to.equal('AGENTCTL_E_SQLITE_BINDING');
    expect(error?.exitCode).to.equal(5);
    expect(error?.message).to.equal(
      `better-sqlite3's native binding /srv/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node was built for Node ABI 137 (NODE_MODULE_VERSION); this Node ${process.version} is ABI 115`,
    );
    expect(error?.diagnostics[0]?.help).to.include('run `npm rebuild better-sqlite3` in /srv/app with the Node that runs agentctl');
  });

  it('names a damaged binding with the loader\'s reason', () => {
    const error = sqliteBindingError(dlopen('/srv/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node: file too short'));
    expect(error?.message).to.equal(
      "better-sqlite3's native binding /srv/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node cannot be loaded: /srv/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node: file too short",
    );
    expect(error?.diagnostics[0]?.help).to.include('in /srv/app with');
  });

  it('leaves every other error alone', () => {
    expect(sqliteBindingError(Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' }))).to.equal(undefined);
    expect(sqliteBindingError(dlopen('/srv/app/node_modules/other/build/Release/other.node: file too short'))).to.equal(undefined);
    expect(sqliteBindingError(Object.assign(new Error('Could not locate the bindings file. Tried:\n → /x/other.node'), { tries: ['/x/other.node'] }))).to.equal(undefined);
    expect(sqliteBindingError('a string')).to.equal(undefined);
  });
});
