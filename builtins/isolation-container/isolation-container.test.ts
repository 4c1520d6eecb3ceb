import { expect } from 'chai';
import { engineAddress } from './address.js';
import { containerName, createRequest } from './container.js';
import { declaredVolumes } from './mounts.js';
import { Demultiplexer, type Stream } from './demux.js';
import { identify, identifyPing, pinnedBy } from './engine.js';

const frame = (type: number, text: string) => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

describe('container isolation: engine addresses', () => {
  it('takes DOCKER_HOST and CONTAINER_HOST as given, unix:// or tcp://', () => {
    expect(engineAddress('docker', { DOCKER_HOST: 'unix:///tmp/d.sock' }, 1000)).to.deep.include({ socketPath: '/tmp/d.sock', variable: 'DOCKER_HOST' });
    expect(engineAddress('podman', { CONTAINER_HOST: 'tcp://127.0.0.1:8080' }, 1000)).to.deep.include({ host: '127.0.0.1', port: 8080, variable: 'CONTAINER_HOST' });
  });

  it('falls back to the default sockets: Docker one path, Podman rootful for root and rootless otherwise', () => {
    expect(engineAddress('docker', {}, 0)).to.deep.include({ socketPath: '/var/run/docker.sock', variable: undefined });
    expect(engineAddress('podman', {}, 0).socketPath).to.equal('/run/podman/podman.sock');
    expect(engineAddress('podman', { XDG_RUNTIME_DIR: '/run/user/1000' }, 1000).socketPath).to.equal('/run/user/1000/podman/podman.sock');
    expect(engineAddress('podman', {}, 1001).socketPath).to.equal('/run/user/1001/podman/podman.sock');
  });

  it('refuses what it cannot use, with the reason, instead of guessing', () => {
    expect(engineAddress('docker', { DOCKER_HOST: 'ssh://me@host' }, 0).unsupported).to.contain('only unix:///PATH and plain tcp://HOST:PORT');
    expect(engineAddress('docker', { DOCKER_HOST: 'unix://relative.sock' }, 0).unsupported).to.contain('not an absolute');
    expect(engineAddress('docker', { DOCKER_HOST: 'tcp://host' }, 0).unsupported).to.contain('names no port');
  });
});

describe('container isolation: what answers and which image', () => {
  it('tells Podman from Docker by the headers of GET /_ping, else GET /version, whatever socket it answers on', () => {
    expect(identifyPing({ server: 'Libpod/4.3.1 (linux)', 'libpod-api-version': '4.3.1', 'api-version': '1.41' })).to.equal('podman');
    expect(identifyPing({ server: 'Docker/20.10.24+dfsg1 (linux)', 'api-version': '1.41' })).to.equal('docker');
    expect(identifyPing({ 'api-version': '1.41' })).to.equal(undefined);
    expect(identify({ Platform: { Name: 'linux/amd64/debian-12' }, Components: [{ Name: 'Podman Engine' }, { Name: 'Conmon' }] })).to.equal('podman');
    expect(identify({ Platform: { Name: '' }, Components: [{ Name: 'Engine' }, { Name: 'containerd' }] })).to.equal('docker');
    expect(identify({ Platform: { Name: 'Docker Engine - Community' } })).to.equal('docker');
    expect(identify({ Components: [{ Name: 'something else' }] })).to.equal(undefined);
  });

  it('accepts an image only when its id, or one of its repository digests, is exactly the pinned one', () => {
    const id = `sha256:${'a'.repeat(64)}`;
    const digest = `sha256:${'b'.repeat(64)}`;
    expect(pinnedBy(id, id, [])).to.equal(true);
    expect(pinnedBy(`sha256:${'c'.repeat(64)}`, id, [])).to.equal(false);
    expect(pinnedBy(`worker@${digest}`, id, [`docker.io/library/worker@${digest}`])).to.equal(true);
    expect(pinnedBy(`registry.example/team/worker@${digest}`, id, [`registry.example/team/worker@${digest}`])).to.equal(true);
    expect(pinnedBy(`registry.example/team/other@${digest}`, id, [`registry.example/team/worker@${digest}`])).to.equal(false);
    expect(pinnedBy(`worker@${digest}`, id, [`worker@sha256:${'d'.repeat(64)}`])).to.equal(false);
  });
});

