// An action kind: its schemas, effect profile and the dispatch function that performs one task of it.
import type { z } from 'zod';
import type { EffectAccess, EffectOptions, EffectProfile, EffectRequest } from './effects.js';
import type { FileService } from './files.js';
import type { DispatchProcessService, IsolationOptions, ProcessLimits, ProcessMount, ProcessService } from './isolation.js';
import type { JsonValue } from './json.js';
import type { LongTermMemoryService } from './long-term-memory.js';
import type { NetworkClient } from './network.js';
import type { ContinuedCall, ProtocolCall } from './protocol-call.js';
import type { SecretReference, TaskSecrets } from './secrets.js';
import type { SpecSectionValues } from './spec-section.js';
import type { MemoryWriteKeys, WorkingMemory } from './working-memory.js';

/** How `redact` treats a text. */
export interface RedactOptions {
  /** The text was cut short before it got here (a byte limit, a timeout, a cancellation): an end that begins a secret is hidden too. */
  readonly truncated?: boolean;
  /**
   * Shortens the text to at most this many characters, then `…`: redacted first, then cut (never inside a
   * `[REDACTED]`), then an end that begins a secret is hidden. Text cut before redaction can keep a piece of a secret.
   */
  readonly limit?: number;
}

/** The read-only view a dispatch function gets of one task execution. */
export interface DispatchContext<Action = unknown, Input = unknown> {
  readonly kind: string;
  readonly actionName: string;
  readonly action: Readonly<Action>;
  readonly input: Readonly<Input>;
  readonly task: { readonly id: string; readonly attempt: number; readonly timeoutSeconds: number };
  readonly run: { readonly id: string; readonly workspaceRoot: string };
  /** Aborted on cancellation, `--timeout-seconds` or the task deadline. */
  readonly signal: AbortSignal;
  readonly secrets: TaskSecrets;
  /** Starts processes through the registered isolation modes; a kind never spawns by itself. */
  readonly process: DispatchProcessService;
  /** Reads and writes workspace files, confined to the workspace root and the writable roots at the system call. */
  readonly files: FileService;
  /**
   * The run's HTTP client under the network policy (allowlist, schemes, ports, pinned DNS, private ranges, redirects,
   * body cap, timeouts): present when the kind declares `usesNetwork` and a plugin provides the client.
   */
  readonly network?: NetworkClient;
  /**
   * The workflow's long-term memory (`spec.memory.longTerm`, or the `sqlite` store's `default` namespace when the
   * workflow declares none). Record what it returns through `effect`: a replay reads the record, not the store.
   */
  readonly longTermMemory: LongTermMemoryService;
  /** The plugin-owned `spec` sections of the plan (e.g. `mcpServers`); read one with its `DefinedSpecSection.read`. */
  readonly sections: SpecSectionValues;
  /** The run's working memory as this task sees it: its start snapshot plus its own writes (see `WorkingMemory`). */
  readonly memory: WorkingMemory;
  /** Absolute form of a workspace-relative path; policy authorizes it when an effect declares it. */
  resolvePath(path: string): string;
  /**
   * Replaces every secret value known to the run (in every form it may be printed as) with `[REDACTED]`. With
   * `truncated`, for text cut short (a byte limit, a timeout, a cancellation), an end that begins a secret is hidden too.
   * With `limit`, the text is shortened here: shorten text that may hold a secret this way, never before redacting.
   */
  redact(text: string, options?: RedactOptions): string;
  /** Log lines for the person watching the run (human output only; redacted; not recorded). */
  readonly log: PluginLog;
  /**
   * Authorizes, records and performs one effect. The request is committed to the ledger before `perform` runs; its
   * outcome is committed after. Throw an `EffectFailure` to report a failed or uncertain outcome. `perform` gets the
   * effect's id, stable across resumes, e.g. to name what it starts or to let the other side recognise a repeat.
   */
  effect<T extends JsonValue>(request: EffectRequest, perform: (signal: AbortSignal, effect: PerformedEffect) => Promise<T>, options?: EffectOptions<T>): Promise<T>;
}

/**
 * A plugin's log lines for the person watching: shown on stderr in human output beside the task's progress (never on
 * stdout, never in JSON output), redacted like everything else, and never recorded in the ledger. What the run must
 * keep belongs in an effect's result.
 */
export interface PluginLog {
  info(message: string): void;
  warn(message: string): void;
}

/** The effect being performed, as `perform` sees it. */
export interface PerformedEffect {
  readonly id: string;
  /**
   * Present when this effect was started by an earlier process that committed a protocol call with a remote id and was
   * lost while it waited (`resume`): observe the remote work it names and never send the request again.
   */
  readonly continued?: ContinuedCall;
  /** Commits the effect's protocol call durably before returning (see `ProtocolCall`); call it again to update it. */
  recordCall(call: ProtocolCall): void;
}

