// The `container` block of SPEC §6, the mode's own options: a digest-pinned image, the engine, and the resource limits;
// and the check across an action's fields under container isolation (no engine variable in its environment).
import { z, type IsolatedAction } from '@agentctl/sdk';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** The isolation mode, and the action field that holds its options. */
export const CONTAINER_ISOLATION = 'container';

/** `NAME@sha256:<64 hex>` or a local image id `sha256:<64 hex>`: a reference that cannot move. */
export const PINNED_IMAGE = /^(?:[A-Za-z0-9][A-Za-z0-9._/:-]*@)?sha256:[0-9a-f]{64}$/;

/** The `container` block: required under isolation: container (its schema takes no `undefined`). */
export const containerOptionsSchema = z
  .strictObject({
    image: z
      .string()
      .regex(PINNED_IMAGE, 'a container image must be pinned by digest: NAME@sha256:<64 hex> or sha256:<64 hex> (a tag can move)')
      .describe('The image, pinned by digest; it must already be present: it is never pulled.'),
    runtime: z.enum(['auto', 'docker', 'podman']).default('auto').describe('The engine: auto tries Docker, then Podman; an explicit engine never falls back.'),
    memoryLimitBytes: z.number().int().min(16 * MiB).max(16 * GiB).default(256 * MiB).describe('Memory limit, 16 MiB to 16 GiB.'),
    cpuLimitMillis: z.number().int().min(1).max(64000).default(1000).describe('CPU limit in thousandths of a CPU, 1 to 64000.'),
    pidsLimit: z.number().int().min(1).max(4096).default(64).describe('Most processes (and threads) at once, 1 to 4096.'),
  })
  .describe('Where and how a container-isolated action runs (with isolation: container only).');

/** The `container` block of a process action, after its schema applied the defaults. */
export type ContainerOptions = z.output<typeof containerOptionsSchema>;

/**
 * Variables a container engine sets or reads itself: an action under container isolation may not set them, so what
 * runs never depends on which engine ran it, and an action cannot point a client inside at another engine.
 */
export const ENGINE_VARIABLES: readonly string[] = ['PATH', 'HOME', 'HOSTNAME', 'TERM', 'TMPDIR', 'USER', 'container', 'XDG_RUNTIME_DIR', 'NOTIFY_SOCKET'];
/** Prefixes of the engines' own variables (DOCKER_HOST, CONTAINER_HOST, CONTAINERS_CONF, PODMAN_USERNS, ...). */
export const ENGINE_VARIABLE_PREFIXES: readonly string[] = ['DOCKER_', 'CONTAINER_', 'CONTAINERS_', 'PODMAN_', 'BUILDAH_'];

/** Whether an environment variable name is a container engine's own, which a container action may not set. */
export const isEngineVariable = (name: string) => ENGINE_VARIABLES.includes(name) || ENGINE_VARIABLE_PREFIXES.some((prefix) => name.startsWith(prefix));

/** A container's environment does not set the engines' own variables. */
export function checkContainerAction(action: IsolatedAction, context: z.RefinementCtx): void {
  for (const name of Object.keys(action.env)) {
    if (isEngineVariable(name)) {
      context.addIssue({ code: 'custom', path: ['env', name], message: `${name} is one of the container engines' own variables (set or read by Docker and Podman); an action under container isolation cannot set it` });
    }
  }
}
