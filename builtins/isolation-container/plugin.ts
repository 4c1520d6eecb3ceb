// Isolation mode `container`: the process runs in a digest-pinned image through Docker or Podman (their API, through
// dockerode), with a read-only root, no network, no capabilities, uid 65532 and memory, CPU and PID limits.
import { AgentctlError, definePlugin, diagnostic, isAgentctlError, type IsolationMode, type IsolationOptions, type JsonObject, type ProcessMount } from '@agentctl/sdk';
import { checkContainerAction, CONTAINER_ISOLATION, containerOptionsSchema, type ContainerOptions } from './options.js';
import type { EngineSelector } from './select.js';

/** Places the container has of its own (or the kernel's): a mount at or below one would hide or replace it. */
const RESERVED_TARGETS = ['/workspace', '/tmp', '/proc', '/sys', '/dev'];

/**
 * Why a mount cannot be bound into a container. Only a workspace path, read-only: SPEC §6 gives a container no
 * writable place but its /tmp, and the mode has no way to the artifact store yet.
 */
export function refuseContainerMount(mount: ProcessMount): string | undefined {
  if (!('workspace' in mount.source)) return 'a container binds workspace paths only (no artifact mounts)';
  if (!mount.readOnly) return "a container's only writable place is its /tmp: workspace paths are bound read-only";
  if (mount.target === '/') return 'the root of a container is its image';
  const reserved = RESERVED_TARGETS.find((target) => mount.target === target || mount.target.startsWith(`${target}/`));
  return reserved === undefined ? undefined : `${reserved} is the container's own mount`;
}

/** The action's `container` block with its defaults; the schema already checked it, so this only fills defaults. */
function containerOptions(options: IsolationOptions | undefined): ContainerOptions {
  const parsed = containerOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) throw new AgentctlError('AGENTCTL_E_SCHEMA', `isolation container needs a valid container block: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/**
 * What the effect records about where it runs. Only what is the same from one run to the next on the same machine:
 * the engine's kind and the image id, never its socket path or version (they would change the effect id).
 */
function placementRecord(options: ContainerOptions, engine: 'docker' | 'podman', imageId: string): JsonObject {
  const { image, runtime, memoryLimitBytes, cpuLimitMillis, pidsLimit } = options;
  return { image, imageId, engine, runtime, memoryLimitBytes, cpuLimitMillis, pidsLimit };
}

/**
 * The mode. Its engine code (an HTTP client, dockerode) is loaded by the first container action, so a workflow
 * without one, and every command that runs none, starts as fast as before the mode existed.
 */
function containerIsolation(): IsolationMode {
  let selecting: Promise<EngineSelector> | undefined;
  const selector = () => (selecting ??= import('./select.js').then((loaded) => new loaded.EngineSelector()));
  return {
    mode: CONTAINER_ISOLATION,
    options: { key: CONTAINER_ISOLATION, schema: containerOptionsSchema, checkAction: checkContainerAction },
    refuseMount: refuseContainerMount,
    description: 'a container of a digest-pinned image through Docker or Podman: read-only root, no network, no capabilities, uid 65532, memory/CPU/PID limits',
    // The command runs inside the image: it cannot be checked on the host. A bare name is found by the image's PATH.
    resolveCommand: (command) => command,
    async prepare(options, signal) {
      const container = containerOptions(options);
      const { engine, imageId } = await (await selector()).select(container, signal);
      return placementRecord(container, engine.identity, imageId);
    },
    async run(spec, signal) {
      const container = containerOptions(spec.options);
      const placement = await (await selector()).select(container, signal);
      const { runContainer } = await import('./container.js');
      return runContainer(placement, container, spec, signal);
    },
  };
}

export default definePlugin({
  name: 'builtin.isolation.container',
  version: '0.1.0',
  hostRange: '^0.1.0',
  description: 'Runs processes in containers of digest-pinned images through Docker or Podman; never pulls, never falls back to the host.',
  setup(api) {
    const mode = containerIsolation();
    api.registerIsolation(mode);
    // The engine and image of every container task are checked before the run exists: nothing is recorded otherwise.
    api.hooks.preflight.tapPromise('builtin.isolation.container', async (context) => {
      const tasksByOptions = new Map<string, { options: IsolationOptions; tasks: string[] }>();
      for (const task of context.tasks) {
        const action = task.action as { isolation?: unknown; container?: IsolationOptions };
        if (action.isolation !== CONTAINER_ISOLATION || !action.container) continue;
        const key = JSON.stringify([action.container.runtime, action.container.image]);
        const entry = tasksByOptions.get(key) ?? { options: action.container, tasks: [] };
        entry.tasks.push(task.id);
        tasksByOptions.set(key, entry);
      }
      // One diagnostic per distinct (runtime, image), naming every task that needs it.
      await Promise.all(
        [...tasksByOptions.values()].map(async ({ options, tasks }) => {
          try {
            await mode.prepare!(options, context.signal);
          } catch (error) {
            if (!isAgentctlError(error)) throw error;
            const help = error.diagnostics[0]?.help;
            context.report(diagnostic(error.code, { message: `task ${tasks.join(', ')}: ${error.message}`, taskId: tasks[0]!, ...(help ? { help } : {}) }));
          }
        }),
      );
    });
  },
});
