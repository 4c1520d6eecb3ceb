// Isolation modes own their options, and processes carry mounts: through the real CLI, with a pack from the project
// config (test/fixtures/packs/sandboxed) that registers a mode `sandboxed` with a `sandboxed:` block of its own, which
// builtin.shell.exec uses unchanged, and a process kind `sandboxed.mounted` that takes mounts.
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { baseEnv, runCli } from '../support/cli.js';
import { forEachEngine } from '../support/engines.js';
import { diagnosticWithCode, errorDocument, outcome, rows, workflow } from './helpers.js';
import { packProject, writeConfig, type Project } from './pack-project.js';

const allow = { processAllowlist: ['sh'], approval: 'never' };
const shell = (fields: Record<string, unknown>) => ({ kind: 'builtin.shell.exec', command: '/bin/sh', args: ['-c', 'echo "$SANDBOX_LABEL/$SANDBOX_RETRIES"'], ...fields });
const oneTask = (action: Record<string, unknown>, policy: Record<string, unknown> = allow) =>
  workflow({ policy, actions: { cmd: action }, tasks: [{ id: 'cmd', uses: 'action:cmd' }], outputs: { out: '${{ tasks.cmd.output.stdout }}' } });

function sandboxedProject(): Project {
  const project = packProject(['sandboxed']);
  writeConfig(project, { packs: ['./packs/sandboxed'] });
  return project;
}

describe('a third-party isolation mode with its own options block', () => {
  let project: Project;
  beforeEach(() => (project = sandboxedProject()));
  afterEach(() => project.cleanup());
  const cli = (args: string[]) => runCli(args, { cwd: project.dir });

  it('builtin.shell.exec runs under it: the block reaches the mode parsed, defaults applied, and the effect records where it ran', () => {
    project.write('wf.yaml', oneTask(shell({ isolation: 'sandboxed', sandboxed: { label: 'blue' } })));
    const document = outcome(cli(['run', 'wf.yaml', '--db', project.db, '--output', 'json']), 0);
    expect(document.data.state).to.equal('succeeded');
    expect(document.data.output).to.deep.equal({ out: 'blue/2\n' });
    const [effect] = rows(project.db, 'SELECT input_json FROM effects').map((row) => JSON.parse(row.input_json));
    expect(effect).to.deep.include({ isolation: 'sandboxed', sandboxed: { label: 'blue', retries: 2 } });
    const plan = outcome(cli(['plan', 'wf.yaml', '--output', 'json']), 0);
    expect(plan.data.processes[0]).to.deep.include({ isolation: 'sandboxed', options: { label: 'blue', retries: 2 } });
  });

  const refused = (title: string, action: Record<string, unknown>, code: string, path: string, message: RegExp) =>
    it(`refuses ${title} at the mode's schema path (${code}, exit 2, no database)`, () => {
      project.write('wf.yaml', oneTask(shell(action)));
      const found = diagnosticWithCode(errorDocument(cli(['run', 'wf.yaml', '--db', project.db, '--output', 'json']), 2), code);
      expect(found.path).to.equal(path);
      expect(found.message).to.match(message);
      expect(existsSync(project.db)).to.equal(false);
    });

  refused('an unknown field in its block', { isolation: 'sandboxed', sandboxed: { label: 'x', colour: 'red' } }, 'AGENTCTL_E_UNKNOWN_FIELD', 'spec.actions.cmd.sandboxed.colour', /unknown field "colour"/);
  refused('a wrong value in its block', { isolation: 'sandboxed', sandboxed: { label: 'x', retries: -1 } }, 'AGENTCTL_E_SCHEMA', 'spec.actions.cmd.sandboxed.retries', />=0/);
  refused('the mode without its required block', { isolation: 'sandboxed' }, 'AGENTCTL_E_SCHEMA', 'spec.actions.cmd.sandboxed', /missing required field "sandboxed"/);
  refused('its block under another mode', { sandboxed: { label: 'x' } }, 'AGENTCTL_E_SCHEMA', 'spec.actions.cmd.sandboxed', /a sandboxed block applies only with isolation: sandboxed \(this action uses isolation: process\)/);
});

