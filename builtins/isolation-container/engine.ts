// Reaching an engine: connect to its address, ask it what it is (GET /version), and inspect the exact image. Each
// failure becomes a finding with its stable code; the selection in select.ts turns findings into one error.
import { stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type Docker from 'dockerode';
import type { ErrorCode } from '@agentctl/sdk';
import { ENGINE_LABEL, type EngineAddress, type EngineName } from './address.js';
import { declaredVolumes } from './mounts.js';

/** Every short API call (version, inspect, create, start, kill, remove) is abandoned after this long. */
export const API_TIMEOUT_MS = 15_000;

/** An engine that answered, and what it answered as. */
export interface Engine {
  readonly address: EngineAddress;
  /** What the service says it is (a Podman service answers the Docker API under its own name). */
  readonly identity: EngineName;
  /** For short calls: the connection is dropped when it idles past the API timeout, so nothing hangs on a stuck engine. */
  readonly client: Docker;
  /** For attach and wait, which last as long as the process: no client-side timeout. */
  readonly streams: Docker;
}

/** Why an engine could not be used; `code` is one of the container engine codes. */
export interface EngineProblem {
  readonly code: Extract<ErrorCode, `AGENTCTL_E_CONTAINER_${string}`>;
  readonly address: EngineAddress;
  /** What went wrong, e.g. "nothing listens on the socket". */
  readonly reason: string;
}

/** Thrown by `call` when an API call takes longer than the API timeout. */
export class ApiTimeout extends Error {
  override readonly name = 'ApiTimeout';
}

/**
 * One API call, bounded: it rejects with ApiTimeout after `ms`, or with the signal's reason when `signal` aborts
 * (dockerode honours an abort signal on some calls only, so the bound is kept here).
 */
export function call<T>(request: () => Promise<T>, signal?: AbortSignal, ms = API_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => done(() => reject(signal!.reason));
    const timer = setTimeout(() => done(() => reject(new ApiTimeout(`no answer within ${ms / 1000}s`))), ms);
    let settled = false;
    const done = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    request().then(
      (value) => done(() => resolve(value)),
      (error: unknown) => done(() => reject(error)),
    );
  });
}

/** Connects to an address and identifies what answers there. */
export async function probe(address: EngineAddress, signal: AbortSignal): Promise<Engine | EngineProblem> {
  if (address.unsupported) return { code: 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE', address, reason: address.unsupported };
  if (address.socketPath) {
    try {
      const info = await stat(address.socketPath);
      if (!info.isSocket()) return { code: 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE', address, reason: `${address.socketPath} is not a socket` };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return { code: 'AGENTCTL_E_CONTAINER_ENGINE_MISSING', address, reason: `no socket exists at ${address.socketPath}` };
      return { code: 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE', address, reason: `${address.socketPath} cannot be examined (${code ?? String(error)})` };
    }
  }
  // dockerode (and what it pulls in) is loaded on the first container action, never at start-up.
  const { default: Docker } = await import('dockerode');
  const connect = (timeout?: number) =>
    address.socketPath ? new Docker({ socketPath: address.socketPath, ...(timeout ? { timeout } : {}) }) : new Docker({ host: address.host!, port: address.port!, protocol: 'http', ...(timeout ? { timeout } : {}) });
  // The client's own idle timeout is a backstop a little past `call`'s bound: it closes the connection of a call
  // that `call` already gave up on.
  const client = connect(API_TIMEOUT_MS + 1000);
  let identity: EngineName | undefined;
  try {
    // GET /_ping names the server in its headers and is instant; GET /version (slow on Podman: it asks conmon and the
    // OCI runtime for their versions) only when the headers do not say.
    identity = identifyPing(await call(() => ping(address), signal)) ?? identify(await call(() => client.version(), signal));
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return { ...connectionProblem(error, address), address };
  }
  if (!identity) return { code: 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE', address, reason: 'what answers there does not identify itself as Docker or Podman (GET /_ping, GET /version)' };
  return { address, identity, client, streams: connect() };
}

/** The headers of GET /_ping (dockerode's ping returns only the body). */
function ping(address: EngineAddress): Promise<IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ ...(address.socketPath ? { socketPath: address.socketPath } : { host: address.host, port: address.port }), method: 'GET', path: '/_ping' }, (response) => {
      response.resume();
      if (response.statusCode === 200) resolve(response.headers);
      else reject(new Error(`GET /_ping answered HTTP ${response.statusCode}`));
    });
    request.setTimeout(API_TIMEOUT_MS + 1000, () => request.destroy());
    request.once('error', reject);
    request.end();
  });
}

