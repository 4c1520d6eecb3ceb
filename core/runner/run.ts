// Executes a compiled plan: preflight, then tasks in waves of ready tasks, each wave committed in plan order.
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { AgentctlError, diagnostic, errorMessage, EXIT, isAgentctlError, type CompiledPlan, type Diagnostic, type JsonValue, type SecretReference } from '../../sdk/index.js';
import type { Host } from '../host.js';
import { renderValue, TemplateError, type TemplateScope } from '../compiler/templates.js';
import type { RunState, Store, TaskState } from '../store/store.js';
import { OutcomeNotRecorded, type Approver } from './effects.js';
import { executeTask, type TaskOutcome } from './task.js';
import { Scheduler } from './scheduler.js';
import { SecretVault } from './secrets.js';

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
}

export interface RunResult {
  readonly runId: string;
  readonly traceId: string;
  readonly state: RunState;
  readonly output: Record<string, JsonValue>;
  readonly tasks: Record<string, TaskState>;
  /** Set when the run ended failed, paused or cancelled: what the CLI reports. */
  readonly error?: AgentctlError;
  /** Problems that did not change the outcome, e.g. a commit observer that threw. */
  readonly warnings?: readonly Diagnostic[];
}

const newRunId = () => `run_${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;

/** Resolves secrets and runs preflight taps. Throws (exit 2) before any run state exists. */
async function preflight(request: RunRequest, vault: SecretVault): Promise<void> {
  const { host, plan, workspaceRoot, signal } = request;
  const references: { reference: SecretReference; where: string }[] = [];
  for (const task of plan.tasks) {
    const action = plan.actions[task.action]!;
    const kind = host.actionKind(action.kind)!;
    for (const reference of kind.secretReferences?.(action.fields) ?? []) references.push({ reference, where: `spec.actions.${action.name}` });
  }
  const problems: Diagnostic[] = await vault.resolve(host, references, { workspaceRoot, environment: request.environment, signal });
  const tasks = plan.tasks.map((task) => Object.freeze({ id: task.id, kind: task.kind, action: plan.actions[task.action]!.fields }));
  try {
    await host.hooks.preflight.promise(Object.freeze({ workflowName: plan.name, tasks, workspaceRoot, signal, process: host.process, report: (item: Diagnostic) => void problems.push(item) }));
  } catch (error) {
    problems.push(...(isAgentctlError(error) ? error.diagnostics : [diagnostic('AGENTCTL_E_PLUGIN_FAILED', { message: errorMessage(error) })]));
  }
  if (problems.length > 0) {
    const redact = vault.redactor.redact;
    const safe = problems.map((item) => ({ ...item, message: redact(item.message) }));
    throw new AgentctlError(safe[0]!.code, `preflight failed: ${safe[0]!.message}`, { diagnostics: safe, exitCode: host.errorCodes.exitCodeFor(safe[0]!) });
  }
}

export async function executeRun(request: RunRequest): Promise<RunResult> {
  const { host, store, plan } = request;
  // Every running task listens for cancellation: with up to 64 at once, Node's default of 10 listeners is no limit.
  setMaxListeners(0, request.signal);
  // The digest key is read (or created) only when a secret digest is recorded, never for a refused preflight.
  const vault = new SecretVault(() => store.digestKey());
  await preflight(request, vault);
  store.setRedactor(vault.redactor.redactValue);

  const runId = newRunId();
  const traceId = randomBytes(16).toString('hex');
  store.createRun({
    id: runId,
    traceId,
    workflowName: plan.name,
    workflowDigest: plan.digest,
    workflowFile: request.file,
    workflowSource: request.source,
    // Redacted by the store like every document: the plan holds the run inputs, which may repeat a secret value.
    plan: plan as unknown as JsonValue,
    inputs: plan.inputs as JsonValue,
    workspace: request.workspaceRoot,
    tasks: plan.tasks.map((task) => ({ id: task.id, kind: task.kind })),
  });
  const commitErrors: string[] = [];
  const committed = async (type: string, data: Record<string, JsonValue>, taskId?: string, effectId?: string) => {
    const sink = { fail: (error: unknown) => void commitErrors.push(errorMessage(error)) };
    try {
      // Plugin observers' errors go to the sink through their facade; the core's own observers may still throw.
      await host.hooks.commit.promise(Object.freeze({ type, runId, ...(taskId ? { taskId } : {}), ...(effectId ? { effectId } : {}), data }), sink);
    } catch (error) {
      sink.fail(error);
    }
  };
  await committed('run.started', { workflow: plan.name, traceId });

  const scheduler = new Scheduler(plan.tasks);
  const outputs: Record<string, { output: JsonValue }> = {};
  const scope = (): TemplateScope => ({ inputs: plan.inputs, vars: plan.vars, memory: {}, tasks: outputs });
  let failure: TaskOutcome | undefined;
  let pausedBy: TaskOutcome | undefined;
  const renewTimer = setInterval(() => {
    try {
      store.renewLease(runId);
    } catch {
      // The timer must never crash the process. Only this process drives a new run; taking over a run's
      // lease (resume) is where RUN_LEASED surfaces.
    }
  }, 20_000);
  renewTimer.unref();

  try {
    while (!request.signal.aborted && !failure) {
      // With a paused task, independent work goes on; only its dependents wait.
      const wave = scheduler.take(plan.runtime.maxConcurrency);
      if (wave.length === 0) break;
      // allSettled: if one task hits a bug, its siblings still finish (and record their effects) before the run ends.
      const settled = await Promise.allSettled(
        wave.map((task) => executeTask({ host, store, plan, task, runId, scope: scope(), signal: request.signal, vault, committed, workspaceRoot: request.workspaceRoot, ...(request.approver ? { approver: request.approver } : {}) })),
      );
      const broken = settled.find((item): item is PromiseRejectedResult => item.status === 'rejected');
      if (broken) throw broken.reason;
      const results = settled.map((item) => (item as PromiseFulfilledResult<TaskOutcome>).value);
      // Ordered commit: a wave's outcomes, and the skips they cause, are written in plan order in one transaction.
      const skips = store.transaction(() =>
        results.flatMap((result) => {
          commitOutcome(store, runId, result);
          const skipped = scheduler.complete(result.task.id, result.state);
          for (const skip of skipped) {
            const reason = `needs ${skip.blockedBy}, which ended ${skip.blockedState}`;
            store.writeTask(runId, skip.task.id, { state: 'skipped', error: { code: 'AGENTCTL_E_DEPENDENCY_FAILED', message: `skipped: ${reason}` }, finished: true }, { type: 'task.skipped', data: { reason } });
          }
          return skipped;
        }),
      );
      for (const result of results) {
        if (result.state === 'succeeded') outputs[result.task.id] = { output: result.output ?? null };
        await committed(`task.${result.state}`, { attempt: result.attempt, durationMs: result.durationMs, ...(result.error ? { code: result.error.code } : {}) }, result.task.id);
        if (result.state === 'failed' && result.task.failure === 'stop' && !failure) failure = result;
        if (result.state === 'waiting_for_approval' && !pausedBy) pausedBy = result;
        if (result.fatal && !failure) failure = result;
      }
      for (const skip of skips) await committed('task.skipped', { blockedBy: skip.blockedBy }, skip.task.id);
    }
  } catch (error) {
    // A bug or a database failure mid-run: leave an explained record behind if the database still works. An effect
    // whose outcome was lost leaves the run interrupted, not failed: nothing says its task failed.
    try {
      const recorded = { code: isAgentctlError(error) ? error.code : 'AGENTCTL_E_INTERNAL', message: errorMessage(error) };
      if (error instanceof OutcomeNotRecorded) store.interruptRun(runId, recorded);
      else store.finishRun(runId, 'failed', { error: recorded });
    } catch {
      // the original error is the one to report
    }
    if (isAgentctlError(error)) Object.assign(error, { runId, traceId });
    throw error;
  } finally {
    clearInterval(renewTimer);
  }
  const result = await finish({ request, runId, traceId, scheduler, failure, pausedBy, scope, committed, redactValue: vault.redactor.redactValue });
  const warnings = commitErrors.map((message) => diagnostic('AGENTCTL_E_PLUGIN_FAILED', { severity: 'warning', message }));
  return { ...result, warnings };
}

function commitOutcome(store: Store, runId: string, result: TaskOutcome): void {
  const error = result.error ? { code: result.error.code, message: result.error.message, diagnostics: result.error.diagnostics as unknown as JsonValue } : undefined;
  store.writeTask(
    runId,
    result.task.id,
    {
      state: result.state,
      attempt: result.attempt,
      ...(result.output === undefined ? {} : { output: result.output }),
      ...(result.input === undefined ? {} : { input: result.input as unknown as JsonValue }),
      ...(error ? { error } : {}),
      ...(result.state === 'succeeded' ? { disposition: 'executed' as const } : {}),
      started: true,
      finished: result.state !== 'waiting_for_approval',
    },
    { type: `task.${result.state}`, data: { attempt: result.attempt, ...(error ? { code: error.code, message: error.message } : {}) } },
  );
  if (result.artifacts) store.recordArtifacts(runId, result.task.id, result.artifacts);
  if (result.state === 'succeeded' || result.state === 'skipped') store.checkpoint(runId, result.task.id, { task: result.task.id, state: result.state });
}

interface FinishContext {
  request: RunRequest;
  runId: string;
  traceId: string;
  scheduler: Scheduler;
  failure: TaskOutcome | undefined;
  pausedBy: TaskOutcome | undefined;
  scope: () => TemplateScope;
  redactValue: <T>(value: T) => T;
  committed: (type: string, data: Record<string, JsonValue>, taskId?: string) => Promise<void>;
}

async function finish(context: FinishContext): Promise<RunResult> {
  const { request, runId, traceId, scheduler, failure, pausedBy } = context;
  const { store, plan } = request;
  let state: RunState;
  let error: AgentctlError | undefined;
  let output: Record<string, JsonValue> = {};

  if (request.signal.aborted) {
    state = 'cancelled';
    error = new AgentctlError('AGENTCTL_E_CANCELLED', `run ${runId} was cancelled (${String(request.signal.reason ?? 'signal')})`);
  } else if (failure) {
    state = 'failed';
    const cause = failure.error!;
    const diagnostics = cause.diagnostics.map((item) => ({ ...item, taskId: failure.task.id }));
    // A persistence or remote failure keeps its exit code (5, 6): CI tells "the provider was down" from "the task failed".
    const exitCode = cause.exitCode === EXIT.persistence || cause.exitCode === EXIT.remote ? { exitCode: cause.exitCode } : {};
    error = new AgentctlError(cause.code === 'AGENTCTL_E_APPROVAL_REQUIRED' ? cause.code : 'AGENTCTL_E_RUN_FAILED', `task ${failure.task.id} failed: ${cause.message}`, { diagnostics, ...exitCode });
  } else if (pausedBy) {
    state = 'paused';
    error = pausedBy.error;
  } else {
    try {
      // Outputs leave the process on stdout: any secret value a task produced is redacted there too.
      output = context.redactValue(renderValue(plan.outputs as JsonValue, context.scope()) as Record<string, JsonValue>);
      state = 'succeeded';
    } catch (renderError) {
      if (!(renderError instanceof TemplateError)) throw renderError;
      state = 'failed';
      const message = context.redactValue(renderError.message);
      error = new AgentctlError('AGENTCTL_E_TEMPLATE_EVALUATION', `spec.outputs: ${message}`, {
        diagnostics: [diagnostic('AGENTCTL_E_TEMPLATE_EVALUATION', { message, path: 'spec.outputs', file: request.file })],
      });
    }
  }

  if (state !== 'paused') {
    const closing: TaskState = state === 'cancelled' ? 'cancelled' : 'skipped';
    const closed = scheduler.closePending(closing);
    const waiting = store.transaction(() => {
      for (const task of closed) store.writeTask(runId, task.id, { state: closing, finished: true }, { type: `task.${closing}`, data: { reason: `run ${state}` } });
      return store.closeWaiting(runId, `run ended ${state}`);
    });
    for (const taskId of waiting) scheduler.complete(taskId, 'cancelled');
  }
  const errorJson = error ? { code: error.code, message: error.message } : undefined;
  store.finishRun(runId, state, { output, ...(errorJson ? { error: errorJson } : {}) });
  await context.committed(`run.${state}`, {});
  if (error) {
    error.runId = runId;
    error.traceId = traceId;
  }
  return { runId, traceId, state, output, tasks: scheduler.snapshot(), ...(error ? { error } : {}) };
}

