// isolation: container end to end, on real Docker and real Podman: the controls as seen from inside, the limits, the
// endings that kill and remove the container, preflight failures before any effect, secrets, and replay.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, linkSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { expect } from 'chai';
import { baseEnv, runCli, startCli, workspace } from '../support/cli.js';
import { bytesOf, diagnosticWithCode, errorDocument, finished, outcome, rows, runCount, unique, waitFor, workflow } from './helpers.js';
import { engineClient, forEachEngine, testEngines, type EngineInfo } from '../support/engines.js';

const MiB = 1024 * 1024;

/** The environment that points agentctl at this engine (the other one's variable is left unset). */
const engineEnv = (engine: EngineInfo, extra: NodeJS.ProcessEnv = {}) =>
  baseEnv({ [engine.name === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST']: `unix://${engine.socket}`, ...extra });

/** A container shell action running `script` under busybox's sh. */
function containerAction(engine: EngineInfo, script: string, fields: Record<string, unknown> = {}, container: Record<string, unknown> = {}) {
  return {
    kind: 'builtin.shell.exec',
    command: 'sh',
    args: ['-c', script],
    isolation: 'container',
    timeoutSeconds: 20,
    ...fields,
    container: { image: engine.images.busybox, runtime: engine.name, ...container },
  };
}

/** Containers of this engine that carry agentctl's label, optionally of one effect. */
async function labelled(engine: EngineInfo, effectId?: string): Promise<string[]> {
  const client = engineClient(engine);
  const label = effectId ? `dev.agentctl.effect=${effectId}` : 'dev.agentctl.effect';
  const found = await client.listContainers({ all: true, filters: { label: [label] } });
  return found.map((container) => container.Names[0] ?? container.Id);
}

/** The effect ids on the containers of this engine that carry agentctl's label. */
async function labelledEffects(engine: EngineInfo): Promise<string[]> {
  const found = await engineClient(engine).listContainers({ all: true, filters: { label: ['dev.agentctl.effect'] } });
  return found.map((container) => container.Labels?.['dev.agentctl.effect'] ?? '');
}

/** A unix socket file that nothing listens on, as a stopped daemon leaves behind: a hard link outlives the listener. */
async function deadSocket(path: string): Promise<void> {
  const server = createServer();
  const live = `${path}.live`;
  await new Promise<void>((resolve) => server.listen(live, resolve));
  linkSync(live, path);
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

const PROBE = [
  'echo uid=$(id -u):$(id -g)',
  'touch /x 2>/dev/null && echo root=written || echo root=refused',
  'touch /workspace/x 2>/dev/null && echo workspace=written || echo workspace=refused',
  'touch /tmp/x && echo tmp=written',
  'cp /bin/busybox /tmp/b && /tmp/b true 2>/dev/null && echo tmpexec=allowed || echo tmpexec=refused',
  "echo ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ,)",
  'echo pids=$(cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max)',
  'echo memory=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max)',
  "echo caps=$(grep CapEff /proc/self/status | tr -d '\\t')",
  "echo nnp=$(grep NoNewPrivs /proc/self/status | tr -d '\\t')",
  'echo cwd=$(pwd)',
].join('; ');

forEachEngine('container isolation', (engine) => {
  describe('through the CLI', function () {
    this.timeout(90_000);
    const ws = workspace();
    // The workspace is mounted read-only at /workspace; uid 65532 must be able to enter it.
    before(() => chmodSync(ws.dir, 0o755));
    after(() => ws.cleanup());
    const env = (extra: NodeJS.ProcessEnv = {}) => engineEnv(engine, extra);
    const run = (name: string, document: string, extra: NodeJS.ProcessEnv = {}) => runCli(['run', ws.write(`${name}.yaml`, document), '--db', ws.file(`${name}.db`), '--output', 'json'], { env: env(extra) });
    const effectsOf = (name: string) => rows(ws.file(`${name}.db`), 'SELECT task_id AS task, id, state, error_json, input_json FROM effects ORDER BY rowid');

    it('runs as 65532 with a read-only root and workspace, a noexec /tmp, only lo, no capabilities and the configured limits; a fork past pidsLimit fails and its task ends; replay starts no container', async () => {
      const document = workflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        outputs: { probe: '${{ tasks.probe.output.stdout }}' },
        actions: {
          probe: containerAction(engine, PROBE, {}, { memoryLimitBytes: 64 * MiB, pidsLimit: 48 }),
          fork: containerAction(engine, 'i=0; while [ $i -lt 12 ]; do sleep 30 & i=$((i+1)); done', {}, { pidsLimit: 8 }),
        },
        tasks: [
          { id: 'probe', uses: 'action:probe' },
          // busybox sh gives up (status 2) when it cannot fork: the task fails, and ends.
          { id: 'fork', uses: 'action:fork', failure: 'continue' },
        ],
      });
      const started = Date.now();
      const result = outcome(run('controls', document), 0);
      const lines = Object.fromEntries((result.data.output.probe as string).trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2)));
      expect(lines).to.deep.equal({
        uid: '65532:65532',
        root: 'refused',
        workspace: 'refused',
        tmp: 'written',
        tmpexec: 'refused',
        ifaces: 'lo,',
        pids: '48',
        memory: String(64 * MiB),
        caps: 'CapEff:0000000000000000',
        nnp: 'NoNewPrivs:1',
        cwd: '/workspace',
      });
      expect(Date.now() - started, 'the fork bomb did not hold the task open').to.be.below(60_000);
      const effects = effectsOf('controls');
      expect(effects.map((effect) => effect.state)).to.deep.equal(['succeeded', 'failed']);
      const forkError = JSON.parse(effects[1].error_json);
      expect(forkError.code).to.equal('AGENTCTL_E_PROCESS_EXIT');
      expect(forkError.message).to.contain("can't fork: Resource temporarily unavailable");
      expect(JSON.parse(effects[0].input_json).container).to.deep.equal({ image: engine.images.busybox, imageId: engine.images.busybox, engine: engine.name, runtime: engine.name, memoryLimitBytes: 64 * MiB, cpuLimitMillis: 1000, pidsLimit: 48 });
      for (const effect of effects) expect(await labelled(engine, effect.id)).to.deep.equal([]);

      // Replay reads the ledger only: with no engine reachable at all, it rebuilds the run and starts no container. A
      // container agentctl starts carries the id of an effect it recorded first, in this database; the engine is
      // shared with the suite's other processes, so only containers of this database's effects are counted.
      const replay = outcome(runCli(['replay', result.data.runId, '--db', ws.file('controls.db'), '--output', 'json'], { env: baseEnv({ DOCKER_HOST: 'unix:///nonexistent/docker.sock', CONTAINER_HOST: 'unix:///nonexistent/podman.sock' }) }), 0);
      expect(replay.data).to.deep.include({ state: 'succeeded', mode: 'replay', output: result.data.output });
      expect(rows(ws.file('controls.db'), 'SELECT COUNT(*) AS n FROM effects WHERE run_id = ?', replay.data.runId)[0].n).to.equal(0);
      const ours = new Set(rows(ws.file('controls.db'), 'SELECT id FROM effects').map((effect) => effect.id as string));
      expect((await labelledEffects(engine)).filter((id) => ours.has(id))).to.deep.equal([]);
    });

    it('gives an image that declares a VOLUME (and leaves /run and /var/tmp writable) no writable place but /tmp: the volume, Podman\'s /var/tmp and /run, and /dev/mqueue are read-only, noexec tmpfs, and /dev/shm is absent', async () => {
      // The image declares VOLUME /data; its /data, /run and /var/tmp are mode 1777, so only the mounts decide.
      const places = ['/data', '/var/tmp', '/run', '/dev/mqueue', '/dev/shm', '/tmp'];
      const script = [
        `for p in ${places.join(' ')}; do if touch $p/probe 2>/dev/null; then echo "$p writable"; else echo "$p read-only"; fi; done`,
        // What is mounted at /data, and with which flags: an anonymous volume would be the engine's disk, rw.
        `echo "data: $(grep ' /data ' /proc/mounts | cut -d' ' -f1,3,4 | cut -d, -f1-4)"`,
        'echo "run: $(cat /run/image-file)"',
        'if [ -e /dev/shm ]; then echo "shm: present"; else echo "shm: absent"; fi',
      ].join('; ');
      const document = workflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        outputs: { probe: '${{ tasks.probe.output.stdout }}' },
        actions: { probe: containerAction(engine, script, {}, { image: engine.images.volume }) },
        tasks: [{ id: 'probe', uses: 'action:probe' }],
      });
      const result = outcome(run('volumes', document), 0);
      expect(result.data.output.probe).to.equal(
        ['/data read-only', '/var/tmp read-only', '/run read-only', '/dev/mqueue read-only', '/dev/shm read-only', '/tmp writable', 'data: tmpfs tmpfs ro,nosuid,nodev,noexec', 'run: from the image', 'shm: absent', ''].join('\n'),
      );
    });

    it('kills and removes the container on memory, output and time limits: resource_limit and output_limit fail, timeout is uncertain', async () => {
      const document = workflow({
        policy: { processAllowlist: ['sh'], approval: 'never' },
        actions: {
          // The shell keeps 100 MB in a variable: far past a 32 MiB limit.
          memory: containerAction(engine, 'x=$(head -c 100000000 /dev/zero | tr "\\0" a); echo ${#x}', {}, { memoryLimitBytes: 32 * MiB }),
          flood: containerAction(engine, 'yes', { stdoutLimitBytes: 65536 }),
          slow: containerAction(engine, 'sleep 60', { timeoutSeconds: 1 }),
        },
        tasks: [
          { id: 'memory', uses: 'action:memory', failure: 'continue' },
          { id: 'flood', uses: 'action:flood', failure: 'continue' },
          { id: 'slow', uses: 'action:slow', failure: 'continue' },
        ],
      });
      const result = run('limits', document);
      expect(result.status, result.stderr).to.be.oneOf([0, 4]);
      const effects = effectsOf('limits');
      const seen = effects.map((effect) => [effect.task, effect.state, JSON.parse(effect.error_json).code]);
      expect(seen, JSON.stringify(effects.map((effect) => [effect.task, effect.state, effect.error_json]))).to.deep.equal([
        ['memory', 'failed', 'AGENTCTL_E_PROCESS_RESOURCE_LIMIT'],
        ['flood', 'failed', 'AGENTCTL_E_PROCESS_OUTPUT_LIMIT'],
        ['slow', 'uncertain', 'AGENTCTL_E_PROCESS_TIMEOUT'],
      ]);
      for (const effect of effects) expect(await labelled(engine, effect.id), `container of ${effect.task}`).to.deep.equal([]);
    });

    it('SIGTERM during a container action: exit 130 and the container is gone', async () => {
      const document = workflow({ policy: { processAllowlist: ['sh'], approval: 'never' }, actions: { long: containerAction(engine, 'sleep 300', { timeoutSeconds: 600 }) }, tasks: [{ id: 'long', uses: 'action:long' }] });
      const child = startCli(['run', ws.write('term.yaml', document), '--db', ws.file('term.db'), '--output', 'json'], { env: env() });
      const done = finished(child);
      try {
        const effectId = await waitFor('the started effect', () => rows(ws.file('term.db'), `SELECT id FROM effects WHERE state = 'started'`)[0]?.id as string | undefined, 30_000);
        // The container exists and runs before the signal.
        await waitFor('the running container', async () => (await labelled(engine, effectId)).length === 1, 30_000);
        child.kill('SIGTERM');
        const ended = outcome(await done, 130);
        expect(ended.data.state).to.equal('cancelled');
        expect(await labelled(engine, effectId)).to.deep.equal([]);
        expect(rows(ws.file('term.db'), 'SELECT state FROM effects')[0].state).to.equal('uncertain');
      } finally {
        child.kill('SIGKILL');
      }
    });

    it('passes a secret in the container environment only: it reaches the process, and no database byte, CLI output or command line of any process', async () => {
      const canary = unique('canary-');
      const document = workflow({
        policy: { processAllowlist: ['sh'], environmentAllowlist: ['CANARY'], approval: 'never' },
        outputs: { digest: '${{ tasks.secret.output.stdout }}' },
        actions: { secret: containerAction(engine, 'printf %s "$CANARY" | sha256sum; sleep 2', { env: { CANARY: { env: 'AGENTCTL_TEST_CANARY' } } }) },
        tasks: [{ id: 'secret', uses: 'action:secret' }],
      });
      const child = startCli(['run', ws.write('secret.yaml', document), '--db', ws.file('secret.db'), '--output', 'json'], { env: env({ AGENTCTL_TEST_CANARY: canary }) });
      const done = finished(child);
      const seen: number[] = [];
      let scans = 0;
      let exited = false;
      void done.then(() => (exited = true));
      while (!exited) {
        scans += 1;
        for (const entry of readdirSync('/proc')) {
          if (!/^\d+$/.test(entry)) continue;
          try {
            if (readFileSync(`/proc/${entry}/cmdline`).includes(canary)) seen.push(Number(entry));
          } catch {
            // The process ended while it was read.
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const result = await done;
      const ended = outcome(result, 0);
      expect(ended.data.output.digest).to.equal(`${createHash('sha256').update(canary).digest('hex')}  -\n`);
      expect(scans, 'the command lines were scanned while the container ran').to.be.above(10);
      expect(seen, 'processes whose command line holds the secret').to.deep.equal([]);
      for (const text of [result.stdout, result.stderr, bytesOf(ws.file('secret.db')), bytesOf(ws.file('secret.db-wal'))]) expect(text.includes(canary)).to.equal(false);
      // Nor the engines' own logs: the daemon's and the API service's output, and Podman's event log.
      const logs = [...['/var/log/agentctl-test'].flatMap((folder) => (existsSync(folder) ? readdirSync(folder).map((name) => join(folder, name)) : [])), '/run/libpod/events/events.log'];
      const scanned = logs.filter((path) => existsSync(path) && statSync(path).isFile());
      expect(scanned.length, 'engine logs scanned').to.be.above(0);
      for (const path of scanned) expect(readFileSync(path).includes(canary), path).to.equal(false);
    });

    it('fails before any effect when the image is missing, the engine socket is absent, or nothing listens on it', async () => {
      const variable = engine.name === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST';
      const absent = `unix://${ws.file('absent.sock')}`;
      const dead = ws.file('dead.sock');
      await deadSocket(dead);
      const cases: [string, Record<string, unknown>, NodeJS.ProcessEnv, string][] = [
        ['image', { image: `sha256:${'0'.repeat(64)}` }, {}, 'AGENTCTL_E_CONTAINER_IMAGE_MISSING'],
        ['absent', {}, { [variable]: absent }, 'AGENTCTL_E_CONTAINER_ENGINE_MISSING'],
        ['stopped', {}, { [variable]: `unix://${dead}` }, 'AGENTCTL_E_CONTAINER_ENGINE_STOPPED'],
      ];
      for (const [name, container, extra, code] of cases) {
        const document = workflow({ policy: { processAllowlist: ['sh'], approval: 'never' }, actions: { cmd: containerAction(engine, 'echo ran', {}, container) }, tasks: [{ id: 'cmd', uses: 'action:cmd' }] });
        // A missing image stops before any run (exit 6); an engine that is not there fails a recorded run (exit 4).
        const failure = errorDocument(run(name, document, extra), name === 'image' ? 6 : 4);
        const found = diagnosticWithCode(failure, code);
        expect(found.message, name).to.contain('task cmd:');
        expect(found.help, name).to.be.a('string').and.not.equal('');
        if (name !== 'image') expect(found.message).to.contain(extra[variable]!.slice('unix://'.length));
        else expect(found.message).to.contain(`sha256:${'0'.repeat(64)}`);
        expect(runCount(ws.file(`${name}.db`)), name).to.equal(name === 'image' ? 0 : 1);
        if (name !== 'image') expect(rows(ws.file(`${name}.db`), 'SELECT COUNT(*) AS n FROM effects'), name).to.deep.equal([{ n: 0 }]);
      }
    });
  });
});

describe('container engine selection', function () {
  this.timeout(60_000);
  const ws = workspace();
  const engines = testEngines();
  before(function () {
    if (!engines) this.skip();
    chmodSync(ws.dir, 0o755);
  });
  after(() => ws.cleanup());
  const run = (name: string, container: Record<string, unknown>, env: NodeJS.ProcessEnv) =>
    runCli(['run', ws.write(`${name}.yaml`, workflow({ policy: { processAllowlist: ['sh'], approval: 'never' }, outputs: { said: '${{ tasks.cmd.output.stdout }}' }, actions: { cmd: containerAction(engines!.docker, 'echo ran', {}, container) }, tasks: [{ id: 'cmd', uses: 'action:cmd' }] })), '--db', ws.file(`${name}.db`), '--output', 'json'], { env: baseEnv(env) });
  const docker = () => `unix://${engines!.docker.socket}`;
  const podman = () => `unix://${engines!.podman.socket}`;

  it('runtime: docker with only Podman reachable fails before any effect and says to choose podman or auto', () => {
    const failure = errorDocument(run('only-podman', { runtime: 'docker' }, { DOCKER_HOST: `unix://${ws.file('none.sock')}`, CONTAINER_HOST: podman() }), 4);
    const found = diagnosticWithCode(failure, 'AGENTCTL_E_CONTAINER_ENGINE_MISSING');
    expect(found.help).to.contain('set runtime: podman or auto');
    expect(rows(ws.file('only-podman.db'), 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
  });

  it('runtime: docker never lands on Podman through its socket (DOCKER_HOST pointing at Podman)', () => {
    const failure = errorDocument(run('symlinked', { runtime: 'docker' }, { DOCKER_HOST: podman(), CONTAINER_HOST: podman() }), 4);
    expect(diagnosticWithCode(failure, 'AGENTCTL_E_CONTAINER_ENGINE_MISSING').message).to.contain('Podman answers there, not Docker');
    expect(rows(ws.file('symlinked.db'), 'SELECT COUNT(*) AS n FROM effects')).to.deep.equal([{ n: 0 }]);
  });

  it('reports one diagnostic per distinct problem, naming every task it stops', () => {
    const missing = (digit: string) => ({ image: `sha256:${digit.repeat(64)}` });
    const document = workflow({
      policy: { processAllowlist: ['sh'], approval: 'never' },
      actions: { one: containerAction(engines!.docker, 'echo 1', {}, missing('1')), two: containerAction(engines!.docker, 'echo 2', {}, missing('2')) },
      tasks: [
        { id: 'a', uses: 'action:one' },
        { id: 'b', uses: 'action:two' },
        { id: 'c', uses: 'action:one' },
      ],
    });
    const result = runCli(['run', ws.write('distinct.yaml', document), '--db', ws.file('distinct.db'), '--output', 'json'], { env: baseEnv({ DOCKER_HOST: docker() }) });
    const failure = errorDocument(result, 6);
    const messages = (failure.diagnostics as any[]).map((item) => [item.code, item.message.split(': runtime')[0]]).sort();
    expect(messages).to.deep.equal([
      ['AGENTCTL_E_CONTAINER_IMAGE_MISSING', 'task a, c'],
      ['AGENTCTL_E_CONTAINER_IMAGE_MISSING', 'task b'],
    ]);
    expect(runCount(ws.file('distinct.db'))).to.equal(0);
  });

  it('runtime: auto takes the first engine that has the exact image: Podman for an id only Podman has', () => {
    const result = outcome(run('auto', { runtime: 'auto', image: engines!.podman.images.busybox }, { DOCKER_HOST: docker(), CONTAINER_HOST: podman() }), 0);
    expect(result.data.output.said).to.equal('ran\n');
    const [effect] = rows(ws.file('auto.db'), 'SELECT input_json FROM effects');
    expect(JSON.parse(effect.input_json).container).to.include({ engine: 'podman', runtime: 'auto', image: engines!.podman.images.busybox });
  });
});
