// The run driver: a fresh run from a compiled plan, or a stored run continued (resume); ordered commit of a sliding window.
import { setMaxListeners } from 'node:events';
import { AgentctlError, diagnostic, errorMessage, EXIT, isAgentctlError, type AnyErrorCode, type CompiledPlan, type CompiledTask, type Diagnostic, type Disposition, type JsonValue, type SecretReference } from '@agentctl/sdk';
import { renderValue, TemplateError, type TemplateScope } from '../compiler/templates.js';
import { planVars, taskScope } from './scope.js';
import { routeSkip } from './control.js';
import type { NewRun, Row, RunState, Store, TaskState } from '../store/store.js';
import { OutcomeNotRecorded, type Approver } from './effects.js';
import { newRunIdentity } from './identity.js';
import { executeTask, type TaskOutcome } from './task.js';
import { Scheduler } from './scheduler.js';
import { SecretVault } from './secrets.js';
import { RunBudget, type BudgetExceeded } from './budget.js';
import { RunPublisher } from './publisher.js';
import { sectionUses } from '../compiler/sections.js';
import { failWithoutIsolation, isolationUnavailable } from './unavailable-isolation.js';
import { modelUsage } from '../store/model-usage.js';
import { asCredentialProblem, networkProblems } from './network-preflight.js';
import type { RunRequest, RunResult } from './run-types.js';
import { bodyOf, secretUsesOf } from './task-body.js';
import { foldMemory, type MemoryDelta } from '../store/working-memory.js';
import { snapshotFor } from './working-memory.js';
import { embeddingSecrets, embeddingUrls } from './memory-embedding.js';
import { outputEntry } from './task-outputs.js';
import { collectGarbage } from '../store/garbage.js';
import { stageJson } from './stage.js';

/** A plan with at least this many tasks is collected after compiling (see `drive`). */
const LARGE_PLAN_TASKS = 1000;

export type { RunRequest, RunResult } from './run-types.js';

/** What preflight needs of a run request: never the database, so `doctor` runs it without one. */
export type PreflightRequest = Pick<RunRequest, 'host' | 'plan' | 'workspaceRoot' | 'signal' | 'environment'>;

/**
 * Resolves secrets and runs the preflight taps for the tasks that will execute; returns every problem found (secret
 * values redacted from their messages). Nothing is written anywhere.
 */
export async function preflightProblems(request: PreflightRequest, vault: SecretVault, executing: readonly CompiledTask[]): Promise<Diagnostic[]> {
  const { host, plan, workspaceRoot, signal } = request;
  const references: { reference: SecretReference; where: string }[] = [];
  for (const task of executing) references.push(...secretUsesOf(host, plan.actions[task.action]!));
  // The plugin-owned sections the executing tasks' kinds read (e.g. mcpServers): their secrets, then their URLs.
  const sectionNeeds = sectionUses(host, plan, executing);
  references.push(...sectionNeeds.secrets);
  // Long-term memory that embeds through a provider entry needs that entry's credential and URLs, as an agent does.
  const embedding = executing.length > 0 ? { secrets: embeddingSecrets(plan), urls: embeddingUrls(host, plan) } : { secrets: [], urls: [] };
  references.push(...embedding.secrets);
  const resolveContext = { workspaceRoot, environment: request.environment, signal, policy: plan.policy };
  const problems: Diagnostic[] = (await vault.resolve(host, references, resolveContext)).map(asCredentialProblem);
  problems.push(...(await networkProblems(host, plan, vault, executing, resolveContext, [...sectionNeeds.urls, ...embedding.urls])));
  const tasks = executing.map((task) => Object.freeze({ id: task.id, kind: task.kind, action: plan.actions[task.action]!.fields }));
  try {
    await host.hooks.preflight.promise(Object.freeze({ workflowName: plan.name, tasks, workspaceRoot, signal, process: host.process, report: (item: Diagnostic) => void problems.push(item) }));
  } catch (error) {
    problems.push(...(isAgentctlError(error) ? error.diagnostics : [diagnostic('AGENTCTL_E_PLUGIN_FAILED', { message: errorMessage(error) })]));
  }
  const redact = vault.redactor.redact;
  return problems.map((item) => ({ ...item, message: redact(item.message) }));
}

