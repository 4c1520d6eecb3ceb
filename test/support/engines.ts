// The real Docker and Podman engines the container tests run against, as scripts/test-engines.sh prepared them
// (npm test runs it first). Never a mock: a missing engine fails the suite, unless AGENTCTL_TEST_ENGINES=skip.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { ROOT } from './cli.js';

export type EngineName = 'docker' | 'podman';

export interface EngineInfo {
  readonly name: EngineName;
  /** The engine's Docker-compatible API socket. */
  readonly socket: string;
  /**
   * Locally imported images, as pinned `sha256:<64 hex>` ids (Docker and Podman ids differ for the same tar). `volume`
   * is busybox declaring `VOLUME /data`, with /data, /run and /var/tmp writable by anyone in the image.
   */
  readonly images: { readonly busybox: string; readonly node: string; readonly volume: string };
}

export interface TestEngines {
  readonly docker: EngineInfo;
  readonly podman: EngineInfo;
}

export const ENGINE_NAMES: readonly EngineName[] = ['docker', 'podman'];
export const ENGINES_FILE = join(ROOT, 'test', '.engines.json');
export const ENGINES_SKIP_REASON = 'AGENTCTL_TEST_ENGINES=skip: no container engine was prepared';

const IMAGE_ID = /^sha256:[0-9a-f]{64}$/;
let loaded: TestEngines | undefined;

export function enginesSkipped(): boolean {
  return process.env.AGENTCTL_TEST_ENGINES === 'skip';
}

/** The prepared engines; undefined only under AGENTCTL_TEST_ENGINES=skip. A missing or malformed file throws. */
export function testEngines(): TestEngines | undefined {
  if (enginesSkipped()) return undefined;
  if (loaded) return loaded;
  if (!existsSync(ENGINES_FILE)) {
    throw new Error(
      `${ENGINES_FILE} is missing: run "bash scripts/test-engines.sh" as root (npm test does), ` +
        'or set AGENTCTL_TEST_ENGINES=skip to mark the container suites pending',
    );
  }
  const raw = JSON.parse(readFileSync(ENGINES_FILE, 'utf8')) as Record<string, unknown>;
  const engine = (name: EngineName): EngineInfo => {
    const entry = raw[name] as { socket?: unknown; images?: Record<string, unknown> } | undefined;
    const busybox = entry?.images?.busybox;
    const node = entry?.images?.node;
    const volume = entry?.images?.volume;
    if (typeof entry?.socket !== 'string' || typeof busybox !== 'string' || typeof node !== 'string' || typeof volume !== 'string') {
      throw new Error(`${ENGINES_FILE}: "${name}" lacks socket or images; rerun scripts/test-engines.sh`);
    }
    for (const id of [busybox, node, volume]) {
      if (!IMAGE_ID.test(id)) throw new Error(`${ENGINES_FILE}: "${name}" image id ${id} is not sha256:<64 hex>`);
    }
    return { name, socket: entry.socket, images: { busybox, node, volume } };
  };
  loaded = { docker: engine('docker'), podman: engine('podman') };
  return loaded;
}

/** One mocha `describe` per engine; under the opt-out, one pending test per engine that says why. */
export function forEachEngine(title: string, body: (engine: EngineInfo) => void): void {
  const engines = testEngines();
  for (const name of ENGINE_NAMES) {
    describe(`${title} [${name}]`, function () {
      if (engines) body(engines[name]);
      else it(`is pending: ${ENGINES_SKIP_REASON}`);
    });
  }
}

export function engineClient(engine: Pick<EngineInfo, 'socket'>): Docker {
  return new Docker({ socketPath: engine.socket });
}

