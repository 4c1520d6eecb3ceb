// Where each engine's API is: DOCKER_HOST / CONTAINER_HOST when set, else the engine's default socket. Pure: the
// environment and uid are passed in, so the rules are tested without an engine.

export type EngineName = 'docker' | 'podman';

/** One engine's API address, and where it came from (for messages). */
export interface EngineAddress {
  readonly engine: EngineName;
  /** As a user would write it, e.g. `unix:///var/run/docker.sock`. */
  readonly text: string;
  /** The variable it came from, or undefined for the default socket. */
  readonly variable: 'DOCKER_HOST' | 'CONTAINER_HOST' | undefined;
  readonly socketPath?: string;
  readonly host?: string;
  readonly port?: number;
  /** Set when the address cannot be used at all (e.g. an ssh:// or malformed value). */
  readonly unsupported?: string;
}

export const DOCKER_DEFAULT_SOCKET = '/var/run/docker.sock';
export const PODMAN_ROOTFUL_SOCKET = '/run/podman/podman.sock';

export const ENGINE_LABEL: Record<EngineName, string> = { docker: 'Docker', podman: 'Podman' };

/** The API address of `engine` under this environment and user. */
export function engineAddress(engine: EngineName, environment: NodeJS.ProcessEnv, uid: number): EngineAddress {
  const variable = engine === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST';
  const configured = environment[variable];
  if (configured !== undefined && configured !== '') return parseAddress(engine, variable, configured);
  return { engine, text: `unix://${defaultSocket(engine, environment, uid)}`, variable: undefined, socketPath: defaultSocket(engine, environment, uid) };
}

/** Docker's one default socket; Podman's rootful socket for root, else the rootless one of this user. */
function defaultSocket(engine: EngineName, environment: NodeJS.ProcessEnv, uid: number): string {
  if (engine === 'docker') return DOCKER_DEFAULT_SOCKET;
  if (uid === 0) return PODMAN_ROOTFUL_SOCKET;
  const runtimeDir = environment.XDG_RUNTIME_DIR || `/run/user/${uid}`;
  return `${runtimeDir}/podman/podman.sock`;
}

function parseAddress(engine: EngineName, variable: 'DOCKER_HOST' | 'CONTAINER_HOST', text: string): EngineAddress {
  const base = { engine, text, variable };
  if (text.startsWith('unix://')) {
    const socketPath = text.slice('unix://'.length);
    if (!socketPath.startsWith('/')) return { ...base, unsupported: `${variable}=${text} is not an absolute unix:// socket path` };
    return { ...base, socketPath };
  }
  if (text.startsWith('tcp://')) {
    let url: URL;
    try {
      url = new URL(`http://${text.slice('tcp://'.length)}`);
    } catch {
      return { ...base, unsupported: `${variable}=${text} is not a valid tcp://HOST:PORT address` };
    }
    if (url.port === '') return { ...base, unsupported: `${variable}=${text} names no port (tcp://HOST:PORT)` };
    return { ...base, host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) };
  }
  // ssh://, npipe:// and TLS need credentials or a platform agentctl does not handle: say so rather than guess.
  return { ...base, unsupported: `${variable}=${text} uses a scheme agentctl does not support (only unix:///PATH and plain tcp://HOST:PORT)` };
}
