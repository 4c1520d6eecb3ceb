// What a run is asked to do and what it ends with: below the driver (run.ts) and the record of a run whose isolation
// is unavailable (unavailable-isolation.ts), which both use them.
import type { AgentctlError, CompiledPlan, Diagnostic, Disposition, JsonValue } from '@agentctl/sdk';
import type { Host } from '../host.js';
import type { ModelUsageSummary } from '../store/model-usage.js';
import type { RunState, Store, TaskState } from '../store/store.js';
import type { Approver } from './effects.js';
import type { RunStage } from './stage.js';

export interface RunRequest {
  readonly host: Host;
  readonly store: Store;
  readonly plan: CompiledPlan;
  readonly file: string;
  readonly source: string;
  /** Absolute workspace root (policy.workspaceRoot resolved against --workspace). */
  readonly workspaceRoot: string;
  /** Aborted by SIGINT/SIGTERM or --timeout-seconds. */
  readonly signal: AbortSignal;
  readonly environment: NodeJS.ProcessEnv;
  /** Asks a person at a terminal; without it, policy.nonInteractive decides. */
  readonly approver?: Approver;
  /** The config and code packs the run is started with, kept with its plan (`recordedConfig`) for the verbs that continue it. */
  readonly recordedConfig?: JsonValue;
  /**
   * A scale-out stage's run: `plan` is narrowed to the stage's tasks (stage.ts), `wholePlan` is the compiled plan the
   * run records, and `stage` is recorded with it.
   */
  readonly staged?: { readonly wholePlan: CompiledPlan; readonly stage: RunStage };
}

export interface RunResult {
  readonly runId: string;
  readonly traceId: string;
  readonly state: RunState;
  readonly output: Record<string, JsonValue>;
  readonly tasks: Record<string, TaskState>;
  /** Set when the run ended failed, paused or cancelled: what the CLI reports. */
  readonly error?: AgentctlError;
  /** How each task's result came to be in this invocation: run now, or reused from the record. */
  readonly dispositions?: Record<string, Disposition>;
  /** Problems that did not change the outcome, e.g. a commit observer that threw. */
  readonly warnings?: readonly Diagnostic[];
  /** What the run's agents used (model requests, tool calls, tokens), when it has agent tasks. */
  readonly usage?: ModelUsageSummary;
  /** Extra fields of the outcome document, e.g. a derived run's lineage (sourceRunId, roots, reused, executed). */
  readonly details?: Readonly<Record<string, JsonValue>>;
}