/** Names (without the leading `/`) of every container, in any state, whose name starts with `prefix`. */
export async function containersNamed(engine: Pick<EngineInfo, 'socket'>, prefix: string): Promise<string[]> {
  const containers = await engineClient(engine).listContainers({ all: true, filters: { name: [prefix] } });
  return containers
    .flatMap((container) => container.Names.map((name) => name.replace(/^\//, '')))
    .filter((name) => name.startsWith(prefix))
    .sort();
}

/** True when the engine's API answers `/_ping`. */
export async function engineAnswers(engine: Pick<EngineInfo, 'socket'>): Promise<boolean> {
  try {
    await engineClient(engine).ping();
    return true;
  } catch {
    return false;
  }
}


// --- spare engines: a SECOND engine a test may stop, so the shared ones never go down under other suites ---------

/** An engine started for one test: its own API socket (and for Docker its own daemon, data and state). */
export interface SpareEngine {
  readonly name: EngineName;
  readonly socket: string;
  /** The busybox image, with the same id as the shared engine's. */
  readonly images: { readonly busybox: string };
  readonly process: ChildProcess;
}

const SPARE_RUN = '/run/agentctl-test';
const SPARE_DATA = '/var/lib/agentctl-test';
let spareCount = 0;
const running = new Set<ChildProcess>();
process.once('exit', () => running.forEach((child) => child.kill('SIGKILL')));

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Starts a spare engine. Docker: a second dockerd with its own socket, data-root, exec-root and pidfile, no bridge
 * and no iptables, holding a copy of the busybox image (`save` | `load` keeps the id). Podman: a second
 * `podman system service` on its own socket over the same storage (Podman has no daemon owning the containers, so
 * stopping it stops the API only; containers it started keep running and stay visible through the shared socket).
 */
export async function startEngine(name: EngineName): Promise<SpareEngine> {
  const engines = testEngines();
  if (!engines) throw new Error(ENGINES_SKIP_REASON);
  const id = `${name}-spare-${process.pid}-${(spareCount += 1)}`;
  const execRoot = join(SPARE_RUN, id);
  rmSync(execRoot, { recursive: true, force: true });
  mkdirSync(execRoot, { recursive: true });
  const socket = join(execRoot, 'api.sock');
  const log = openSync(join(execRoot, 'engine.log'), 'a');
  const [command, args] =
    name === 'docker'
      ? ['dockerd', ['--host', `unix://${socket}`, '--data-root', join(SPARE_DATA, id), '--exec-root', execRoot,
          '--pidfile', join(execRoot, 'dockerd.pid'), '--bridge', 'none', '--iptables=false']]
      : ['podman', ['system', 'service', '--time=0', `unix://${socket}`]];
  const child = spawn(command, args as string[], { stdio: ['ignore', log, log] });
  closeSync(log);
  running.add(child);
  child.once('exit', () => running.delete(child));
  const spare: SpareEngine = { name, socket, images: { busybox: engines[name].images.busybox }, process: child };
  try {
    await waitFor(async () => child.exitCode === null && (await engineAnswers(spare)), 60_000, `spare ${name} did not answer on ${socket}`);
    if (name === 'docker') {
      const image = await engineClient(engines.docker).getImage(engines.docker.images.busybox).get();
      const loading = await engineClient(spare).loadImage(image);
      await new Promise((resolve, reject) => loading.on('end', resolve).on('error', reject).resume());
      await engineClient(spare).getImage(spare.images.busybox).inspect();
    }
  } catch (error) {
    const logTail = readFileSync(join(execRoot, 'engine.log'), 'utf8').split('\n').slice(-10).join('\n');
    await stopEngine(spare);
    throw new Error(`spare ${name}: ${(error as Error).message}; its log ended with:\n${logTail}`);
  }
  return spare;
}

/** Stops a spare engine (SIGTERM, then SIGKILL after 30 s) and removes its state; the shared engines are untouched. */
export async function stopEngine(spare: SpareEngine): Promise<void> {
  const child = spare.process;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
  const id = spare.socket.split('/').at(-2)!;
  rmSync(join(SPARE_RUN, id), { recursive: true, force: true });
  rmSync(join(SPARE_DATA, id), { recursive: true, force: true });
}