/** Preflight before a run: throws the problems (exit code of the first) before any run state exists. */
export async function preflight(request: PreflightRequest, vault: SecretVault, executing: readonly CompiledTask[]): Promise<void> {
  const problems = await preflightProblems(request, vault, executing);
  if (problems.length === 0) return;
  throw new AgentctlError(problems[0]!.code, `preflight failed: ${problems[0]!.message}`, { diagnostics: problems, exitCode: request.host.errorCodes.exitCodeFor(problems[0]!) });
}

/** Where the driver starts: a fresh run, or a stored one whose recorded task ends are restored (resume). */
export interface DriverStart {
  readonly runId: string;
  readonly traceId: string;
  readonly scheduler: Scheduler;
  readonly outputs: Record<string, { output: JsonValue }>;
  /** The attempt each task to execute starts at (absent: 1). */
  readonly attempts: ReadonlyMap<string, number>;
  readonly dispositions: Record<string, Disposition>;
  readonly vault: SecretVault;
  /** Listening since before the run's first record of this invocation (its `run.started` or `run.resumed`). */
  readonly publisher: RunPublisher;
}

/** The run record of a new run of `request.plan`: its workflow, plan and inputs, and every task `pending`. */
export function newRunRecord(request: RunRequest, runId: string, traceId: string): NewRun {
  const plan = request.staged?.wholePlan ?? request.plan;
  return {
    id: runId,
    traceId,
    workflowName: plan.name,
    workflowDigest: plan.digest,
    workflowFile: request.file,
    workflowSource: request.source,
    // Redacted by the store like every document: the plan holds the run inputs, which may repeat a secret value.
    plan: (request.recordedConfig === undefined ? plan : { ...plan, recordedConfig: request.recordedConfig }) as unknown as JsonValue,
    inputs: plan.inputs as JsonValue,
    workspace: request.workspaceRoot,
    // A stage's run has rows for the stage's tasks only.
    tasks: request.plan.tasks.map((task) => ({ id: task.id, kind: task.kind })),
    ...(request.staged ? { stage: stageJson(request.staged.stage) } : {}),
  };
}

/**
 * A run whose preflight found only that the isolation it asks for is unavailable: recorded and failed with zero
 * effects (exit 4), as the reference records it.
 */
export function recordUnavailableIsolation(request: RunRequest, vault: SecretVault, error: AgentctlError): RunResult {
  request.store.setRedactor(vault.redactor.redactValue, () => vault.redactor.size);
  return failWithoutIsolation(request, (runId, traceId) => newRunRecord(request, runId, traceId), error);
}

/**
 * Starts a new run. `preflighted` is the vault of a preflight the caller already passed (the CLI runs it before it
 * opens the database, so a refused run creates no database); without it, preflight runs here.
 */
export async function executeRun(request: RunRequest, preflighted?: SecretVault): Promise<RunResult> {
  const { store, plan } = request;
  // Every running task listens for cancellation: with up to 64 at once, Node's default of 10 listeners is no limit.
  setMaxListeners(0, request.signal);
  // The digest key is read (or created) only when a secret digest is recorded, never for a refused preflight.
  const vault = preflighted ?? new SecretVault(() => store.digestKey());
  if (!preflighted) {
    try {
      await preflight(request, vault, plan.tasks);
    } catch (error) {
      if (!isolationUnavailable(error)) throw error;
      return recordUnavailableIsolation(request, vault, error);
    }
  }
  store.setRedactor(vault.redactor.redactValue, () => vault.redactor.size);

  const { runId, traceId } = newRunIdentity();
  const publisher = new RunPublisher(request.host, store, runId);
  store.createRun(newRunRecord(request, runId, traceId));
  const dispositions = Object.fromEntries(plan.tasks.map((task) => [task.id, 'executed' as Disposition]));
  return drive(request, { runId, traceId, scheduler: new Scheduler(plan.tasks), outputs: {}, attempts: new Map(), dispositions, vault, publisher });
}

/**
 * Continues a stored run in this process (resume): takes its lease, restores every recorded task end, and drives
 * the rest. Succeeded tasks are reused; a reopened task continues its recorded attempt, so its confirmed effects are
 * found by id instead of dispatched, or starts the next attempt when one of its effects can never complete
 * (cancelled, or reconciled not applied or compensated). Secrets are resolved only for the tasks that will execute.
 */
