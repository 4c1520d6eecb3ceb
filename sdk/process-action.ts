// The fields every process-family action shares (builtin.shell.exec, extension.process, a pack's own process kinds):
// the command and how it runs, the isolation mode with its `container` block, and the limits. One schema, so the
// workflow format is the same for every kind that starts a process.
import { z } from 'zod';
import type { ProcessDescription } from './action-kind.js';
import type { ProcessAccess } from './effects.js';
import { diagnostic } from './errors.js';
import type { PreflightContext } from './hooks.js';
import { processLimitFields, type IsolationOptions, type OutputLimits, type ProcessLimits } from './isolation.js';
import type { JsonObject } from './json.js';
import { secretReferenceSchema, type SecretReference, type TaskSecrets } from './secrets.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** A string the kernel can pass to a process: no NUL byte. */
export const processString = () => z.string().refine((text) => !text.includes('\0'), 'must not contain a NUL byte');

/** `NAME@sha256:<64 hex>` or a local image id `sha256:<64 hex>`: a reference that cannot move. */
export const PINNED_IMAGE = /^(?:[A-Za-z0-9][A-Za-z0-9._/:-]*@)?sha256:[0-9a-f]{64}$/;

/** The `container` block of SPEC §6: a digest-pinned image, the engine, and the resource limits. */
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

/** The fields of a process action, for a kind to spread into its own strict schema and check with `checkProcessAction`. */
export const processActionFields = {
  command: processString()
    .min(1)
    .refine((command) => command.startsWith('/') || !command.includes('/'), 'command must be an absolute path or a bare name (no relative paths)')
    .describe('Absolute path, or a bare name looked up in /usr/local/bin:/usr/bin:/bin (never PATH).'),
  args: z.array(processString()).default([]).describe('Arguments, passed directly: there is never a shell.'),
  cwd: processString().min(1).default('.').describe('Working directory inside the workspace root.'),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment names are letters, digits and "_"'), z.union([processString(), secretReferenceSchema]))
    .default({})
    .describe('The child environment (otherwise empty): a secret reference such as {env: NAME}, or a plain non-secret string.'),
  isolation: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'an isolation mode is a lower-case name such as process or container')
    .default('process')
    .describe('The isolation mode that runs the process: process (a child process; not a sandbox) or container (a digest-pinned image through Docker or Podman).'),
  container: containerOptionsSchema.optional(),
  ...processLimitFields,
};

/** The name of the isolation mode the `container` block belongs to. */
export const CONTAINER_ISOLATION = 'container';

/**
 * The checks across fields of a process action: a `container` block goes with `isolation: container` and only
 * with it, and a container's environment does not set the engines' own variables. For `.superRefine`.
 */
export function checkProcessAction(action: { isolation: string; container?: unknown; env: Record<string, unknown> }, context: z.RefinementCtx): void {
  const contained = action.isolation === CONTAINER_ISOLATION;
  if (contained && action.container === undefined) {
    context.addIssue({ code: 'custom', path: ['container'], message: 'isolation: container needs a container block with at least image (NAME@sha256:<64 hex> or sha256:<64 hex>)' });
  }
  if (!contained && action.container !== undefined) {
    context.addIssue({ code: 'custom', path: ['container'], message: `a container block applies only with isolation: container (this action uses isolation: ${action.isolation})` });
  }
  if (!contained) return;
  for (const name of Object.keys(action.env)) {
    if (isEngineVariable(name)) {
      context.addIssue({ code: 'custom', path: ['env', name], message: `${name} is one of the container engines' own variables (set or read by Docker and Podman); an action under container isolation cannot set it` });
    }
  }
}

/** The process fields of an action, as its kind's schema parsed them. */
export interface ProcessActionFields {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | SecretReference>>;
  readonly isolation: string;
  readonly container?: ContainerOptions | undefined;
  readonly timeoutSeconds?: number | undefined;
  readonly stdoutLimitBytes: number;
  readonly stderrLimitBytes: number;
  readonly combinedOutputLimitBytes: number;
}

