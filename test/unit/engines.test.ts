// Proves the container test environment itself: both engines answer, hold the pinned test images, and enforce the
// confinement SPEC §6 asks for when driven through dockerode with the flags docs/testing.md lists.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import type Docker from 'dockerode';
import { ROOT } from '../support/cli.js';
import {
  ENGINES_FILE,
  enginesSkipped,
  containersNamed,
  engineAnswers,
  engineClient,
  forEachEngine,
  startEngine,
  stopEngine,
  type EngineInfo,
} from '../support/engines.js';

interface Outcome {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The confinement of SPEC §6, spelled the way both engines accept it. */
function confinedHostConfig(workspace: string): Docker.HostConfig {
  return {
    ReadonlyRootfs: true,
    NetworkMode: 'none',
    CapDrop: ['ALL'],
    SecurityOpt: ['no-new-privileges'],
    Memory: 256 * 1024 * 1024,
    MemorySwap: 256 * 1024 * 1024,
    PidsLimit: 64,
    NanoCpus: 1_000_000_000,
    Tmpfs: { '/tmp': 'rw,noexec,nosuid,nodev,size=16m,mode=1777' },
    Mounts: [{ Type: 'bind', Source: workspace, Target: '/workspace', ReadOnly: true }],
  };
}

async function runConfined(engine: EngineInfo, name: string, workspace: string, script: string): Promise<Outcome> {
  const container = await engineClient(engine).createContainer({
    name,
    Image: engine.images.busybox,
    Entrypoint: ['sh', '-c'],
    Cmd: [script],
    User: '65532:65532',
    WorkingDir: '/workspace',
    AttachStdout: true,
    AttachStderr: true,
    HostConfig: confinedHostConfig(workspace),
  });
  try {
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    stdout.on('data', (chunk: Buffer) => chunks.stdout.push(chunk));
    stderr.on('data', (chunk: Buffer) => chunks.stderr.push(chunk));
    const ended = new Promise((resolve) => stream.once('end', resolve));
    container.modem.demuxStream(stream, stdout, stderr);
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    await ended;
    return {
      exitCode: StatusCode,
      stdout: Buffer.concat(chunks.stdout).toString(),
      stderr: Buffer.concat(chunks.stderr).toString(),
    };
  } finally {
    await container.remove({ force: true });
  }
}

function runScript(env: NodeJS.ProcessEnv, user?: string): { status: number | null; stdout: string; stderr: string } {
  const script = 'bash scripts/test-engines.sh';
  const [command, args] = user ? ['su', [user, '-s', '/bin/bash', '-c', script]] : ['bash', ['scripts/test-engines.sh']];
  const result = spawnSync(command, args as string[], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('scripts/test-engines.sh', function () {
  this.timeout(120_000);

  it('finds everything ready on a second run and leaves the recorded ids as they were', function () {
    if (enginesSkipped()) this.skip();
    const before = readFileSync(ENGINES_FILE, 'utf8');
    expect(runScript({})).to.deep.equal({
      status: 0,
      stdout: 'test-engines: docker and podman ready; image ids in test/.engines.json\n',
      stderr: '',
    });
    expect(readFileSync(ENGINES_FILE, 'utf8')).to.equal(before);
  });

  it('prepares nothing under AGENTCTL_TEST_ENGINES=skip, and says so', function () {
    expect(runScript({ AGENTCTL_TEST_ENGINES: 'skip' })).to.deep.equal({
      status: 0,
      stdout:
        'test-engines: !!! AGENTCTL_TEST_ENGINES=skip: Docker and Podman are NOT prepared; the container suites will be pending !!!\n',
      stderr: '',
    });
  });

  it('fails loudly on any other AGENTCTL_TEST_ENGINES value and when not root', function () {
    expect(runScript({ AGENTCTL_TEST_ENGINES: 'no' })).to.deep.equal({
      status: 1,
      stdout: '',
      stderr: "test-engines: FAILED (start): AGENTCTL_TEST_ENGINES='no' is not understood (only 'skip' is)\n",
    });
    if (process.getuid?.() !== 0) return;
    expect(runScript({}, 'nobody')).to.deep.equal({
      status: 1,
      stdout: '',
      stderr:
        'test-engines: FAILED (start): must run as root to install and start Docker and Podman (or set AGENTCTL_TEST_ENGINES=skip)\n',
    });
  });
});

forEachEngine('test engine', (engine) => {
  let workspace: string;
  const prefix = `agentctl-envtest-${process.pid}-`;

  before(() => {
    workspace = mkdtempSync(join(tmpdir(), 'agentctl-engines-'));
    writeFileSync(join(workspace, 'input.txt'), 'from the workspace\n');
    // uid 65532 must be able to enter the bind-mounted folder; mkdtemp makes it 0700.
    chmodSync(workspace, 0o755);
  });
  after(() => rmSync(workspace, { recursive: true, force: true }));

  it('answers on its socket and holds both test images under their pinned ids', async function () {
    expect(await engineAnswers(engine)).to.equal(true);
    for (const id of [engine.images.busybox, engine.images.node]) {
      const image = await engineClient(engine).getImage(id).inspect();
      expect(image.Id).to.equal(id);
    }
  });

  it('runs busybox confined: user 65532, writable noexec /tmp, read-only root and workspace, limits applied', async function () {
    const script = [
      'id -u; id -g',
      'echo x > /tmp/x && cat /tmp/x',
      'cp /bin/busybox /tmp/busybox && /tmp/busybox true || echo tmp-noexec',
      'echo y > /x || echo root-read-only',
      'echo z > /workspace/z || echo workspace-read-only',
      'cat input.txt',
      'cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/memory/memory.limit_in_bytes',
      'grep NoNewPrivs /proc/self/status; grep CapEff /proc/self/status',
      'ls /sys/class/net',
    ].join('\n');
    const outcome = await runConfined(engine, `${prefix}confined`, workspace, script);
    expect(outcome.stdout.split('\n')).to.deep.equal([
      '65532',
      '65532',
      'x',
      'tmp-noexec',
      'root-read-only',
      'workspace-read-only',
      'from the workspace',
      '64',
      '268435456',
      'NoNewPrivs:\t1',
      'CapEff:\t0000000000000000',
      'lo',
      '',
    ]);
    expect(outcome.stderr).to.equal(
      'sh: /tmp/busybox: Permission denied\n' +
        "sh: can't create /x: Read-only file system\nsh: can't create /workspace/z: Read-only file system\n",
    );
    expect(outcome.exitCode).to.equal(0);
    expect(await containersNamed(engine, prefix)).to.deep.equal([]);
  });

  it('lists containers by name prefix in every state', async function () {
    const client = engineClient(engine);
    const created = await client.createContainer({ name: `${prefix}listed`, Image: engine.images.busybox, Cmd: ['true'] });
    try {
      expect(await containersNamed(engine, prefix)).to.deep.equal([`${prefix}listed`]);
    } finally {
      await created.remove({ force: true });
    }
    expect(await containersNamed(engine, prefix)).to.deep.equal([]);
  });

  it('starts a spare engine that a test may stop without touching the shared one', async function () {
    this.timeout(120_000);
    const spare = await startEngine(engine.name);
    try {
      expect(await engineAnswers(spare)).to.equal(true);
      expect((await engineClient(spare).getImage(spare.images.busybox).inspect()).Id).to.equal(engine.images.busybox);
    } finally {
      await stopEngine(spare);
    }
    expect(await engineAnswers(spare)).to.equal(false);
    expect(await engineAnswers(engine)).to.equal(true);
  });
});
