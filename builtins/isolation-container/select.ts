// Choosing the engine for an action's `runtime` and image: `auto` tries Docker, then Podman, and takes the first that
// has the exact image; an explicit engine never falls back. What answers is identified, so `runtime: docker` never
// lands on Podman through a symlinked socket (nor the reverse). A selection is cached for the process lifetime.
import { AgentctlError } from '@agentctl/sdk';
import type { ContainerOptions } from './options.js';
import { ENGINE_LABEL, engineAddress, type EngineName } from './address.js';
import { describeAddress, inspectImage, probe, type Engine, type EngineProblem } from './engine.js';

/** Where an action's containers run: the engine that answered, the id of its copy of the pinned image and the volumes that image declares. */
export interface Selection {
  readonly engine: Engine;
  readonly imageId: string;
  readonly volumes: readonly string[];
}

/** What is needed of the `container` block to choose. */
export type SelectionOptions = Pick<ContainerOptions, 'image' | 'runtime'>;

export type Environment = () => { readonly env: NodeJS.ProcessEnv; readonly uid: number };

/** The engines and images found so far, per (runtime, image). Failures are not kept: the next try looks again. */
export class EngineSelector {
  readonly #cache = new Map<string, Promise<Selection>>();

  constructor(readonly environment: Environment = () => ({ env: process.env, uid: process.getuid?.() ?? -1 })) {}

  select(options: SelectionOptions, signal: AbortSignal): Promise<Selection> {
    const key = `${options.runtime}\0${options.image}`;
    let selection = this.#cache.get(key);
    if (!selection) {
      selection = this.#find(options, signal);
      this.#cache.set(key, selection);
      selection.catch(() => this.#cache.delete(key));
    }
    return selection;
  }

  async #find({ image, runtime }: SelectionOptions, signal: AbortSignal): Promise<Selection> {
    const { env, uid } = this.environment();
    const candidates: EngineName[] = runtime === 'auto' ? ['docker', 'podman'] : [runtime];
    const problems: EngineProblem[] = [];
    const withoutImage: Engine[] = [];
    for (const wanted of candidates) {
      const address = engineAddress(wanted, env, uid);
      const found = await probe(address, signal);
      if ('code' in found) {
        problems.push(found);
        continue;
      }
      if (runtime !== 'auto' && found.identity !== wanted) {
        problems.push({ code: 'AGENTCTL_E_CONTAINER_ENGINE_MISSING', address, reason: `${ENGINE_LABEL[found.identity]} answers there, not ${ENGINE_LABEL[wanted]}` });
        continue;
      }
      const inspected = await inspectImage(found, image, signal);
      if (inspected === undefined) withoutImage.push(found);
      else if ('code' in inspected) problems.push(inspected);
      else return { engine: found, imageId: inspected.id, volumes: inspected.volumes };
    }
    throw await this.#failure(image, runtime, problems, withoutImage, signal);
  }

  /** One error for everything that was tried, with the most useful code: an engine that answered comes first. */
  async #failure(image: string, runtime: ContainerOptions['runtime'], problems: EngineProblem[], withoutImage: Engine[], signal: AbortSignal): Promise<AgentctlError> {
    const tried = [
      ...withoutImage.map((engine) => `${describeAddress(engine.address)}: answers as ${ENGINE_LABEL[engine.identity]} but does not have the image (agentctl never pulls)`),
      ...problems.map((problem) => `${describeAddress(problem.address)}: ${problem.reason}`),
    ].join('; ');
    const message = `runtime ${runtime}: no engine can run image ${image}: ${tried}`;
    if (withoutImage.length > 0) {
      const engines = withoutImage.map((engine) => ENGINE_LABEL[engine.identity]).join(' and ');
      const engine = withoutImage[0]!.identity;
      const how = image.startsWith('sha256:') ? `\`${engine} load\` or \`${engine} import\` it so that its id is ${image}` : `\`${engine} pull ${image}\` (or load it) so that ${image.slice(image.lastIndexOf('@') + 1)} is among its repository digests`;
      return new AgentctlError('AGENTCTL_E_CONTAINER_IMAGE_MISSING', message, { help: `put the image into ${engines} first: ${how}` });
    }
    const code = (['AGENTCTL_E_CONTAINER_ENGINE_STOPPED', 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE', 'AGENTCTL_E_CONTAINER_ENGINE_MISSING'] as const).find((candidate) =>
      problems.some((problem) => problem.code === candidate),
    )!;
    // The reference's words lead: scripts match "requested process isolation is unavailable".
    return new AgentctlError(code, `requested process isolation is unavailable: ${message}`, { help: await this.#help(code, runtime, problems, signal) });
  }

  /** What to do; for an explicit runtime, whether the other engine would have answered. */
  async #help(code: EngineProblem['code'], runtime: ContainerOptions['runtime'], problems: EngineProblem[], signal: AbortSignal): Promise<string> {
    if (runtime !== 'auto') {
      const other: EngineName = runtime === 'docker' ? 'podman' : 'docker';
      const { env, uid } = this.environment();
      const found = await probe(engineAddress(other, env, uid), signal).catch(() => undefined);
      if (found && !('code' in found) && found.identity === other) {
        return `only ${ENGINE_LABEL[other]} answers (at ${found.address.text}): set runtime: ${other} or auto, or start ${ENGINE_LABEL[runtime]}`;
      }
    }
    const variables = problems.map((problem) => (problem.address.engine === 'docker' ? 'DOCKER_HOST' : 'CONTAINER_HOST')).join(' / ');
    if (code === 'AGENTCTL_E_CONTAINER_ENGINE_STOPPED') return 'start the engine (e.g. `dockerd`, `systemctl start docker`, or `podman system service --time=0`), then run again';
    if (code === 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE') return `check ${variables} and the permissions of the socket (agentctl's user must be able to connect to it)`;
    return `install and start ${runtime === 'auto' ? 'Docker or Podman' : ENGINE_LABEL[runtime]}, or point ${variables} at a running engine (unix:///PATH or tcp://HOST:PORT)`;
  }
}