export async function resumeRun(request: RunRequest & { readonly runId: string; readonly isLive: (row: Row) => boolean; readonly sourceOutputs?: Record<string, { output: JsonValue }> }): Promise<RunResult> {
  const { store, plan, runId } = request;
  setMaxListeners(0, request.signal);
  const vault = new SecretVault(() => store.digestKey());
  const finished = new Set(['succeeded', 'failed', 'skipped']);
  const before = new Map(store.taskRows(runId).map((row) => [String(row.task_id), String(row.state)]));
  // A run that failed on an effect in doubt reopens its failed-in-doubt and skipped tasks (see Store.acquireRun).
  const inDoubt = new Set(store.effectRows(runId).filter((effect) => effect.state === 'started' || effect.state === 'uncertain').map((effect) => String(effect.task_id)));
  const failedInDoubt = store.runRow(runId)?.state === 'failed' && inDoubt.size > 0;
  const reopens = (id: string, state: string) => !finished.has(state) || (failedInDoubt && (state === 'skipped' || (state === 'failed' && inDoubt.has(id))));
  await preflight(request, vault, plan.tasks.filter((task) => reopens(task.id, before.get(task.id) ?? 'pending')));
  store.setRedactor(vault.redactor.redactValue, () => vault.redactor.size);
  const publisher = new RunPublisher(request.host, store, runId);
  store.acquireRun(runId, request.isLive, request.workspaceRoot);

  const run = store.runRow(runId)!;
  const scheduler = new Scheduler(plan.tasks);
  // A compensation run's templates read its source run's outputs.
  const outputs: Record<string, { output: JsonValue }> = { ...request.sourceOutputs };
  const dispositions: Record<string, Disposition> = {};
  const attempts = new Map<string, number>();
  const reconciled = store.latestReconciliations(runId);
  const effects = store.effectRows(runId);
  for (const row of store.taskRows(runId)) {
    const taskId = String(row.task_id);
    const state = String(row.state) as TaskState;
    if (finished.has(state)) {
      dispositions[taskId] = 'reused';
      if (state === 'succeeded' || state === 'skipped') outputs[taskId] = { output: JSON.parse(String(row.output_json ?? 'null')) as JsonValue };
      scheduler.restore(taskId, state);
      continue;
    }
    dispositions[taskId] = 'executed';
    const attempt = Math.max(1, Number(row.attempt));
    const spent = effects.some((effect) => {
      if (effect.task_id !== taskId || Number(effect.attempt) !== attempt) return false;
      const outcome = reconciled.get(String(effect.id))?.outcome;
      return effect.state === 'cancelled' || outcome === 'not_applied' || outcome === 'compensated';
    });
    attempts.set(taskId, spent ? attempt + 1 : attempt);
  }
  return drive(request, { runId, traceId: String(run.trace_id), scheduler, outputs, attempts, dispositions, vault, publisher });
}

/**
 * The run driver: ready tasks run in a sliding window of maxConcurrency (a slow task never idles the other slots),
 * and their outcomes commit in plan order through a cursor, each as soon as every task before it has committed. A
 * task's dependents become ready when it commits, so nothing runs on a result the ledger does not hold.
 */
