// The isolation fields of a process action as the compiler and `plan` see them, and `doctor`: the checks a run makes
// before it records anything, made without running. Engines are not needed here: each bad block is refused before
// anything contacts one.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync } from 'node:fs';
import { BIN, baseEnv, runCli, workspace } from '../support/cli.js';
import { diagnosticWithCode, errorDocument, outcome, runCount, shellWorkflow } from './helpers.js';
import { forEachEngine } from '../support/engines.js';

const IMAGE = `sha256:${'0123456789abcdef'.repeat(4)}`;
const allow = { processAllowlist: ['sh', 'echo'] };

const containerAction = (container: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ command: '/bin/sh', args: ['-c', 'id -u'], isolation: 'container', container, ...extra });

describe('isolation fields of a process action', () => {
  const ws = workspace();
  after(() => ws.cleanup());

  const refused = (title: string, action: Record<string, unknown>, path: string, message: RegExp) =>
    it(`refuses ${title} at compile time (exit 2, nothing written)`, () => {
      const file = ws.write('wf.yaml', shellWorkflow(action, allow));
      const document = errorDocument(runCli(['check', file, '--output', 'json']), 2);
      const found = diagnosticWithCode(document, 'AGENTCTL_E_SCHEMA');
      expect(found.path).to.equal(path);
      expect(found.message).to.match(message);
      errorDocument(runCli(['run', file, '--db', ws.db, '--output', 'json']), 2);
      expect(existsSync(ws.db)).to.equal(false);
    });

  refused('a tag-only image', containerAction({ image: 'busybox:latest' }), 'spec.actions.cmd.container.image', /pinned by digest/);
  refused('a digest that is not 64 hex digits', containerAction({ image: 'busybox@sha256:abc' }), 'spec.actions.cmd.container.image', /pinned by digest/);
  refused('a container block without isolation: container', { command: 'echo', container: { image: IMAGE } }, 'spec.actions.cmd.container', /only with isolation: container/);
  refused('isolation: container without a container block', { command: 'echo', isolation: 'container' }, 'spec.actions.cmd.container', /missing required field "container"/);
  refused('a memory limit under 16 MiB', containerAction({ image: IMAGE, memoryLimitBytes: 1024 }), 'spec.actions.cmd.container.memoryLimitBytes', /16777216/);
  refused('a memory limit over 16 GiB', containerAction({ image: IMAGE, memoryLimitBytes: 17 * 1024 ** 3 }), 'spec.actions.cmd.container.memoryLimitBytes', /17179869184/);
  refused('a CPU limit of 0', containerAction({ image: IMAGE, cpuLimitMillis: 0 }), 'spec.actions.cmd.container.cpuLimitMillis', />=1/);
  refused('a PID limit over 4096', containerAction({ image: IMAGE, pidsLimit: 5000 }), 'spec.actions.cmd.container.pidsLimit', /4096/);
  refused('an unknown runtime', containerAction({ image: IMAGE, runtime: 'lxc' }), 'spec.actions.cmd.container.runtime', /auto|docker|podman/);
  refused('an env name an engine sets (PATH)', containerAction({ image: IMAGE }, { env: { PATH: '/x' } }), 'spec.actions.cmd.env.PATH', /container engines' own variables/);
  refused('an env name an engine reads (DOCKER_HOST)', containerAction({ image: IMAGE }, { env: { DOCKER_HOST: 'tcp://x' } }), 'spec.actions.cmd.env.DOCKER_HOST', /container engines' own variables/);
  refused('an env name an engine reads (CONTAINER_HOST)', containerAction({ image: IMAGE }, { env: { CONTAINER_HOST: 'unix:///x' } }), 'spec.actions.cmd.env.CONTAINER_HOST', /container engines' own variables/);

  it('accepts HOME and PATH in env under process isolation: only engines own them', () => {
    const file = ws.write('ok.yaml', shellWorkflow({ command: 'echo', env: { HOME: '/h' } }, { ...allow, environmentAllowlist: ['HOME'] }));
    outcome(runCli(['check', file, '--output', 'json']), 0);
  });

  it('refuses an unknown field of the container block with its closest name', () => {
    const file = ws.write('wf.yaml', shellWorkflow(containerAction({ image: IMAGE, pidLimit: 8 }), allow));
    const found = diagnosticWithCode(errorDocument(runCli(['check', file, '--output', 'json']), 2), 'AGENTCTL_E_UNKNOWN_FIELD');
    expect(found.path).to.equal('spec.actions.cmd.container.pidLimit');
    expect(found.help).to.match(/pidsLimit/);
  });
});

describe('agentctl doctor', () => {
  const ws = workspace();
  after(() => ws.cleanup());

  it('reports ready (exit 0) for a workflow whose commands and secrets are there, and writes nothing', () => {
    const file = ws.write('ready.yaml', shellWorkflow({ command: 'echo', env: { TOKEN: { env: 'DOCTOR_TOKEN' } } }, { ...allow, environmentAllowlist: ['TOKEN'] }));
    const result = runCli(['doctor', file, '--output', 'json'], { env: { PATH: process.env.PATH, NO_COLOR: '1', DOCTOR_TOKEN: 'canary-doctor-4711' } });
    const document = outcome(result, 0);
    expect(document.kind).to.equal('DoctorResult');
    expect(document.ok).to.equal(true);
    expect(document.data.ready).to.equal(true);
    expect(document.data.processes).to.deep.equal([{ action: 'cmd', tasks: ['cmd'], isolation: 'process', command: 'echo', executable: document.data.processes[0].executable, placement: {} }]);
    expect(document.data.checks.map((item: any) => [item.check, item.status, item.available])).to.deep.equal([
      ['process:cmd:command', 'present', true],
      ['process:cmd:env:TOKEN', 'present', true],
    ]);
    expect(result.stdout + result.stderr).to.not.include('canary-doctor-4711');
    expect(existsSync(ws.db)).to.equal(false);
    expect(existsSync(ws.file('agentctl.db'))).to.equal(false);
  });

  it('reports every missing prerequisite (exit 6): a secret that is not set and a command that does not exist', () => {
    const file = ws.write('missing.yaml', shellWorkflow({ command: 'agentctl-no-such-tool', env: { TOKEN: { env: 'DOCTOR_ABSENT' } } }, { processAllowlist: ['agentctl-no-such-tool'], environmentAllowlist: ['TOKEN'] }));
    const document = outcome(runCli(['doctor', file, '--output', 'json']), 6);
    expect(document.ok).to.equal(true);
    expect(document.data.ready).to.equal(false);
    expect(document.diagnostics.map((item: { code: string }) => item.code).sort()).to.deep.equal(['AGENTCTL_E_COMMAND_NOT_FOUND', 'AGENTCTL_E_SECRET_MISSING']);
    const human = runCli(['doctor', file]);
    expect(human.status).to.equal(6);
    expect(human.stdout).to.match(/^not ready: /);
    expect(human.stdout).to.include('process:cmd:env:TOKEN: missing');
    expect(human.stdout).to.include('AGENTCTL_E_SECRET_MISSING');
    expect(human.stdout).to.include('AGENTCTL_E_COMMAND_NOT_FOUND');
  });

  it('says whether process mode ends every descendant here: as root, each process gets a cgroup of its own; as a user who cannot create one, that descendants can outlive their task', function () {
    // Both sides need root: one to be it, the other to become an unprivileged user (nobody) for the same check.
    if (process.getuid?.() !== 0) this.skip();
    chmodSync(ws.dir, 0o755);
    const file = ws.write('tree.yaml', shellWorkflow({ command: 'echo' }, allow));
    const asRoot = outcome(runCli(['doctor', file, '--output', 'json']), 0);
    expect(asRoot.data.isolation).to.have.length(1);
    expect(asRoot.data.isolation[0]).to.deep.include({ mode: 'process', endsEveryDescendant: true });
    expect(asRoot.data.isolation[0].detail).to.match(/^each process runs in a cgroup of its own \(below \/.+\); a timeout, a cancellation or its exit kills everything in it/);
    expect(runCli(['doctor', file]).stdout).to.include('\n  isolation process: every descendant ends with its task — each process runs in a cgroup of its own');

    const asNobody = (output: string[]) =>
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, 'doctor', file, ...output], { cwd: ws.dir, env: baseEnv({ HOME: ws.dir }), encoding: 'utf8' });
    const unprivileged = outcome(asNobody(['--output', 'json']), 0);
    expect(unprivileged.data.ready).to.equal(true);
    expect(unprivileged.data.isolation[0]).to.deep.include({ mode: 'process', endsEveryDescendant: false });
    expect(unprivileged.data.isolation[0].detail).to.match(/^no cgroup of its own per process here \(agentctl \(uid 65534\) cannot create a cgroup in \/.+ \(EACCES\): run it as root or in a delegated cgroup\): a descendant that left the process group and its parent \(setsid -f, a daemonizing double fork\) outlives a timeout, a cancellation or the program's exit$/);
    expect(asNobody([]).stdout).to.include('\n  isolation process: descendants can outlive their task — no cgroup of its own per process here');
  });

  it('refuses a malformed workflow as check does (exit 2)', () => {
    const file = ws.write('bad.yaml', shellWorkflow(containerAction({ image: 'busybox' }), allow));
    diagnosticWithCode(errorDocument(runCli(['doctor', file, '--output', 'json']), 2), 'AGENTCTL_E_SCHEMA');
  });
});

describe('plan lists container actions', () => {
  const ws = workspace();
  after(() => ws.cleanup());

  it('with the isolation, image, engine selection and limits, without contacting an engine', () => {
    const file = ws.write('wf.yaml', shellWorkflow(containerAction({ image: IMAGE, runtime: 'podman', pidsLimit: 32 }), allow));
    // An engine address that cannot answer: plan never asks.
    const env = { PATH: process.env.PATH, NO_COLOR: '1', CONTAINER_HOST: 'unix:///nonexistent/podman.sock', DOCKER_HOST: 'unix:///nonexistent/docker.sock' };
    const document = outcome(runCli(['plan', file, '--output', 'json'], { env }), 0);
    expect(document.data.processes).to.have.length(1);
    expect(document.data.processes[0]).to.deep.include({ isolation: 'container', command: '/bin/sh', executable: '/bin/sh' });
    expect(document.data.processes[0].options).to.deep.equal({ image: IMAGE, runtime: 'podman', memoryLimitBytes: 268435456, cpuLimitMillis: 1000, pidsLimit: 32 });
    const human = runCli(['plan', file], { env });
    expect(human.status).to.equal(0);
    expect(human.stdout).to.include(`[container, image ${IMAGE}, runtime podman, memoryLimitBytes 268435456, cpuLimitMillis 1000, pidsLimit 32, timeout 120s, tasks cmd]`);
  });
});

forEachEngine('agentctl doctor with container actions', (engine) => {
  const ws = workspace();
  after(() => ws.cleanup());
  const env = { PATH: process.env.PATH, NO_COLOR: '1', [engine.name === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST']: `unix://${engine.socket}` };

  it('is ready when the engine answers and holds the image, and names the engine it found', () => {
    const file = ws.write('ready.yaml', shellWorkflow(containerAction({ image: engine.images.busybox, runtime: engine.name }), allow));
    const document = outcome(runCli(['doctor', file, '--output', 'json'], { env }), 0);
    expect(document.data.processes[0].placement).to.include({ image: engine.images.busybox, engine: engine.name, runtime: engine.name, pidsLimit: 64 });
    expect(existsSync(ws.db)).to.equal(false);
  });

  it('reports a missing image with the code run gives it (exit 6), and run refuses it before any run exists', () => {
    const file = ws.write('missing.yaml', shellWorkflow(containerAction({ image: IMAGE, runtime: engine.name }), allow));
    const document = outcome(runCli(['doctor', file, '--output', 'json'], { env }), 6);
    expect(document.diagnostics.map((item: { code: string }) => item.code)).to.deep.equal(['AGENTCTL_E_CONTAINER_IMAGE_MISSING']);
    expect(document.data.processes[0].placement).to.equal(null);
    diagnosticWithCode(errorDocument(runCli(['run', file, '--db', ws.db, '--output', 'json'], { env }), 6), 'AGENTCTL_E_CONTAINER_IMAGE_MISSING');
    expect(existsSync(ws.db) ? runCount(ws.db) : 0).to.equal(0);
  });

  it('reports an engine socket that does not exist (exit 6)', () => {
    const file = ws.write('absent.yaml', shellWorkflow(containerAction({ image: engine.images.busybox, runtime: engine.name }), allow));
    const absent = { ...env, [engine.name === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST']: 'unix:///nonexistent/engine.sock' };
    const document = outcome(runCli(['doctor', file, '--output', 'json'], { env: absent }), 6);
    expect(document.diagnostics.map((item: { code: string }) => item.code)).to.deep.equal(['AGENTCTL_E_CONTAINER_ENGINE_MISSING']);
  });
});