/** Podman's API service sends Libpod-Api-Version and `Server: Libpod/...`; Docker's daemon `Server: Docker/...`. */
export function identifyPing(headers: IncomingHttpHeaders): EngineName | undefined {
  const server = String(headers.server ?? '');
  if (headers['libpod-api-version'] !== undefined || /^libpod\//i.test(server)) return 'podman';
  if (/^docker\//i.test(server)) return 'docker';
  return undefined;
}

/** Podman names itself among the components of GET /version; Docker's daemon is the component "Engine". */
export function identify(version: { Platform?: { Name?: string }; Components?: { Name?: string }[] }): EngineName | undefined {
  const names = [version.Platform?.Name ?? '', ...(version.Components ?? []).map((component) => component.Name ?? '')];
  if (names.some((name) => /podman/i.test(name))) return 'podman';
  if (names.some((name) => name === 'Engine' || /docker/i.test(name))) return 'docker';
  return undefined;
}

function connectionProblem(error: unknown, address: EngineAddress): Omit<EngineProblem, 'address'> {
  const code = (error as NodeJS.ErrnoException).code;
  const name = (error as Error).name;
  const where = address.socketPath ?? `${address.host}:${address.port}`;
  if (name === 'ApiTimeout') return { code: 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE', reason: `${where} did not answer within ${API_TIMEOUT_MS / 1000}s` };
  if (code === 'ECONNREFUSED' && address.socketPath) return { code: 'AGENTCTL_E_CONTAINER_ENGINE_STOPPED', reason: `the socket ${where} exists but nothing listens on it` };
  if (code === 'ENOENT') return { code: 'AGENTCTL_E_CONTAINER_ENGINE_MISSING', reason: `no socket exists at ${where}` };
  if (code === 'EACCES' || code === 'EPERM') return { code: 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE', reason: `permission denied on ${where}` };
  return { code: 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE', reason: `${where} cannot be reached: ${code ?? (error as Error).message}` };
}

/** A local image: its id, and the volumes it declares (see mounts.ts). */
export interface ImageFound {
  readonly id: string;
  readonly volumes: readonly string[];
}

/** The image when the engine has exactly this pinned image, else undefined. Never pulls. */
export async function inspectImage(engine: Engine, image: string, signal: AbortSignal): Promise<ImageFound | undefined | EngineProblem> {
  let found: Docker.ImageInspectInfo;
  try {
    found = await call(() => engine.client.getImage(image).inspect(), signal);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    return { ...connectionProblem(error, engine.address), address: engine.address };
  }
  const id = found.Id.startsWith('sha256:') ? found.Id : `sha256:${found.Id}`;
  return pinnedBy(image, id, found.RepoDigests ?? []) ? { id, volumes: declaredVolumes(found.Config?.Volumes) } : undefined;
}

/**
 * Whether an inspected image is the one a pinned reference names: `sha256:<id>` must be its id, `NAME@sha256:<digest>`
 * one of its repository digests (names compared without the registry defaults `docker.io/`, `library/`, `localhost/`).
 */
export function pinnedBy(reference: string, id: string, repoDigests: readonly string[]): boolean {
  const at = reference.lastIndexOf('@');
  if (at < 0) return reference === id;
  const [name, digest] = [reference.slice(0, at), reference.slice(at + 1)];
  return repoDigests.some((entry) => {
    const split = entry.lastIndexOf('@');
    return split > 0 && entry.slice(split + 1) === digest && shortName(entry.slice(0, split)) === shortName(name);
  });
}

const shortName = (name: string) => name.replace(/^(docker\.io|localhost)\//, '').replace(/^library\//, '');

/** How an engine is named in messages: "Docker at unix:///var/run/docker.sock (DOCKER_HOST)". */
export const describeAddress = (address: EngineAddress) =>
  `${ENGINE_LABEL[address.engine]} at ${address.text} (${address.variable ? `from ${address.variable}` : `the default; ${address.engine === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST'} is not set`})`;
