// What every process kind does before its process runs, in one place: describe it for `plan` and policy, resolve the
// command, the limits, the environment, the mode's options and mounts, ask the mode where it will run, and build the
// recorded input and the spec of each launch. A kind adds only what is its own (run-time args, stdin, a protocol).
import { z } from 'zod';
import type { DescribeContext, DispatchContext, ProcessDescription } from './action-kind.js';
import type { EffectAccess } from './effects.js';
import { AgentctlError } from './errors.js';
import type { ProcessLimits, ProcessMount, ProcessSpec } from './isolation.js';
import type { JsonObject } from './json.js';
import { outputLimitsOf, processAccessOf, processDescriptionOf, processEnvironment, processLimitsOf, processString, type ProcessActionFields } from './process-action.js';

/** Targets are absolute, normalized paths: no `..` or `.` component, no empty one, no trailing `/`. */
const normalizedTarget = (target: string) => target === '/' || target.slice(1).split('/').every((part) => part !== '' && part !== '.' && part !== '..');

/**
 * One mount, for a kind that takes mounts in its own fields: a workspace path (relative to the workspace root, checked
 * by policy as a read, or as a write when not read-only) or a stored artifact (always read-only), seen at `target`.
 */
export const processMountSchema = z
  .strictObject({
    source: z.union([
      z.strictObject({ workspace: processString().min(1).describe('A path relative to the workspace root.') }),
      z.strictObject({ artifact: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'an artifact is named by its digest: sha256:<64 hex>') }),
    ]),
    target: processString()
      .regex(/^\//, 'a mount target is an absolute path')
      .refine(normalizedTarget, 'a mount target is a normalized path (no "..", "." or empty component)'),
    readOnly: z.boolean().default(true).describe('Read-only (the default): policy judges the source as a read; otherwise as a write.'),
  })
  .refine((mount) => mount.readOnly || !('artifact' in mount.source), { message: 'an artifact is mounted read-only', path: ['readOnly'] });

/** What policy judges of the mounts: a read-only workspace source is a read, a writable one a write. */
export function mountAccessOf(mounts: readonly ProcessMount[]): { reads?: string[]; writes?: string[] } {
  const paths = (readOnly: boolean) => mounts.flatMap((mount) => ('workspace' in mount.source && mount.readOnly === readOnly ? [mount.source.workspace] : []));
  const [reads, writes] = [paths(true), paths(false)];
  return { ...(reads.length > 0 ? { reads } : {}), ...(writes.length > 0 ? { writes } : {}) };
}

/** What the effect of a process kind asks policy for: the tool, the process, its mounts and any writes of the kind's own. */
export function processEffectAccess(action: ProcessActionFields, executable: string, extra: { readonly mounts?: readonly ProcessMount[]; readonly writes?: readonly string[] } = {}): EffectAccess {
  const { reads, writes = [] } = mountAccessOf(extra.mounts ?? []);
  const allWrites = [...(extra.writes ?? []), ...writes];
  return { tool: 'process.exec', process: processAccessOf(action, executable), ...(reads ? { reads } : {}), ...(allWrites.length > 0 ? { writes: allWrites } : {}) };
}

/** How a process kind's `describe` sees its effect and process. */
export interface ProcessDescribeOptions {
  /** The operation the effect names, e.g. `process.exec`. */
  readonly operation: string;
  /** The access the effect asks for once the command resolved (`processEffectAccess` with the kind's own writes). */
  readonly access: (executable: string) => EffectAccess;
  readonly mounts?: readonly ProcessMount[];
}

/**
 * A process kind's `describe`: the effect policy judges before the run (left out while the command does not resolve)
 * and the process `plan` shows. A kind adds its own fields to `process` (artifacts, processesPerEffect).
 */
