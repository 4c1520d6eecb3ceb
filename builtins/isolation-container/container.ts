// Runs one process in a container: create with every control of SPEC §6, attach before start (nothing is lost),
// demultiplex into bounded capture, wait. On timeout, cancellation or overflow the container is killed and removed
// before the result is returned; on a normal exit its state is read, then it is removed. Every path removes it.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { OutputCapture, type ProcessEnd, type ProcessResult, type ProcessSpec } from '@agentctl/sdk';
import { Demultiplexer } from './demux.js';
import { ApiTimeout, call, describeAddress, type Engine } from './engine.js';
import { oomKilledInKernelLog } from './kernel-log.js';
import { tmpfsMounts } from './mounts.js';
import type { ContainerOptions } from './options.js';
import type { Selection } from './select.js';

/** The label every container agentctl creates carries; its value is the process name (the effect id). */
export const EFFECT_LABEL = 'dev.agentctl.effect';
/** Removing a container that is still stopping can take a while on a loaded machine. */
const REMOVE_TIMEOUT_MS = 60_000;
/** After the attach stream ended, how often and how many times the state is read before only the wait is left. */
const EXIT_POLL_MS = 50;
const EXIT_POLLS = 100;
/** How long the attach stream may lag behind the exit before the output is taken as complete. */
const DRAIN_GRACE_MS = 2000;

/** The name of the container for a process: `agentctl-<effect id>`, so an operator finds it from the ledger. */
export const containerName = (spec: Pick<ProcessSpec, 'name'>) => `agentctl-${spec.name ?? `anonymous-${randomBytes(8).toString('hex')}`}`;

/** Where the container runs, as far as its create request needs it. */
export type Placement = Pick<Selection, 'imageId' | 'volumes'> & { readonly engine: Pick<Engine, 'identity'> };

/** The create request: every control, and the environment only here (in the request body, never argv or logs). */
export function createRequest(spec: ProcessSpec, options: ContainerOptions, placement: Placement, name: string): Docker.ContainerCreateOptions {
  const stdin = spec.stdin !== undefined;
  return {
    name,
    Image: placement.imageId,
    Entrypoint: [spec.executable],
    Cmd: [...spec.args],
    Env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
    WorkingDir: '/workspace',
    User: '65532:65532',
    Tty: false,
    OpenStdin: stdin,
    StdinOnce: stdin,
    AttachStdin: stdin,
    AttachStdout: true,
    AttachStderr: true,
    NetworkDisabled: true,
    Labels: { [EFFECT_LABEL]: spec.name ?? name },
    HostConfig: {
      NetworkMode: 'none',
      // A private IPC namespace with no /dev/shm mounted: no writable tmpfs there besides /tmp.
      IpcMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Memory: options.memoryLimitBytes,
      // Equal to Memory: no swap on top of the limit.
      MemorySwap: options.memoryLimitBytes,
      NanoCpus: options.cpuLimitMillis * 1_000_000,
      PidsLimit: options.pidsLimit,
      // The structured form: a path with ':' or ',' cannot be misread as bind options.
      // The spec's mounts were checked by the mode (refuseContainerMount): read-only workspace paths, bound as they are.
      Mounts: [{ Type: 'bind', Source: spec.cwd, Target: '/workspace', ReadOnly: true }, ...(spec.mounts ?? []).map(bindMount)],
      // /tmp, and a read-only cover over every other place the engine would make writable (mounts.ts).
      Tmpfs: tmpfsMounts(placement.engine.identity, placement.volumes),
    },
  };
}

/** A workspace mount as a bind: the source is the absolute path policy authorized, always read-only here. */
function bindMount(mount: NonNullable<ProcessSpec['mounts']>[number]): Docker.MountSettings {
  const source = 'workspace' in mount.source ? mount.source.workspace : '';
  return { Type: 'bind', Source: source, Target: mount.target, ReadOnly: true };
}

type Stopping = Extract<ProcessEnd, { end: 'overflow' | 'timeout' | 'aborted' }>;