describe('mounts of a process', () => {
  let project: Project;
  let root: string;
  beforeEach(() => {
    project = sandboxedProject();
    root = realpathSync(project.dir);
    mkdirSync(project.file('data'));
    writeFileSync(project.file('data/note.txt'), 'hello from the workspace\n');
  });
  afterEach(() => project.cleanup());
  const cli = (args: string[], env?: NodeJS.ProcessEnv) => runCli(args, { cwd: project.dir, ...(env ? { env } : {}) });
  const mountedAction = (mounts: unknown[], fields: Record<string, unknown> = {}) => ({ kind: 'sandboxed.mounted', command: '/bin/sh', args: ['-c', 'cat note.txt'], mounts, ...fields });

  it('plan shows them, workspace sources as written, in JSON and in text', () => {
    project.write('wf.yaml', oneTask(mountedAction([{ source: { workspace: 'data' }, target: '/data' }])));
    const plan = outcome(cli(['plan', 'wf.yaml', '--output', 'json']), 0);
    expect(plan.data.processes[0].mounts).to.deep.equal([{ source: { workspace: 'data' }, target: '/data', readOnly: true }]);
    expect(cli(['plan', 'wf.yaml']).stdout).to.include('\n  mount workspace data at /data (read-only)\n');
  });

  it('policy judges a read-only source as a read: check refuses a path that escapes the workspace (exit 3)', () => {
    project.write('wf.yaml', oneTask(mountedAction([{ source: { workspace: '../outside' }, target: '/data' }])));
    const found = diagnosticWithCode(errorDocument(cli(['check', 'wf.yaml', '--output', 'json']), 3), 'AGENTCTL_E_POLICY_PATH_ESCAPE');
    expect(found.message).to.match(/read path "\.\.\/outside" contains a "\.\." component/);
  });

  it('policy judges a writable source as a write: outside writableRoots check refuses it (exit 3) and run refuses the effect before the process starts', () => {
    const action = mountedAction([{ source: { workspace: 'data' }, target: `${root}/data`, readOnly: false }], { args: ['-c', 'touch marker'] });
    project.write('wf.yaml', oneTask(action));
    diagnosticWithCode(errorDocument(cli(['check', 'wf.yaml', '--output', 'json']), 3), 'AGENTCTL_E_POLICY_NOT_WRITABLE');
    const found = diagnosticWithCode(errorDocument(cli(['run', 'wf.yaml', '--db', project.db, '--output', 'json']), 4), 'AGENTCTL_E_POLICY_NOT_WRITABLE');
    expect(found.message).to.equal('write path "data" is not below a writable root');
    expect(existsSync(project.file('marker'))).to.equal(false);
  });

  it('process isolation refuses at prepare a mount it cannot honour (read-only): AGENTCTL_E_MOUNT_UNSUPPORTED, no effect recorded', () => {
    project.write('wf.yaml', oneTask(mountedAction([{ source: { workspace: 'data' }, target: '/data' }], { cwd: 'data' })));
    const found = diagnosticWithCode(errorDocument(cli(['run', 'wf.yaml', '--db', project.db, '--output', 'json']), 4), 'AGENTCTL_E_MOUNT_UNSUPPORTED');
    expect(found.message).to.equal(`isolation process cannot mount workspace path ${root}/data at /data read-only: a child process has agentctl's authority: nothing can be made read-only for it (use container isolation)`);
    expect(rows(project.db, 'SELECT state FROM effects')).to.deep.equal([]);
  });

  it('process isolation honours a writable mount at the source\'s own path, and the effect records it as written', () => {
    const action = mountedAction([{ source: { workspace: 'data' }, target: `${root}/data`, readOnly: false }], { args: ['-c', `cat ${root}/data/note.txt`] });
    project.write('wf.yaml', oneTask(action, { ...allow, writableRoots: ['data'] }));
    const document = outcome(cli(['run', 'wf.yaml', '--db', project.db, '--output', 'json']), 0);
    expect(document.data.output).to.deep.equal({ out: 'hello from the workspace\n' });
    const [effect] = rows(project.db, 'SELECT input_json FROM effects').map((row) => JSON.parse(row.input_json));
    expect(effect.mounts).to.deep.equal([{ source: { workspace: 'data' }, target: `${root}/data`, readOnly: false }]);
  });

  it('a mode that says nothing about mounts takes none', () => {
    project.write('wf.yaml', oneTask(mountedAction([{ source: { workspace: 'data' }, target: '/data' }], { isolation: 'sandboxed', sandboxed: { label: 'x' } })));
    const found = diagnosticWithCode(errorDocument(cli(['run', 'wf.yaml', '--db', project.db, '--output', 'json']), 4), 'AGENTCTL_E_MOUNT_UNSUPPORTED');
    expect(found.message).to.equal('isolation sandboxed cannot mount workspace path ' + `${root}/data at /data read-only: it takes no mounts`);
  });

  forEachEngine('container isolation binds a read-only workspace mount', (engine) => {
    it('the file is there to read, and cannot be written', function () {
      this.timeout(60_000);
      const script = 'cat /data/note.txt && if touch /data/new 2>/dev/null; then echo writable; else echo read-only; fi';
      const container = { image: engine.images.busybox, runtime: engine.name };
      project.write('wf.yaml', oneTask(mountedAction([{ source: { workspace: 'data' }, target: '/data' }], { command: 'sh', args: ['-c', script], isolation: 'container', container, timeoutSeconds: 30 })));
      const env = baseEnv({ [engine.name === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST']: `unix://${engine.socket}` });
      const document = outcome(cli(['run', 'wf.yaml', '--db', project.db, '--output', 'json'], env), 0);
      expect(document.data.output).to.deep.equal({ out: 'hello from the workspace\nread-only\n' });
    });
  });
});