export async function drive(request: RunRequest, start: DriverStart): Promise<RunResult> {
  const { host, store, plan } = request;
  const { runId, traceId, scheduler, outputs, vault, publisher } = start;
  // Compiling thousands of tasks leaves tens of MiB dead (mostly the YAML reading). Collected once here, before the
  // first task, they do not set the size V8 lets the heap grow to for the rest of the run.
  if (plan.tasks.length >= LARGE_PLAN_TASKS) collectGarbage();
  // What observers see of the run is what the ledger commits (start.publisher); only notices, never recorded, are
  // given here. Observers print what they see (progress, `--output jsonl`): a secret value never reaches them.
  const notice = (type: string, data: Record<string, JsonValue>, taskId?: string, effectId?: string) => publisher.notice(type, vault.redactor.redactValue(data), taskId, effectId);
  // Budgets: the ledger of this run, and its wall clock (an expiry aborts `signal`, never the caller's).
  const budget = new RunBudget(store, runId, plan.runtime.budgets);
  const wall = budget.wallClock(() => String(store.runRow(runId)!.created_at), request.signal);
  const signal = wall.signal;

  // Working memory: the initial values and the deltas of the tasks committed so far (a resumed or derived run's
  // recorded ones too), applied in compiled order. Each commit replaces the object: a snapshot a task holds never changes.
  const order = plan.tasks.map((task) => task.id);
  const deltas = store.workingMemory.deltas(runId);
  let memory: Readonly<Record<string, JsonValue>> = foldMemory(plan.workingMemory, order, deltas);
  // A task's snapshot holds only what tasks compiled before it committed: a later task that committed while it was
  // paused (or parked behind a pause) never shows in it, so a resumed task renders the input it rendered before.
  const snapshotAt = (task: CompiledTask) => (deltas.size === 0 ? memory : snapshotFor(plan, task, order, deltas));
  store.transaction(() => store.workingMemory.setMemory(runId, memory));
  const scope = (): TemplateScope => ({ inputs: plan.inputs, vars: planVars(plan), memory, tasks: outputs });
  let failure: TaskOutcome | undefined;
  let pausedBy: TaskOutcome | undefined;
  const renewTimer = setInterval(() => {
    try {
      store.renewLease(runId);
    } catch {
      // The timer must never crash the process; resume's acquisition is where RUN_LEASED surfaces.
    }
  }, 20_000);
  renewTimer.unref();

  // Positions whose outcome is committed (or that were closed without running); the cursor is the first that is not.
  const settled: boolean[] = plan.tasks.map((task) => scheduler.state(task.id) !== 'pending');
  const buffered = new Map<number, TaskOutcome>();
  const running = new Map<number, Promise<void>>();
  let cursor = 0;
  let stopping = false;
  // `agentctl cancel` from another process: read between tasks, so no new task starts once it is recorded.
  let cancelRequested = false;
  const askedToStop = () => (cancelRequested ||= store.cancelRequested(runId));
  let broken: { error: unknown } | undefined;

  const commit = (result: TaskOutcome) => {
    const skips = store.transaction(() => {
      commitOutcome(store, runId, result);
      if (result.state === 'succeeded' && result.memoryDelta) {
        deltas.set(result.task.id, result.memoryDelta);
        memory = foldMemory(plan.workingMemory, order, deltas);
        store.workingMemory.setMemory(runId, memory);
      }
      const skipped = scheduler.complete(result.task.id, result.state);
      for (const skip of skipped) {
        const reason = `needs ${skip.blockedBy}, which ended ${skip.blockedState}`;
        // A router's destination skipped on the way (a sub-workflow's output boundary) keeps the router's decision.
        const decision = skip.task.route ? routeSkip(skip.task, outputs[skip.task.route.router]?.output) : undefined;
        if (decision !== undefined) outputs[skip.task.id] = { output: decision };
        store.writeTask(runId, skip.task.id, { state: 'skipped', ...(decision === undefined ? {} : { output: decision }), error: { code: 'AGENTCTL_E_DEPENDENCY_FAILED', message: `skipped: ${reason}` }, finished: true }, { type: 'task.skipped', data: { reason, blockedBy: skip.blockedBy } });
      }
      return skipped;
    });
    settled[scheduler.position(result.task.id)] = true;
    for (const skip of skips) settled[scheduler.position(skip.task.id)] = true;
    // A skipped task's output is its recorded decision (a false when's condition and result): readable, e.g. by spec.outputs.
    if (result.state === 'succeeded' || result.state === 'skipped') outputs[result.task.id] = outputEntry(store, result.output ?? null);
    if (stops(result) && !failure) failure = result;
    if (result.state === 'waiting_for_approval' && !pausedBy) pausedBy = result;
  };
  // Tasks that wait behind a paused task cannot run in this invocation: the cursor passes them, so independent work
  // behind them still commits and unblocks its dependents.
  const parked = new Set<string>();
  const waits = (task: CompiledTask) => task.needs.some((need) => parked.has(need) || scheduler.state(need) === 'waiting_for_approval');
  const advance = async () => {
    while (cursor < settled.length) {
      if (!settled[cursor]) {
        const result = buffered.get(cursor);
        const task = plan.tasks[cursor]!;
        if (!result && scheduler.state(task.id) === 'pending' && waits(task)) {
          parked.add(task.id);
          cursor += 1;
          continue;
        }
        if (!result) break;
        buffered.delete(cursor);
        commit(result);
      }
      cursor += 1;
    }
  };
  const launch = (task: CompiledTask) => {
    const position = scheduler.position(task.id);
    const attempt = start.attempts.get(task.id);
    const routerOutput = task.route && Object.hasOwn(outputs, task.route.router) ? { routerOutput: outputs[task.route.router]!.output } : {};
    const snapshot = snapshotAt(task);
    const body = executeTask({ host, store, plan, task, runId, traceId, scope: taskScope(plan, task, outputs, snapshot), memory: snapshot, ...routerOutput, signal, budget, vault, notice, workspaceRoot: request.workspaceRoot, ...(attempt ? { firstAttempt: attempt } : {}), ...(request.approver ? { approver: request.approver } : {}) });
    running.set(
      position,
      body.then(
        (result) => {
          running.delete(position);
          buffered.set(position, result);
          // Stop-on-failure: nothing new is launched; the tasks already running finish and commit.
          if (stops(result)) stopping = true;
        },
        (error: unknown) => {
          running.delete(position);
          broken ??= { error };
        },
      ),
    );
  };

  try {
    for (;;) {
      while (!signal.aborted && !stopping && !broken && running.size < plan.runtime.maxConcurrency && !askedToStop()) {
        const [task] = scheduler.take(1);
        if (!task) break;
        launch(task);
      }
      if (running.size === 0) break;
      await Promise.race(running.values());
      // A bug or a lost ledger in one task: its siblings still finish (and record their effects) before the run ends.
      if (broken) {
        await Promise.all(running.values());
        throw broken.error;
      }
      await advance();
    }
    await advance();
    // Outcomes behind a task that never launched (the run stopped first) still commit, in plan order.
    for (const position of [...buffered.keys()].sort((a, b) => a - b)) {
      const result = buffered.get(position)!;
      buffered.delete(position);
      commit(result);
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
    await publisher.settle();
    throw error;
  } finally {
    clearInterval(renewTimer);
    wall.dispose();
  }
  const overrun = wall.overrun();
  const ending = failure ?? (pausedBy ? undefined : failedInverse(store, runId, plan, scheduler));
  // A run that would pause with a cancellation requested ends cancelled: nobody is left to resume it for. A request
  // that came while the last task ran changes nothing: the run ended as it would have.
  if (pausedBy) askedToStop();
  const unfinished = plan.tasks.some((task) => ['pending', 'ready', 'waiting_for_approval'].includes(scheduler.state(task.id)));
  let result: RunResult;
  let warnings: Diagnostic[];
  try {
    result = await finish({ request, runId, traceId, scheduler, failure: ending, pausedBy, scope, redactValue: vault.redactor.redactValue, cancelRequested: cancelRequested && unfinished, ...(overrun ? { overrun } : {}) });
  } finally {
    // The one wait for the observers, bounded, on every way out: their output comes before the run's document.
    warnings = await publisher.settle();
  }
  return { ...result, dispositions: start.dispositions, warnings };
}

/**
 * A compensation run's inverses run with `failure: continue`, so each is tried whatever its siblings did; one that
 * failed (now or before a resume) still makes the run end failed. Its recorded error is the run's.
 */
function failedInverse(store: Store, runId: string, plan: CompiledPlan, scheduler: Scheduler): TaskOutcome | undefined {
  const task = plan.tasks.find((candidate) => candidate.compensates && scheduler.state(candidate.id) === 'failed');
  if (!task) return undefined;
  const row = store.taskRows(runId).find((candidate) => candidate.task_id === task.id);
  const recorded = JSON.parse(String(row?.error_json ?? 'null')) as { code?: string; message?: string } | null;
  const error = new AgentctlError((recorded?.code ?? 'AGENTCTL_E_RUN_FAILED') as AnyErrorCode, recorded?.message ?? `task ${task.id} failed`);
  return { task, state: 'failed', attempt: Number(row?.attempt ?? 1), durationMs: 0, error };
}

/** An outcome that ends the run: a failed task with `failure: stop`, or a fatal error regardless of `failure`. */
const stops = (result: TaskOutcome) => (result.state === 'failed' && result.task.failure === 'stop') || Boolean(result.fatal);

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
    { type: `task.${result.state}`, data: { attempt: result.attempt, durationMs: result.durationMs, ...(error ? { code: error.code, message: error.message } : {}) } },
  );
  if (result.artifacts) store.recordArtifacts(runId, result.task.id, result.artifacts);
  // A compensation task that succeeded marks the source effects it undid, with the success.
  const target = result.task.compensates;
  if (target && result.state === 'succeeded') {
    const own = store.effectRows(runId).filter((effect) => effect.task_id === result.task.id && effect.state === 'succeeded');
    store.recordCompensation({ runId, taskId: result.task.id, effectId: own.length > 0 ? String(own.at(-1)!.id) : null }, target.effectIds);
  }
  // A success's working-memory delta is kept in its checkpoint: resume, derived runs and replay rebuild memory from it.
  const delta: { memoryDelta?: MemoryDelta } = result.state === 'succeeded' && result.memoryDelta ? { memoryDelta: result.memoryDelta } : {};
  if (result.state === 'succeeded' || result.state === 'skipped') store.checkpoint(runId, result.task.id, { task: result.task.id, state: result.state, ...delta } as JsonValue);
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
  /** Set when the run's wall-time budget expired: the run fails (exit 4), whatever else ended it. */
  overrun?: BudgetExceeded;
  /** `agentctl cancel` asked the run to stop, and it stopped before its end. */
  cancelRequested: boolean;
}

