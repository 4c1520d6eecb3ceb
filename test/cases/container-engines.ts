// The engines the container cases run on: each engine's socket and the id of its busybox test image (imported by
// scripts/test-engines.sh as agentctl-test/busybox:1), or undefined when the engine is not there.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

export interface TestEngine {
  readonly name: 'docker' | 'podman';
  readonly socket: string;
  readonly busybox: string;
}

const SOCKETS = { docker: '/run/docker.sock', podman: '/run/podman/podman.sock' } as const;

function imageId(name: 'docker' | 'podman', socket: string): string | undefined {
  try {
    const id = execFileSync('curl', ['--silent', '--fail', '--max-time', '5', '--unix-socket', socket, 'http://d/images/agentctl-test%2Fbusybox:1/json'], { encoding: 'utf8' });
    const found = JSON.parse(id).Id as string;
    return found.startsWith('sha256:') ? found : `sha256:${found}`;
  } catch {
    return undefined;
  }
}

export function containerEngines(): { docker?: TestEngine; podman?: TestEngine } {
  const found: { docker?: TestEngine; podman?: TestEngine } = {};
  for (const name of ['docker', 'podman'] as const) {
    const socket = SOCKETS[name];
    const busybox = existsSync(socket) ? imageId(name, socket) : undefined;
    if (busybox) found[name] = { name, socket, busybox };
  }
  return found;
}
