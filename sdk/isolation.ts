// The process family: what a kind hands the host's process service, what an isolation mode returns, and the
// limits every process action shares. Kinds never spawn; isolation modes (keyed by name) do.
import { z } from 'zod';
import type { JsonObject, JsonValue } from './json.js';

const MiB = 1024 * 1024;

/** Output limits of a process, in bytes. */
export interface OutputLimits {
  readonly stdout: number;
  readonly stderr: number;
  readonly combined: number;
}

/** Resource bounds of a process action, as `plan` shows them. */
export interface ProcessLimits {
  readonly timeoutSeconds: number;
  readonly stdoutLimitBytes: number;
  readonly stderrLimitBytes: number;
  readonly combinedOutputLimitBytes: number;
}

const byteLimit = (fallback: number) => z.number().int().min(1).max(16 * MiB).default(fallback);

/**
 * The limit fields of a process action (SPEC §5), for a kind's action schema to spread:
 * `z.strictObject({ ...processLimitFields, command: ... })`.
 */
export const processLimitFields = {
  timeoutSeconds: z.number().int().min(1).max(86400).optional(),
  stdoutLimitBytes: byteLimit(MiB),
  stderrLimitBytes: byteLimit(MiB),
  combinedOutputLimitBytes: byteLimit(2 * MiB),
};

/** The action's options for its isolation mode (the `container` block for `container`), defaults applied. */
export type IsolationOptions = Readonly<Record<string, JsonValue>>;

/**
 * Where a mount's content comes from: a path in the workspace (as written in a description, resolved to an absolute
 * path inside the workspace in a process spec), or a stored artifact by its digest (`sha256:<64 hex>`).
 */
export type MountSource = { readonly workspace: string } | { readonly artifact: string };

/** Something a process sees at `target` (an absolute path in its own file system view), read-only or not. */
export interface ProcessMount {
  readonly source: MountSource;
  readonly target: string;
  readonly readOnly: boolean;
}

/** What the process fields of an action look like to a mode's cross-field check. */
export interface IsolatedAction {
  readonly isolation: string;
  readonly env: Readonly<Record<string, unknown>>;
}

/**
 * The options block an isolation mode takes in a process action: `isolation: container` reads the `container:` block.
 * The host adds the block of every registered mode to each process kind's action schema, so a kind never names one.
 */
export interface IsolationOptionsDeclaration {
  /** The action field that holds the block, e.g. `container`. A block is refused unless the action selects its mode. */
  readonly key: string;
  /**
   * The block's schema, strict, with its defaults. It is given `undefined` when the action has no block: a required
   * block fails there (reported as a missing field), an optional one gives its schema a default. It parses its own
   * output again (the compiled plan is read back before the process runs).
   */
  readonly schema: z.ZodType<IsolationOptions | undefined>;
  /** Checks across the action's fields under this mode (e.g. environment names the engine owns), as issues at their paths. */
  readonly checkAction?: (action: IsolatedAction, context: z.RefinementCtx) => void;
}

/** One process to run, fully resolved and already authorized by policy. */
export interface ProcessSpec {
  /** The isolation mode that runs it, e.g. `process`. */
  readonly isolation: string;
  /** The action's options for that mode, e.g. the image and limits of a container. */
  readonly options?: IsolationOptions;
  /**
   * A name unique to this process, derived from the effect id (e.g. `<effect id>-invoke`). A mode that leaves
   * something behind on a crash (a container) names it after this, so an operator or a later run can find it.
   */
  readonly name?: string;
  /** What `resolveCommand` returned for the action's command. */
  readonly executable: string;
  readonly args: readonly string[];
  /** Absolute working directory, inside the workspace. */
  readonly cwd: string;
  /** The child's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Bytes written to the child's stdin, which is then closed; without it stdin is /dev/null. */
  readonly stdin?: Uint8Array;
  /** What the process sees besides its working directory; a workspace source is an absolute path inside the workspace. */
  readonly mounts?: readonly ProcessMount[];
  readonly timeoutMs: number;
  readonly limits: OutputLimits;
}

/** What a process left behind, however it ended. */
export interface ProcessCapture {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly durationMs: number;
  /** True when a byte limit cut the output. */
  readonly truncated: boolean;
  /**
   * Set when what ran could not be cleaned up afterwards (e.g. its container could not be removed). Whatever the
   * ending, the effect is then uncertain: something of it is still there.
   */
  readonly cleanupError?: string;
}

