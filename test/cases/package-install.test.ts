// The acceptance check of packs: a fresh project with agentctl installed, a local pack listed in agentctl.config.mjs,
// and a workflow using the pack's action kind run through `npx agentctl run`.
//
// The real installs of the packed packages (project dependency, global, npx) take minutes of npm: they are
// test/install/npm-packages.test.ts, run by `npm run test:install`. This runs the same project with the checkout linked as
// node_modules/@agentctl/cli, which is what npm's install leaves for the CLI to find (the package and
// node_modules/.bin/agentctl).
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { baseEnv, ROOT, workspace } from '../support/cli.js';
import { outcome } from './helpers.js';
import { ECHO_WORKFLOW, FIXTURE_PACKS, writeConfig, type Project } from './pack-project.js';

function sh(command: string, args: string[], options: SpawnSyncOptions & { cwd: string }) {
  const result = spawnSync(command, args, { encoding: 'utf8', env: baseEnv(), timeout: 60_000, ...options });
  return { status: result.status, signal: result.signal, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** A fresh npm project (npm init -y) with the echo pack under packs/ and a config that lists it with options. */
function freshProject(): Project {
  const project = workspace();
  expect(sh('npm', ['init', '-y'], { cwd: project.dir }).status).to.equal(0);
  cpSync(join(FIXTURE_PACKS, 'echo'), project.file('packs/echo'), { recursive: true });
  writeConfig(project, { packs: [{ path: './packs/echo', options: { prefix: 'installed' } }] });
  project.write('wf.yaml', ECHO_WORKFLOW);
  return project;
}

/** `npx agentctl run wf.yaml` in the project succeeds with the pack's output, in the default ledger of the project. */
function runThroughNpx(project: Project): void {
  const result = sh('npx', ['agentctl', 'run', 'wf.yaml', '--output', 'json'], { cwd: project.dir });
  const document = outcome(result, 0);
  expect(document.data).to.include({ state: 'succeeded' });
  expect(document.data.output).to.deep.equal({ said: 'installed world' });
  expect(existsSync(project.file('.agentctl/runtime.db'))).to.equal(true);
}

describe('a project that installs agentctl and lists a local pack', () => {
  let project: Project | undefined;
  afterEach(() => project?.cleanup());

  it('runs the pack\'s action kind through npx agentctl (agentctl linked into node_modules)', function () {
    this.timeout(60_000);
    project = freshProject();
    mkdirSync(project.file('node_modules/.bin'), { recursive: true });
    mkdirSync(project.file('node_modules/@agentctl'));
    symlinkSync(ROOT, project.file('node_modules/@agentctl/cli'));
    symlinkSync('../@agentctl/cli/bin/agentctl.js', project.file('node_modules/.bin/agentctl'));
    // npm hoists agentctl's dependencies next to it; the pack's peer dependency zod resolves there.
    symlinkSync(realpathSync(join(ROOT, 'node_modules', 'zod')), project.file('node_modules/zod'));
    runThroughNpx(project);
  });
});