export function describeProcess(action: ProcessActionFields, context: DescribeContext, options: ProcessDescribeOptions): { effects?: { operation: string; access: EffectAccess }[]; process: ProcessDescription } {
  const process = processDescriptionOf(action, context.process, context.taskTimeoutSeconds ?? context.defaultTimeoutSeconds, options.mounts);
  const executable = process.executable ?? undefined;
  // The access does not depend on the task input (run-time args are data to the program, not to policy).
  return { ...(executable === undefined ? {} : { effects: [{ operation: options.operation, access: options.access(executable) }] }), process };
}

/** One launch of a prepared process: its name (from the effect id), its arguments and what it reads on stdin. */
export interface ProcessLaunch {
  readonly name: string;
  readonly args: readonly string[];
  readonly stdin?: Uint8Array;
}

/** A process checked and placed before its effect is recorded. */
export interface PreparedProcess {
  readonly executable: string;
  readonly limits: ProcessLimits;
  /**
   * What the effect records of the process: command, executable, args, cwd, the environment (a secret by reference
   * and digest), the mode with where it runs, the limits and any mounts. A kind adds its own fields after these.
   */
  readonly recorded: JsonObject;
  /** The spec of one launch under the action's mode, options, environment, mounts and limits. */
  spec(launch: ProcessLaunch): ProcessSpec;
}

/** What `prepareProcess` reads of the dispatch context. */
export type ProcessDispatchContext = Pick<DispatchContext<unknown, unknown>, 'process' | 'secrets' | 'signal' | 'task' | 'resolvePath'>;

/**
 * The dispatch prelude of a process kind, before `context.effect`: the command resolves under the mode (else
 * AGENTCTL_E_COMMAND_NOT_FOUND), and the mode checks where it will run with these options and mounts (e.g. the engine
 * and image of a container; a mount it cannot honour is refused), so nothing is recorded for a process that cannot run.
 * `args` are what the effect records (the kind's launches may add their own).
 */
export async function prepareProcess(action: ProcessActionFields, context: ProcessDispatchContext, options: { readonly args: readonly string[]; readonly mounts?: readonly ProcessMount[] }): Promise<PreparedProcess> {
  const { process } = context;
  const executable = process.resolveCommand(action.isolation, action.command);
  if (!executable) throw new AgentctlError('AGENTCTL_E_COMMAND_NOT_FOUND', `command "${action.command}" does not resolve to an executable under isolation ${action.isolation}`);
  const limits = processLimitsOf(action, context.task.timeoutSeconds);
  const { env, recorded: environment } = processEnvironment(action, context.secrets);
  const modeOptions = process.optionsOf(action);
  const mounts = options.mounts ?? [];
  // The process sees a workspace source at its absolute path; policy judged the path as written.
  const resolved = mounts.map((mount) => ('workspace' in mount.source ? { ...mount, source: { workspace: context.resolvePath(mount.source.workspace) } } : mount));
  const placement = await process.prepare(action.isolation, modeOptions, context.signal, resolved);
  const recorded: JsonObject = {
    command: action.command,
    executable,
    args: [...options.args],
    cwd: action.cwd,
    env: environment,
    isolation: action.isolation,
    ...(Object.keys(placement).length > 0 ? { [action.isolation]: placement } : {}),
    limits: { ...limits },
    ...(mounts.length > 0 ? { mounts: mounts.map((mount) => ({ ...mount, source: { ...mount.source } })) } : {}),
  };
  const spec = (launch: ProcessLaunch): ProcessSpec => ({
    isolation: action.isolation,
    ...(modeOptions ? { options: modeOptions } : {}),
    name: launch.name,
    executable,
    args: launch.args,
    cwd: context.resolvePath(action.cwd),
    env,
    ...(launch.stdin === undefined ? {} : { stdin: launch.stdin }),
    ...(resolved.length > 0 ? { mounts: resolved } : {}),
    timeoutMs: limits.timeoutSeconds * 1000,
    limits: outputLimitsOf(limits),
  });
  return { executable, limits, recorded, spec };
}
