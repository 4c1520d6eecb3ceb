// The compiled plan: what `check` validates, `plan` prints and `run` executes. Compile taps read and return it.
import type { EffectProfile } from './effects.js';
import type { JsonValue } from './json.js';
import type { ResolvedPolicy } from './policy.js';

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
}

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

/** A whole compiled workflow. */
export interface CompiledPlan {
  readonly apiVersion: string;
  readonly name: string;
  readonly description?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** sha256 of the workflow source text. */
  readonly digest: string;
  readonly inputs: Readonly<Record<string, JsonValue>>;
  readonly vars: Readonly<Record<string, JsonValue>>;
  readonly outputs: Readonly<Record<string, JsonValue>>;
  readonly policy: ResolvedPolicy;
  readonly runtime: RuntimeSettings;
  readonly actions: Readonly<Record<string, CompiledAction>>;
  /** Tasks in stable topological order. */
  readonly tasks: readonly CompiledTask[];
}