export async function runContainer(placement: Selection, options: ContainerOptions, spec: ProcessSpec, signal: AbortSignal): Promise<ProcessResult> {
  const { engine } = placement;
  const started = performance.now();
  const output = new OutputCapture(spec.limits);
  const name = containerName(spec);
  let stopping: Stopping | undefined;
  let requestStop!: () => void;
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  const stop = (why: Stopping) => {
    stopping ??= why;
    requestStop();
  };
  // Bounded like process mode: the deadline counts from the start of the run, container creation included.
  const deadline = setTimeout(() => stop({ end: 'timeout' }), spec.timeoutMs);
  const onAbort = () => stop({ end: 'aborted', reason: signal.reason });
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });

  let stream: Duplex | undefined;
  const finish = (end: ProcessEnd, cleanupError?: string): ProcessResult => {
    clearTimeout(deadline);
    signal.removeEventListener('abort', onAbort);
    stream?.destroy();
    return { ...end, ...output.take(), durationMs: Math.round(performance.now() - started), ...(cleanupError === undefined ? {} : { cleanupError }) };
  };
  const container = engine.client.getContainer(name);
  const remove = () => removeContainer(engine, name);
  const failed = async (step: string, error: unknown) => finish(stopping ?? { end: 'spawn_error', message: `${step} container ${name} on ${describeAddress(engine.address)}: ${messageOf(error)}` }, await remove());

  let containerId = '';
  const creating = engine.client.createContainer(createRequest(spec, options, placement, name));
  try {
    // Not cancellable once sent: the engine may create it anyway, so a failure or a stop is followed by removal.
    containerId = (await call(() => creating)).id;
  } catch (error) {
    // Given up on (timeout): should the engine still create it, it is removed then (while agentctl still runs).
    if (error instanceof ApiTimeout) creating.then(() => removeContainer(engine, name), () => undefined);
    // A container of this name is already there (left by an earlier attempt of this effect): it is not ours to remove.
    if ((error as { statusCode?: number }).statusCode === 409) {
      return finish({ end: 'spawn_error', message: `container ${name} already exists on ${describeAddress(engine.address)}: remove it (\`${engine.identity} rm -f ${name}\`) once nothing of it is needed` });
    }
    return failed('could not create', error);
  }
  if (stopping) return finish(stopping, await remove());

  const streams = engine.streams.getContainer(name);
  try {
    stream = await call(() => attach(engine, name, spec.stdin !== undefined));
  } catch (error) {
    return failed('could not attach to', error);
  }
  const demultiplexer = new Demultiplexer((which, bytes) => {
    if (stopping) return;
    const overflow = output.write(which, bytes);
    if (overflow) stop(overflow);
  });
  const drained = new Promise<void>((resolve) => {
    stream!.on('data', (chunk: Buffer) => demultiplexer.write(chunk));
    stream!.once('end', resolve);
    stream!.once('close', resolve);
    // A broken attach stream shows in the wait or the exit state; the output so far is kept.
    stream!.on('error', () => resolve());
  });
  if (spec.stdin !== undefined) {
    stream.write(spec.stdin);
    // Half-close: the engine sees end of input and closes the process's stdin (StdinOnce).
    stream.end();
  }

  try {
    await call(() => container.start());
  } catch (error) {
    return failed('could not start', error);
  }
  if (stopping) return finish(stopping, await remove());

  const waitAbort = new AbortController();
  const waited = streams.wait({ abortSignal: waitAbort.signal }).then(
    () => 'exited' as const,
    (error: unknown) => error,
  );
  // The attach stream ends when the process does; Podman's wait answers up to seconds later (it polls). So an ended
  // stream whose container the engine already shows as exited is an exit too; otherwise the wait decides.
  let decided = false;
  const endedEarly = drained.then(async () => {
    for (let polls = 0; polls < EXIT_POLLS && !decided; polls += 1) {
      const inspected = await call(() => container.inspect()).catch(() => undefined);
      if (inspected?.State.Status === 'exited') return 'exited' as const;
      await new Promise((resolve) => setTimeout(resolve, EXIT_POLL_MS));
    }
    return new Promise<never>(() => undefined);
  });
  const first = await Promise.race([waited, endedEarly, stopRequested.then(() => 'stop' as const)]);
  decided = true;
  waitAbort.abort();
  if (first !== 'exited') {
    if (first === 'stop') return finish(stopping!, await remove());
    return failed('lost the wait on', first);
  }
  // The process has exited: take the rest of its output (bounded by the grace), then its state.
  await Promise.race([drained, stopRequested, new Promise((resolve) => setTimeout(resolve, DRAIN_GRACE_MS).unref())]);
  let state: Docker.ContainerInspectInfo['State'];
  try {
    state = (await call(() => container.inspect())).State;
  } catch (error) {
    return failed('could not read the exit state of', error);
  }
  const cleanupError = await remove();
  if (stopping) return finish(stopping, cleanupError);
  if (memoryKilled(engine, containerId, state)) return finish({ end: 'resource_limit', resource: 'memory', limit: options.memoryLimitBytes }, cleanupError);
  return finish({ end: 'exited', exitCode: state.ExitCode, signal: null }, cleanupError);
}

/**
 * Whether the memory limit killed the process: the engine's OOMKilled, else (an engine on this host that does not
 * report it, as Podman on cgroup v1) a SIGKILL exit that the kernel log attributes to the container's memory cgroup.
 */
function memoryKilled(engine: Engine, containerId: string, state: Docker.ContainerInspectInfo['State']): boolean {
  if (state.OOMKilled) return true;
  return state.ExitCode === 137 && engine.address.socketPath !== undefined && oomKilledInKernelLog(containerId);
}

/**
 * Attaches to the container's streams on a hijacked connection (HTTP upgrade), as the engines' own clients do. Written
 * here rather than through dockerode, which also sends the options as a request body: once the connection is
 * hijacked an engine may read that body as the first bytes of stdin (Podman always does).
 */
function attach(engine: Engine, name: string, stdin: boolean): Promise<Duplex> {
  const { socketPath, host, port } = engine.address;
  const query = `stream=1&stdout=1&stderr=1&stdin=${stdin ? 1 : 0}`;
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      ...(socketPath ? { socketPath } : { host, port }),
      method: 'POST',
      path: `/containers/${encodeURIComponent(name)}/attach?${query}`,
      headers: { Connection: 'Upgrade', Upgrade: 'tcp' },
    });
    request.once('upgrade', (_response, socket, head) => {
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    request.once('response', (response) => {
      response.resume();
      reject(new Error(`attach answered HTTP ${response.statusCode} instead of upgrading the connection`));
    });
    request.once('error', reject);
    request.end();
  });
}

/** Kills and removes a container; a container that is already gone is removed. Returns what failed, if anything. */
async function removeContainer(engine: Engine, name: string): Promise<string | undefined> {
  const container = engine.client.getContainer(name);
  try {
    await call(() => container.remove({ force: true, v: true }), undefined, REMOVE_TIMEOUT_MS);
    return undefined;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    return `container ${name} on ${describeAddress(engine.address)} could not be removed: ${messageOf(error)}`;
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).trim();
