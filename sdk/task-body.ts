// A task body: what runs a task of one kind, and what the core asks about such a task before and after it runs.
// Bodies are keyed by kind; a kind without a registered body runs the default way, through its action kind's dispatch.
import type { ActionKind } from './action-kind.js';
import type { JsonValue } from './json.js';
import type { CompiledAction, CompiledPlan, CompiledTask } from './plan.js';
import type { ModelProvider } from './provider.js';
import type { SectionSecret, SectionUrl } from './spec-section.js';

/** What a task body asks a person with `TaskBodyContext.approval`. */
export interface ApprovalQuestion {
  /** The operation the approval is recorded under (an effect of the task), e.g. `human.approval`. Policy judges it as a tool of this name. */
  readonly operation: string;
  /** What the person is asked: recorded with the effect and shown to the approver. Never a secret value. */
  readonly question: string;
}

/** A person's approval, as recorded: who gave it and the reason they gave. */
export interface ApprovalAnswer {
  readonly actor: string;
  readonly reason: string;
}

/** The read-only view a task body gets of one attempt of one task. */
export interface TaskBodyContext {
  readonly task: CompiledTask;
  readonly action: CompiledAction;
  /** The task's rendered `with`, checked against its kind's input schema. */
  readonly input: JsonValue;
  readonly attempt: number;
  readonly run: { readonly id: string; readonly workspaceRoot: string };
  /** Aborted on cancellation, `--timeout-seconds` or the task deadline. */
  readonly signal: AbortSignal;
  /** Runs the task the default way: its action kind's dispatch, with the same effects, policy and budgets. */
  dispatch(): Promise<JsonValue>;
  /**
   * Asks a person, as one recorded effect that always needs approval: resolves with the recorded answer once it is
   * approved (at the terminal, or by `approvals approve` and a resume); a pending approval pauses the run (exit 3), a
   * rejection fails the task.
   */
  approval(question: ApprovalQuestion): Promise<ApprovalAnswer>;
}

/** What a task body may consult while the core prepares a run: the registered model providers. */
export interface TaskBodyLookup {
  provider(kind: string): ModelProvider | undefined;
}

/**
 * A task body, registered with `api.registerTaskBody`: how tasks of `kind` run, and the facts about them that plan,
 * preflight, recovery documents and the run outcome ask for. Every member but `kind` and `run` is optional.
 */
export interface TaskBody {
  /** The kind of the tasks it runs: an action kind this plugin registers, or the body's own `action` kind. */
  readonly kind: string;
  readonly description: string;
  /**
   * The body's own action kind, for tasks the compiler makes (e.g. `uses: agent:NAME`) rather than actions a workflow
   * declares: plan, policy preview and budgets read its profile and `describe`; `spec.actions` cannot name it.
   */
  readonly action?: ActionKind<any, any>;
  /**
   * Its tasks evaluate recorded values and request no effect (e.g. a foreach aggregate): they run with no deadline,
   * effect runner, budget or retry, and their input digest is always the plain one.
   */
  readonly pure?: boolean;
  /** Its tasks call a model provider: recovery documents count them as provider tasks, and the run outcome reports model usage. */
  readonly usesProvider?: boolean;
  /** Secret references a task needs resolved in preflight, each named by where it is written (default: its action kind's `secretReferences`). */
  secrets?(action: CompiledAction): readonly SectionSecret[];
  /** URLs a task will reach, checked against the network policy in preflight (nothing is sent). */
  urls?(action: CompiledAction, lookup: TaskBodyLookup): readonly SectionUrl[];
  /** Whether a definite, retryable failure of an attempt is tried again under the task's `retry` (default: yes). */
  retries?(error: { readonly code: string }): boolean;
  /** What `plan` lists about a task of this body under `agents` (e.g. its provider, model, tools and limits). */
  planAgent?(task: CompiledTask, plan: CompiledPlan): Readonly<Record<string, JsonValue>> | undefined;
  /** Runs one attempt and returns the task's output. Effects go through the context (or `dispatch`), never around it. */
  run(context: TaskBodyContext): Promise<JsonValue>;
}