describe('container isolation: the create request', () => {
  const spec = { isolation: 'container', name: 'eff_1', executable: 'sh', args: ['-c', '--privileged'], cwd: '/srv/ws,ro:x', env: { TOKEN: 'v=1' }, timeoutMs: 1000, limits: { stdout: 1, stderr: 1, combined: 2 } };
  const options = { image: `sha256:${'a'.repeat(64)}`, runtime: 'auto' as const, memoryLimitBytes: 64 << 20, cpuLimitMillis: 500, pidsLimit: 32 };

  it('carries every control, the command as entrypoint with its args after it, and the environment in the body', () => {
    const request = createRequest(spec, options, { imageId: `sha256:${'f'.repeat(64)}`, volumes: [], engine: { identity: 'docker' } }, containerName(spec));
    expect(request).to.deep.include({ name: 'agentctl-eff_1', Image: `sha256:${'f'.repeat(64)}`, Entrypoint: ['sh'], Cmd: ['-c', '--privileged'], Env: ['TOKEN=v=1'], WorkingDir: '/workspace', User: '65532:65532', Tty: false, OpenStdin: false, NetworkDisabled: true });
    expect(request.Labels).to.deep.equal({ 'dev.agentctl.effect': 'eff_1' });
    expect(request.HostConfig).to.deep.equal({
      NetworkMode: 'none',
      IpcMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Memory: 64 << 20,
      MemorySwap: 64 << 20,
      NanoCpus: 500_000_000,
      PidsLimit: 32,
      Mounts: [{ Type: 'bind', Source: '/srv/ws,ro:x', Target: '/workspace', ReadOnly: true }],
      Tmpfs: { '/tmp': 'rw,noexec,nosuid,nodev,size=16m,mode=1777', '/dev/mqueue': 'ro,noexec,nosuid,nodev,size=4k' },
    });
    expect(createRequest({ ...spec, stdin: Buffer.from('x') }, options, { imageId: 'i', volumes: [], engine: { identity: 'docker' } }, 'n')).to.deep.include({ OpenStdin: true, StdinOnce: true, AttachStdin: true });
  });

  it('covers each declared volume with an empty read-only tmpfs, and under Podman its read-only-mode /var/tmp and /run', () => {
    const volumes = declaredVolumes({ '/data/': {}, 'cache': {}, '/tmp': {}, '/workspace/': {}, '/run': {} });
    expect(volumes).to.deep.equal(['/cache', '/data', '/run']);
    const cover = 'ro,noexec,nosuid,nodev,size=4k,mode=0755';
    const tmp = 'rw,noexec,nosuid,nodev,size=16m,mode=1777';
    const mqueue = 'ro,noexec,nosuid,nodev,size=4k';
    expect(createRequest(spec, options, { imageId: 'i', volumes, engine: { identity: 'docker' } }, 'n').HostConfig!.Tmpfs).to.deep.equal({ '/tmp': tmp, '/dev/mqueue': mqueue, '/cache': cover, '/data': cover, '/run': cover });
    expect(createRequest(spec, options, { imageId: 'i', volumes: [], engine: { identity: 'podman' } }, 'n').HostConfig!.Tmpfs).to.deep.equal({
      '/tmp': tmp,
      '/dev/mqueue': mqueue,
      '/var/tmp': 'ro,noexec,nosuid,nodev,size=16m,tmpcopyup',
      '/run': 'ro,noexec,nosuid,nodev,size=16m,tmpcopyup',
    });
  });
});

describe('container isolation: the attach stream', () => {
  it('splits frames across any chunking, stdout and stderr apart, without copying payloads', () => {
    const seen: [Stream, string][] = [];
    const whole = Buffer.concat([frame(1, 'out-1\n'), frame(2, 'err-1\n'), frame(1, 'x'.repeat(70_000)), frame(3, 'engine says')]);
    for (const size of [1, 3, 7, 8, 9, 4096, whole.length]) {
      seen.length = 0;
      const demultiplexer = new Demultiplexer((stream, bytes) => seen.push([stream, bytes.toString()]));
      for (let offset = 0; offset < whole.length; offset += size) demultiplexer.write(whole.subarray(offset, offset + size));
      const joined = { stdout: '', stderr: '' };
      for (const [stream, text] of seen) joined[stream] += text;
      expect(joined, `chunks of ${size}`).to.deep.equal({ stdout: `out-1\n${'x'.repeat(70_000)}`, stderr: 'err-1\nengine says' });
    }
  });
});