/** The secret references among an action's env values, for the kind's `secretReferences`. */
export const processSecretReferences = (action: ProcessActionFields): SecretReference[] =>
  Object.values(action.env).filter((value): value is SecretReference => typeof value !== 'string');

/** The action's options for its isolation mode: the `container` block under container isolation, else none. */
export const isolationOptionsOf = (action: ProcessActionFields): IsolationOptions | undefined =>
  action.isolation === CONTAINER_ISOLATION && action.container ? { ...action.container } : undefined;

/** The resource bounds of a process action; the timeout falls back to the task's (or the run's default). */
export function processLimitsOf(action: ProcessActionFields, fallbackTimeoutSeconds: number): ProcessLimits {
  return {
    timeoutSeconds: action.timeoutSeconds ?? fallbackTimeoutSeconds,
    stdoutLimitBytes: action.stdoutLimitBytes,
    stderrLimitBytes: action.stderrLimitBytes,
    combinedOutputLimitBytes: action.combinedOutputLimitBytes,
  };
}

/** The output limits of a process spec, from the action's limits. */
export const outputLimitsOf = (limits: ProcessLimits): OutputLimits => ({ stdout: limits.stdoutLimitBytes, stderr: limits.stderrLimitBytes, combined: limits.combinedOutputLimitBytes });

/** What policy sees of the process an action starts (`describe` and dispatch build the same). */
export const processAccessOf = (action: ProcessActionFields, executable: string): ProcessAccess => ({
  executable,
  command: action.command,
  cwd: action.cwd,
  environment: Object.keys(action.env),
  isolation: action.isolation,
});

/** How `plan` shows the process of an action (`artifacts` and `processesPerEffect` are the kind's to add). */
export const processDescriptionOf = (action: ProcessActionFields, executable: string | undefined, fallbackTimeoutSeconds: number): ProcessDescription => {
  const options = isolationOptionsOf(action);
  return {
    command: action.command,
    executable: executable ?? null,
    args: action.args,
    cwd: action.cwd,
    environment: Object.keys(action.env),
    isolation: action.isolation,
    ...(options ? { options } : {}),
    limits: processLimitsOf(action, fallbackTimeoutSeconds),
  };
};

/**
 * The child's environment, and what the effect records of it: a plain value as is, a secret by its reference and a
 * keyed digest, never its value.
 */
export function processEnvironment(action: ProcessActionFields, secrets: TaskSecrets): { env: Record<string, string>; recorded: JsonObject } {
  const env: Record<string, string> = {};
  const recorded: JsonObject = {};
  for (const [name, value] of Object.entries(action.env)) {
    if (typeof value === 'string') {
      env[name] = value;
      recorded[name] = { value };
    } else {
      env[name] = secrets.value(value);
      recorded[name] = { secret: value as JsonObject, digest: secrets.digest(value) };
    }
  }
  return { env, recorded };
}

/**
 * A preflight check for the tasks of a process kind: each command resolves to an executable under its isolation
 * mode, so a missing command fails before the run exists, not halfway through it.
 */
export function commandPreflight(kind: string): (context: PreflightContext) => Promise<void> {
  return async (context) => {
    for (const task of context.tasks) {
      if (task.kind !== kind) continue;
      const { command, isolation } = task.action as Pick<ProcessActionFields, 'command' | 'isolation'>;
      if (context.process.resolveCommand(isolation, command)) continue;
      context.report(
        diagnostic('AGENTCTL_E_COMMAND_NOT_FOUND', {
          message: `task ${task.id}: command "${command}" does not resolve to an executable under isolation ${isolation}`,
          taskId: task.id,
          help: 'use an absolute path or a command installed in /usr/local/bin, /usr/bin or /bin (process isolation never uses PATH)',
        }),
      );
    }
  };
}