/** How a process ended. */
export type ProcessEnd =
  | { readonly end: 'exited'; readonly exitCode: number | null; readonly signal: NodeJS.Signals | null }
  | { readonly end: 'overflow'; readonly stream: 'stdout' | 'stderr' | 'combined'; readonly limit: number }
  /** Killed by its isolation mode's resource control, e.g. a container's memory limit: a definite failure. */
  | { readonly end: 'resource_limit'; readonly resource: 'memory'; readonly limit: number }
  | { readonly end: 'timeout' }
  | { readonly end: 'aborted'; readonly reason: unknown }
  | { readonly end: 'spawn_error'; readonly message: string };

/** The result of running a process: its capture and how it ended. Never thrown: every ending is a value. */
export type ProcessResult = ProcessCapture & ProcessEnd;

/** What an isolation mode guarantees on this machine about the processes a program starts, as `doctor` reports it. */
export interface IsolationHostReport {
  /**
   * True when a timeout, a cancellation or the program's own exit ends every process it started, including one that
   * left its process group and parent (setsid, a daemonizing double fork).
   */
  readonly endsEveryDescendant: boolean;
  /** How, or why not, in plain words. */
  readonly detail: string;
}

/** An isolation mode: how a process spec becomes a running, bounded, killable process. One plugin owns each mode. */
export interface IsolationMode {
  /** The key actions name in `isolation:`, e.g. `process`. */
  readonly mode: string;
  readonly description: string;
  /** The options block the mode takes in an action (e.g. `container:`); without it an action gives the mode none. */
  readonly options?: IsolationOptionsDeclaration;
  /**
   * Why this mode cannot honour `mount`, or undefined when it can. The host refuses a spec with a mount the mode cannot
   * honour before `prepare` (AGENTCTL_E_MOUNT_UNSUPPORTED); a mode without this method honours no mount.
   */
  refuseMount?(mount: ProcessMount): string | undefined;
  /** What will be executed for a command as written, or undefined when it does not resolve. */
  resolveCommand(command: string): string | undefined;
  /**
   * Checks that processes with these options can run now (e.g. the engine answers and the image is present) and
   * returns what the effect records about where they run (e.g. the engine chosen). Throws an AgentctlError naming
   * what is missing. Called in preflight and before each effect, so it should cache what is slow to find out.
   */
  prepare?(options: IsolationOptions | undefined, signal: AbortSignal): Promise<JsonObject>;
  /** What this mode can guarantee here (e.g. whether descendants are contained); `doctor` shows it. */
  hostReport?(): IsolationHostReport;
  /** Runs the process; aborting `signal` kills it (and everything it started) and ends it as `aborted`. */
  run(spec: ProcessSpec, signal: AbortSignal): Promise<ProcessResult>;
}

/** The host's process service: the only way a process-family kind starts a process. */
export interface ProcessService {
  /** Whether a mode is registered. */
  hasMode(isolation: string): boolean;
  /** What `command` resolves to under `isolation`, or undefined. Throws AGENTCTL_E_UNKNOWN_ISOLATION for an unknown mode. */
  resolveCommand(isolation: string, command: string): string | undefined;
  /**
   * The action's options for its mode: the block under the mode's key, parsed by the mode's schema (defaults applied);
   * undefined for a mode that takes no options. Throws AGENTCTL_E_UNKNOWN_ISOLATION for an unknown mode.
   */
  optionsOf(action: IsolatedAction): IsolationOptions | undefined;
  /**
   * The mode's `prepare` (an empty record for a mode without one): where processes with these options will run.
   * Refuses first, with AGENTCTL_E_MOUNT_UNSUPPORTED, a mount the mode cannot honour.
   */
  prepare(isolation: string, options: IsolationOptions | undefined, signal: AbortSignal, mounts?: readonly ProcessMount[]): Promise<JsonObject>;
}

/** The process service as a dispatch function gets it: it can also run a process, under the task's signal. */
export interface DispatchProcessService extends ProcessService {
  /** Runs `spec` under its isolation mode; the task's cancellation and deadline abort it unless `signal` is given. */
  run(spec: ProcessSpec, signal?: AbortSignal): Promise<ProcessResult>;
}
