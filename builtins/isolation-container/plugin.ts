// Isolation mode `container`: the process runs in a digest-pinned image through Docker or Podman (their API, through
// dockerode), with a read-only root, no network, no capabilities, uid 65532 and memory, CPU and PID limits.
import { AgentctlError, CONTAINER_ISOLATION, containerOptionsSchema, definePlugin, diagnostic, isAgentctlError, type ContainerOptions, type IsolationMode, type IsolationOptions, type JsonObject } from '@agentctl/sdk';
import type { EngineSelector } from './select.js';

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
