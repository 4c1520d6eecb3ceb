// The compiled plan: what `check` validates, `plan` prints and `run` executes. Compile taps read and return it.
import type { EffectProfile } from './effects.js';
import type { JsonObject, JsonValue } from './json.js';
import type { ReasoningSettings } from './provider.js';
import type { SecretReference } from './secrets.js';
import type { ResolvedPolicy } from './policy.js';
import type { SpecSectionValues } from './spec-section.js';

/** One declared action after its kind's schema parsed it. */
export interface CompiledAction {
  readonly name: string;
  readonly kind: string;
  /** Action fields after the kind's schema parsed them (defaults applied), without `kind`. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly profile: EffectProfile;
}

/** One task in plan order. */
export interface CompiledTask {
  readonly id: string;
  /** Position in the document; the scheduler breaks ties by it. */
  readonly index: number;
  readonly uses: string;
  readonly action: string;
  readonly kind: string;
  readonly needs: readonly string[];
  /** Raw `with`, templates not yet rendered. */
  readonly with: JsonValue;
  readonly when?: string;
  readonly retry: { readonly maxAttempts: number; readonly backoffMs: number };
  readonly timeoutSeconds?: number;
  readonly failure: 'stop' | 'continue';
  readonly outputSchema?: JsonValue;
  readonly profile: EffectProfile;
  /**
   * Task-local `vars` and expansion bindings (`matrix`, `matrixIndex`, `loopIndex`, ...), over `spec.vars` and over
   * `varsFiles`. Keys a variable file gives the task are not repeated here: the file is stored once in the plan.
   */
  readonly vars?: Readonly<Record<string, JsonValue>>;
  /** The variable files under the task's `vars`, lowest first: digests into `capturedVars.contents`. */
  readonly varsFiles?: readonly string[];
  /** Vars bound to another task's output at run time (a loop iteration's `loopPrevious`): var name → task id. */
  readonly bindings?: Readonly<Record<string, string>>;
  /** Set on the tasks of a sub-workflow invocation: how its templates see `tasks` and `inputs`. */
  readonly namespace?: TaskNamespace;
  /** Set on the tasks of a router's destination: they run only when `router` selects `destination`. */
  readonly route?: { readonly router: string; readonly destination: string };
  /** Where a compiled child came from: the expanded parent, its position and what it was bound to. */
  readonly expansion?: TaskExpansion;
  /** A pure node the core evaluates itself (an aggregate, a router, a sub-workflow boundary); it has no effects. */
  readonly control?: ControlNode;
  /** The task's declared inverse (`compensate`), run by `agentctl compensate` once its effects have happened. */
  readonly compensate?: CompiledCompensation;
  /** Set on the tasks of a compensation run: the source task and the effects this task undoes. */
  readonly compensates?: CompensationTarget;
  /** Working-memory keys the task may write (sorted): inferred from its kind's literal keys, or declared in `memoryWrites`. */
  readonly memoryWrites?: readonly string[];
}

/** A task's `compensate` declaration, compiled: an effectful action and the input it is given. */
export interface CompiledCompensation {
  /** `action:NAME`, as written. */
  readonly uses: string;
  /** The key of the action in the plan's `actions`. */
  readonly action: string;
  readonly kind: string;
  /** Raw `with`, rendered in the source run's scope (its inputs, vars and task outputs) when compensation runs. */
  readonly with: JsonValue;
  readonly retry: { readonly maxAttempts: number; readonly backoffMs: number };
  readonly timeoutSeconds?: number;
}

/** What one task of a compensation run undoes. */
export interface CompensationTarget {
  readonly sourceRunId: string;
  /** The compiled id of the source task. */
  readonly taskId: string;
  /** The task id as written in its document (a foreach child's parent id): how its own templates name it. */
  readonly self: string;
  /** The source effects this task compensates. */
  readonly effectIds: readonly string[];
  /** The tasks whose outputs the declaration reads: the source task's needs and the source task itself. */
  readonly reads: readonly string[];
}

/** `spec.memory.longTerm` as compiled: the store, the namespace, the retention and the embedding of its vectors. */
export interface CompiledLongTermMemory {
  /** The registered memory store provider, e.g. `sqlite`. */
  readonly provider: string;
  readonly namespace: string;
  /** Days a written entry is kept (1 through 36,500); null keeps it until it is replaced. */
  readonly retentionDays: number | null;
  /** `local_hash` (computed here) or a `spec.providers` entry's embedding model. */
  readonly embedding: { readonly provider: string; readonly model: string | null; readonly dimensions: number };
}

/** `spec.compensation`: whether a failed run is compensated right away, and which approvals compensation needs. */
export interface CompensationSettings {
  /** `manual` (the default): only `agentctl compensate`; `automatic`: also right after a run ends failed. */
  readonly onFailure: 'manual' | 'automatic';
  /** `policy` (the default): the workflow policy decides; `always`: every compensation effect needs approval; `never`: none does. */
  readonly approval: 'policy' | 'never' | 'always';
}

/** The tasks of one sub-workflow invocation read `tasks.LOCAL` as `PREFIX + LOCAL`, and `inputs` from a boundary task. */
export interface TaskNamespace {
  /** `INVOCATION--`, nested invocations included. */
  readonly prefix: string;
  /** The id of the invocation's input boundary task, whose output is the sub-workflow's `inputs`. */
  readonly inputs: string;
  /** The sub-workflow definition. */
  readonly workflow: string;
}

/** A child of `foreach`, `matrix` or `loop`. */
export interface TaskExpansion {
  readonly parent: string;
  readonly form: 'foreach' | 'matrix' | 'loop';
  readonly index: number;
  /** The bound values: the item, the matrix cell, or the loop index. */
  readonly binding: JsonValue;
}

/** What a control task computes. */
export type ControlNode =
  | {
      /** The parent of a foreach, matrix or loop: `{items}` (and `iterations` for a loop) from its children's ends. */
      readonly type: 'aggregate';
      readonly form: 'foreach' | 'matrix' | 'loop';
      readonly children: readonly string[];
      /** For a loop: the guard, checked once more after the last iteration (still true fails the loop). */
      readonly loop?: { readonly while: string; readonly maxIterations: number };
    }
  | {
      /** `uses: router`: selects destinations by one typed value. Case tasks are compiled ids. */
      readonly type: 'router';
      readonly select: string;
      readonly cases: readonly { readonly equals: JsonValue; readonly tasks: readonly string[] }[];
      readonly default: readonly string[];
    }
  | {
      /** A sub-workflow invocation's typed input (rendered `with` over defaults) or output (its output map). */
      readonly type: 'boundary';
      readonly role: 'input' | 'output';
      readonly workflow: string;
      readonly version: string;
      readonly schema: JsonValue;
      readonly defaults?: Readonly<Record<string, JsonValue>>;
    };

/**
 * Run-wide limits (`spec.runtime.budgets`), each a positive integer; an absent field is no limit. Every limit but
 * `maxWallTimeSeconds` is a dimension of the run's reservation ledger, named by the field without `max` (e.g.
 * `processOutputBytes`).
 */
export interface RunBudgets {
  readonly maxTasks?: number;
  readonly maxWallTimeSeconds?: number;
  readonly maxProcessOutputBytes?: number;
  readonly maxArtifactBytes?: number;
  readonly maxProviderRequests?: number;
  readonly maxTurns?: number;
  readonly maxToolCalls?: number;
  readonly maxInputTokens?: number;
  readonly maxOutputTokens?: number;
  readonly maxTotalTokens?: number;
  readonly maxExpansionItems?: number;
  readonly maxLoopIterations?: number;
  readonly maxCostMicrousd?: number;
}

/** Rates of one `provider/model`, in micro-US-dollars per million tokens. */
export interface ModelPricing {
  readonly inputMicrousdPerMillionTokens: number;
  readonly outputMicrousdPerMillionTokens: number;
  readonly reasoningMicrousdPerMillionTokens?: number;
  readonly cacheReadMicrousdPerMillionTokens?: number;
  readonly cacheWriteMicrousdPerMillionTokens?: number;
}

/** A versioned pricing table (`spec.runtime.pricing`), keyed `provider/model`. */
export interface PricingTable {
  readonly version: string;
  readonly models: Readonly<Record<string, ModelPricing>>;
}

/** Run-time settings of a workflow. */
export interface RuntimeSettings {
  readonly maxConcurrency: number;
  readonly defaultTimeoutSeconds: number;
  readonly budgets?: RunBudgets;
  readonly pricing?: PricingTable;
}

/** A `spec.providers` entry after validation. */
export interface CompiledProvider {
  readonly name: string;
  readonly kind: string;
  readonly endpoint?: string;
  readonly apiVersion?: string;
  /** The credential reference: the entry's own, or the kind's default variable as `{env: NAME}`. */
  readonly credential?: SecretReference;
  readonly headers: Readonly<Record<string, SecretReference>>;
}

/** A `spec.tools` entry after validation: a strict contract. */
export interface CompiledTool {
  readonly name: string;
  /** A registered tool kind, or `action` for a tool that runs a declared action. */
  readonly kind: string;
  /** For `kind: action`: the name of the action in spec.actions the tool runs. */
  readonly action?: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema: JsonObject;
  readonly capability: string;
  readonly profile: EffectProfile;
  readonly retrySafe: boolean;
  readonly timeoutSeconds: number;
  readonly approval: 'policy' | 'never' | 'always';
  readonly secrets: readonly SecretReference[];
  readonly network: readonly string[];
}

/** A `spec.agents` entry after validation, defaults applied. */
export interface CompiledAgent {
  readonly name: string;
  /** The entry's name in spec.providers. */
  readonly provider: string;
  readonly model: string;
  readonly description?: string;
  readonly instructions?: string;
  /** Workspace-relative; read (a recorded observe effect) when the task runs. */
  readonly instructionsFile?: string;
  readonly tools: readonly string[];
  readonly maxTurns: number;
  readonly maxToolCalls: number;
  readonly maxOutputTokens: number;
  readonly timeoutSeconds: number;
  readonly retry: { readonly maxAttempts: number; readonly backoffMs: number };
  readonly reasoning?: ReasoningSettings;
  readonly structuredOutput?: JsonObject;
  readonly usageLimit?: { readonly maxInputTokens?: number; readonly maxOutputTokens?: number };
  readonly stream: boolean;
  readonly providerOptions: JsonObject;
}

/** What variable files and invocation overrides a plan was compiled with: resume uses them instead of the files. */
export interface CapturedVars {
  /**
   * Each variable file the workflow names, keyed by its path as written: the digest of its content in `contents`
   * (plans stored by earlier versions hold the parsed content itself here, and no `contents`).
   */
  readonly files: Readonly<Record<string, string | JsonObject>>;
  /** The parsed content of each distinct file, once, by the sha256 of its bytes: tasks name these digests. */
  readonly contents?: Readonly<Record<string, JsonObject>>;
  /** The `--vars-file` and `--var` values, merged in order (the last wins); they apply to every task. */
  readonly overrides: Readonly<Record<string, JsonValue>>;
}

/** A whole compiled workflow. */
export interface CompiledPlan {
  readonly apiVersion: string;
  readonly name: string;
  readonly description?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** sha256 of the workflow source text (and of the content of its variable files, when it names any). */
  readonly digest: string;
  readonly inputs: Readonly<Record<string, JsonValue>>;
  /** `spec.vars` and the invocation's overrides, over `varsFiles` (keys a file gives are not repeated here). */
  readonly vars: Readonly<Record<string, JsonValue>>;
  /** The variable files of `spec.varsFiles`, lowest first: digests into `capturedVars.contents`. */
  readonly varsFiles?: readonly string[];
  readonly outputs: Readonly<Record<string, JsonValue>>;
  readonly policy: ResolvedPolicy;
  readonly runtime: RuntimeSettings;
  readonly actions: Readonly<Record<string, CompiledAction>>;
  /** Tasks in stable topological order. */
  readonly tasks: readonly CompiledTask[];
  /** Model providers, agents and tools (absent in plans stored by versions without agents). */
  readonly providers?: Readonly<Record<string, CompiledProvider>>;
  readonly agents?: Readonly<Record<string, CompiledAgent>>;
  readonly tools?: Readonly<Record<string, CompiledTool>>;
  /** The plugin-owned `spec` sections the document writes (e.g. `mcpServers`), parsed by their schemas; absent when none. */
  readonly sections?: SpecSectionValues;
  /** `spec.compensation`, when the workflow declares it. */
  readonly compensation?: CompensationSettings;
  /** `spec.memory.longTerm`, when the workflow declares it (its tasks otherwise use the `sqlite` store's `default` namespace). */
  readonly longTermMemory?: CompiledLongTermMemory;
  /** Variable files and overrides read at compile time (absent when the workflow names none and none are given). */
  readonly capturedVars?: CapturedVars;
  /** `spec.memory.working`: the run's initial working memory (absent when empty). */
  readonly workingMemory?: Readonly<Record<string, JsonValue>>;
}