/** How an action kind describes a process it will start, for `agentctl plan`. */
export interface ProcessDescription {
  readonly command: string;
  readonly executable: string | null;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly environment: readonly string[];
  readonly isolation: string;
  /** The action's options for its isolation mode (e.g. the container image, engine selection and limits). */
  readonly options?: IsolationOptions;
  /** Files the process declares as its output, kept in the artifact store when it succeeds. */
  readonly artifacts?: readonly string[];
  /** What the process sees besides its working directory, workspace sources as written. */
  readonly mounts?: readonly ProcessMount[];
  readonly limits: ProcessLimits;
  /**
   * How many processes of these limits one effect of the action may start (default 1): the run's process-output
   * budget reserves this many combined output limits before each effect, e.g. 2 for a handshake and an invocation.
   */
  readonly processesPerEffect?: number;
}

/** Facts the host gives `describe` about where an action will run. */
export interface DescribeContext {
  readonly defaultTimeoutSeconds: number;
  readonly taskTimeoutSeconds?: number;
  /** Resolves commands the way the isolation mode will at run time. */
  readonly process: ProcessService;
  /**
   * When describing one task: its `with` as far as it is known before the run (inputs and vars rendered). A field a
   * template fills from an earlier task's output is absent, and so is an array holding one. Not yet validated
   * against the input schema: check the fields you read.
   */
  readonly input?: unknown;
}

/** An effect a task will request, as far as it is known before the run: what `check` and `plan` judge by policy. */
export interface DescribedEffect {
  /** The operation the effect request will name, e.g. `filesystem.write`. */
  readonly operation: string;
  /** The access the effect request will ask for, built the way dispatch builds it. */
  readonly access: EffectAccess;
  /** Overrides of the kind's profile for this effect, as the request will give them. */
  readonly profile?: Partial<EffectProfile>;
}

/** What `plan` shows about an action beyond its kind's profile, and what `check` and `plan` judge by policy. */
export interface ActionDescription {
  readonly process?: ProcessDescription;
  /**
   * The effects a task will request, when the action and the known input determine them: policy is applied to these
   * before the run. Leave it out when the access depends on values only known at run time.
   */
  readonly effects?: readonly DescribedEffect[];
}

/** What `inputSchemaFor` may consult besides the action: the plan's plugin-owned `spec` sections. */
export interface InputContext {
  readonly sections: SpecSectionValues;
}

/** An action kind: its schemas, effect profile and dispatch function. */
export interface ActionKind<ActionSchema extends z.ZodType = z.ZodType, InputSchema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  /** Fields of the action object besides `kind`. Must reject unknown fields. */
  readonly actionSchema: ActionSchema;
  /** Shape of the task's rendered `with`. */
  readonly inputSchema: InputSchema;
  readonly effect: EffectProfile;
  /**
   * The kind makes HTTP requests through `DispatchContext.network`: preflight then builds the run's network client
   * (resolving `policy.network.customCa`) before any run exists, and dispatch gets it. Without it, `network` is absent.
   */
  readonly usesNetwork?: boolean;
  /**
   * Keys of the plugin-owned `spec` sections the kind reads (e.g. `mcpServers`). When a task of the kind will run,
   * preflight resolves those sections' secret references and checks their URLs against the network policy.
   */
  readonly sections?: readonly string[];
  /**
   * The profile of one action's effects, when the action declares part of it (e.g. extension.process declares its
   * idempotency). `plan`, policy and the ledger use it; without it every action of the kind has `effect`.
   */
  profileFor?(action: z.output<ActionSchema>): EffectProfile;
  /**
   * The shape of one action's task input, when the action or the plan's sections decide it (e.g. an extension's
   * inputSchema, the servers `mcp.call` may name). The compiler and dispatch check `with` against it; without it
   * every action of the kind takes `inputSchema`.
   */
  inputSchemaFor?(action: z.output<ActionSchema>, context: InputContext): z.ZodType;
  /** Secret references the host must resolve (during preflight) before the action runs. */
  secretReferences?(action: z.output<ActionSchema>): SecretReference[];
  /**
   * The working-memory keys a task of this action writes, read from its raw `with` (templates not rendered). The
   * compiler records them as the task's `memoryWrites` and checks that tasks that may run at once write none in
   * common; a task whose keys are `dynamic` must declare `memoryWrites`. Without it, the kind's tasks write nothing.
   */
  memoryWrites?(action: z.output<ActionSchema>, input: unknown): MemoryWriteKeys;
  /**
   * The literal working-memory keys a task of this action reads, from its raw `with`: the compiler checks that each
   * is in `spec.memory.working` or written by a task it depends on, as it checks a `memory.KEY` template.
   */
  memoryReads?(action: z.output<ActionSchema>, input: unknown): readonly string[];
  /** Plan-time description; `process.isolation` names a mode the host checks at compile time. */
  describe?(action: z.output<ActionSchema>, context: DescribeContext): ActionDescription;
  dispatch(context: DispatchContext<z.output<ActionSchema>, z.output<InputSchema>>): Promise<JsonValue>;
}
