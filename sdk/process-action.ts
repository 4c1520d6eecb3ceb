// The fields every process-family action shares (builtin.shell.exec, extension.process, a pack's own process kinds):
// the command and how it runs, the isolation mode, and the limits. One schema, so the workflow format is the same for
// every kind that starts a process. A mode's options block (`container:`) is the mode's own: the host adds the block
// of every registered mode to a schema with these fields (IsolationMode.options).
import { z } from 'zod';
import type { ProcessDescription } from './action-kind.js';
import type { ProcessAccess } from './effects.js';
import { diagnostic } from './errors.js';
import type { PreflightContext } from './hooks.js';
import { processLimitFields, type OutputLimits, type ProcessLimits, type ProcessMount, type ProcessService } from './isolation.js';
import type { JsonObject } from './json.js';
import { secretReferenceSchema, type SecretReference, type TaskSecrets } from './secrets.js';

/** A string the kernel can pass to a process: no NUL byte. */
export const processString = () => z.string().refine((text) => !text.includes('\0'), 'must not contain a NUL byte');

/**
 * The fields of a process action, for a kind to spread into its own strict schema. The host recognizes a process kind
 * by the `command` and `isolation` fields of its schema and adds there the options block of every registered mode.
 */
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
  ...processLimitFields,
};

/** The process fields of an action, as its kind's schema parsed them. */
export interface ProcessActionFields {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | SecretReference>>;
  readonly isolation: string;
  readonly timeoutSeconds?: number | undefined;
  readonly stdoutLimitBytes: number;
  readonly stderrLimitBytes: number;
  readonly combinedOutputLimitBytes: number;
}

/** The secret references among an action's env values, for the kind's `secretReferences`. */
export const processSecretReferences = (action: ProcessActionFields): SecretReference[] =>
  Object.values(action.env).filter((value): value is SecretReference => typeof value !== 'string');

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

/**
 * How `plan` shows the process of an action (`artifacts` and `processesPerEffect` are the kind's to add): the
 * executable as its mode resolves it (null when it does not, or the mode is unknown), the mode's options and the mounts.
 */
export function processDescriptionOf(action: ProcessActionFields, process: ProcessService, fallbackTimeoutSeconds: number, mounts: readonly ProcessMount[] = []): ProcessDescription {
  const known = process.hasMode(action.isolation);
  const executable = known ? process.resolveCommand(action.isolation, action.command) : undefined;
  const options = known ? process.optionsOf(action) : undefined;
  return {
    command: action.command,
    executable: executable ?? null,
    args: action.args,
    cwd: action.cwd,
    environment: Object.keys(action.env),
    isolation: action.isolation,
    ...(options ? { options } : {}),
    ...(mounts.length > 0 ? { mounts } : {}),
    limits: processLimitsOf(action, fallbackTimeoutSeconds),
  };
}

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