async function finish(context: FinishContext): Promise<RunResult> {
  const { request, runId, traceId, scheduler, failure, pausedBy } = context;
  const { store, plan } = request;
  let state: RunState;
  let error: AgentctlError | undefined;
  let output: Record<string, JsonValue> = {};

  if (context.overrun) {
    state = 'failed';
    error = context.overrun;
  } else if (request.signal.aborted || context.cancelRequested) {
    state = 'cancelled';
    const reason = request.signal.aborted ? String(request.signal.reason ?? 'signal') : 'requested with agentctl cancel';
    error = new AgentctlError('AGENTCTL_E_CANCELLED', `run ${runId} was cancelled (${reason})`);
  } else if (failure) {
    state = 'failed';
    const cause = failure.error!;
    const diagnostics = cause.diagnostics.map((item) => ({ ...item, taskId: failure.task.id }));
    // A persistence or remote failure keeps its exit code (5, 6): CI tells "the provider was down" from "the task failed".
    const exitCode = cause.exitCode === EXIT.persistence || cause.exitCode === EXIT.remote ? { exitCode: cause.exitCode } : {};
    const own = cause.code === 'AGENTCTL_E_APPROVAL_REQUIRED' || cause.code === 'AGENTCTL_E_BUDGET_EXCEEDED';
    error = new AgentctlError(own ? cause.code : 'AGENTCTL_E_RUN_FAILED', `task ${failure.task.id} failed: ${cause.message}`, { diagnostics, ...exitCode });
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
    // Work the wall clock stopped is cancelled, not skipped: it was due to run (and a waiting task cannot be skipped).
    const closing: TaskState = state === 'cancelled' || context.overrun ? 'cancelled' : 'skipped';
    const closed = scheduler.closePending(closing);
    const waiting = store.transaction(() => {
      for (const task of closed) store.writeTask(runId, task.id, { state: closing, finished: true }, { type: `task.${closing}`, data: { reason: `run ${state}` } });
      return store.closeWaiting(runId, `run ended ${state}`);
    });
    for (const taskId of waiting) scheduler.complete(taskId, 'cancelled');
  }
  const errorJson = error ? { code: error.code, message: error.message } : undefined;
  store.finishRun(runId, state, { output, ...(errorJson ? { error: errorJson } : {}) });
  if (error) {
    error.runId = runId;
    error.traceId = traceId;
  }
  const usage = plan.tasks.some((task) => bodyOf(request.host, task.kind).usesProvider) ? modelUsage(store.usageRows(runId)) : undefined;
  return { runId, traceId, state, output, tasks: scheduler.snapshot(), ...(error ? { error } : {}), ...(usage ? { usage } : {}) };
}

