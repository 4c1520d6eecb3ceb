// One task: `when`, rendered input, dispatch under a deadline, output contract, and retries of definite failures.
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentctlError, diagnostic, EffectFailure, errorMessage, isAgentctlError, isEffectFailure, jsonSchemaProblems, type CompiledPlan, type CompiledTask, type JsonValue } from '@agentctl/sdk';
import type { Host } from '../host.js';
import { evaluate, parseTemplate, renderString, renderValue, TemplateError, type TemplateScope } from '../compiler/templates.js';
import type { Store, TaskState } from '../store/store.js';
import { createFileService } from '../files/service.js';
import { ArtifactStore, type TaskArtifact } from '../store/artifacts.js';
import { ApprovalPending, canonicalJson, createEffectRunner, OutcomeNotRecorded, sha256, type Approver } from './effects.js';
import type { SecretVault } from './secrets.js';
import type { RunBudget } from './budget.js';
import { routeSkip } from './control.js';
import { boundedSignal } from './deadline.js';
import { causeOf, isDeadlineFailure, parseInput, type AttemptDispatch } from './action-dispatch.js';
import { attemptBodyContext, bodyOf, pureBodyContext } from './task-body.js';
import { DEFAULT_LONG_TERM_MEMORY, longTermMemoryService } from '../memory/service.js';
import { memoryProvider } from './memory-embedding.js';
import { continuingEffectRunner, type ContinuingEffect } from './continue-effect.js';
import { TaskMemory, type MemorySnapshot } from './working-memory.js';
import { memoryPrefixOf } from '../compiler/memory.js';
import type { MemoryDelta } from '../store/working-memory.js';

export interface TaskRequest {
  readonly host: Host;
  readonly store: Store;
  readonly plan: CompiledPlan;
  readonly task: CompiledTask;
  readonly runId: string;
  /** The run's trace id, for interceptors and propagators. */
  readonly traceId: string;
  readonly scope: TemplateScope;
  /** The run's working memory when the task started: what its attempts read (its templates read it through `scope`). */
  readonly memory: MemorySnapshot;
  readonly signal: AbortSignal;
  readonly vault: SecretVault;
  /** Absolute root for relative paths. */
  readonly workspaceRoot: string;
  readonly approver?: Approver;
  /** The attempt to start at: 1 for a fresh task; a resumed task continues its recorded attempt or starts the next. */
  readonly firstAttempt?: number;
  /** Gives observers a notice that is not recorded (a plugin's log line, an agent's stream piece), in order with the ledger's events. */
  readonly notice: (type: string, data: Record<string, JsonValue>, taskId?: string, effectId?: string) => void;
  /** The run's budgets: a refusal fails the task and, being fatal, the run. */
  readonly budget?: RunBudget;
  /** For a router's destination: the router's recorded output, which says whether this task runs. */
  readonly routerOutput?: JsonValue;
  /** Dispatch only to observe this recorded effect (`effects continue-remote`): nothing new is recorded or sent. */
  readonly continuing?: ContinuingEffect;
}

export interface TaskOutcome {
  readonly task: CompiledTask;
  readonly state: Extract<TaskState, 'succeeded' | 'failed' | 'skipped' | 'cancelled' | 'waiting_for_approval'>;
  readonly attempt: number;
  readonly durationMs: number;
  readonly output?: JsonValue;
  /** The resolved input of the last attempt that got that far, with its digest: recorded in the task row. */
  readonly input?: RecordedInput;
  readonly error?: AgentctlError;
  /** Files the task wrote under writable roots, ingested into the artifact store: recorded with the outcome. */
  readonly artifacts?: readonly TaskArtifact[];
  /** The whole run must stop regardless of `failure: continue` (e.g. nonInteractive: fail). */
  readonly fatal?: boolean;
  /** A succeeded task's working-memory writes: committed with its success. */
  readonly memoryDelta?: MemoryDelta;
}

/** A task's rendered input as recorded: the value (redacted by the store) and the digest of the whole value. */
export interface RecordedInput {
  readonly value: JsonValue;
  readonly digest: string;
}

export async function executeTask(request: TaskRequest): Promise<TaskOutcome> {
  const { task, store, runId } = request;
  const started = performance.now();
  const resolved: Resolved = { artifacts: new Map() };
  const outcome = (state: TaskOutcome['state'], attempt: number, extra: Partial<TaskOutcome> = {}): TaskOutcome => ({
    task,
    state,
    attempt,
    durationMs: Math.round(performance.now() - started),
    ...(resolved.input ? { input: resolved.input } : {}),
    ...(resolved.artifacts.size > 0 ? { artifacts: [...resolved.artifacts.values()] } : {}),
    ...extra,
  });

  for (let attempt = request.firstAttempt ?? 1; ; attempt += 1) {
    try {
      const unselected = routeSkip(task, request.routerOutput);
      if (unselected !== undefined) return outcome('skipped', attempt, { output: unselected });
      if (task.when !== undefined && !evaluateWhen(task)(request.scope)) return outcome('skipped', attempt, { output: whenDecision(task.when, request.scope) });
      const body = bodyOf(request.host, task.kind);
      if (body.pure) {
        const value = renderValue(task.with, request.scope);
        resolved.input = { value, digest: `sha256:${sha256(canonicalJson(value))}` };
        const action = request.plan.actions[task.action]!;
        const basics = { task, action, input: value, attempt, run: { id: runId, workspaceRoot: request.workspaceRoot }, signal: request.signal, scope: request.scope, store };
        return outcome('succeeded', attempt, { output: await body.run(pureBodyContext(basics)) });
      }
      request.budget?.startTask(task.id);
      const output = await dispatch(request, attempt, resolved);
      const memoryDelta = resolved.memory?.delta();
      return outcome('succeeded', attempt, { output, ...(memoryDelta ? { memoryDelta } : {}) });
    } catch (thrown) {
      // The ledger failed under an effect that happened: the run stops; this task is neither failed nor retried.
      if (thrown instanceof OutcomeNotRecorded) throw thrown;
      const error = asError(thrown, request);
      if (error instanceof ApprovalPending) return outcome('waiting_for_approval', attempt, { error });
      if (request.signal.aborted) return outcome('cancelled', attempt, { error: new AgentctlError('AGENTCTL_E_CANCELLED', `task ${task.id} was cancelled`) });
      // A budget refusal is final for the whole run: retrying would only be refused again.
      const overBudget = error.code === 'AGENTCTL_E_BUDGET_EXCEEDED';
      // The task's body may refuse a retry (an agent's refusal by its provider would be refused again).
      const bodyRefuses = bodyOf(request.host, task.kind).retries?.(error) === false;
      const retryable = isEffectFailure(error) && error.outcome === 'failed' && !overBudget && !bodyRefuses;
      if (!retryable || attempt >= task.retry.maxAttempts) {
        return outcome('failed', attempt, { error, fatal: error.code === 'AGENTCTL_E_APPROVAL_REQUIRED' || overBudget });
      }
      store.updateTask(runId, task.id, { state: 'retry_scheduled', error: { code: error.code, message: error.message } }, { type: 'task.retry_scheduled', data: { attempt, backoffMs: task.retry.backoffMs, code: error.code } });
      try {
        await sleep(task.retry.backoffMs, undefined, { signal: request.signal });
      } catch {
        return outcome('cancelled', attempt, { error: new AgentctlError('AGENTCTL_E_CANCELLED', `task ${task.id} was cancelled`) });
      }
    }
  }
}

/**
 * Dispatches a task once, only to observe `request.continuing` (its recorded attempt): returns the task's output and
 * the files it kept. Every failure is thrown as it is; nothing of the task or run is recorded here.
 */
export async function continueTask(request: TaskRequest & { readonly continuing: ContinuingEffect }, attempt: number): Promise<{ output: JsonValue; artifacts: TaskArtifact[] }> {
  const resolved: Resolved = { artifacts: new Map() };
  try {
    const output = await dispatch(request, attempt, resolved);
    return { output, artifacts: [...resolved.artifacts.values()] };
  } catch (error) {
    throw asError(error, request);
  }
}

const whenCache = new WeakMap<CompiledTask, (scope: TemplateScope) => boolean>();

function evaluateWhen(task: CompiledTask): (scope: TemplateScope) => boolean {
  let evaluator = whenCache.get(task);
  if (!evaluator) {
    const parsed = parseTemplate(task.when!);
    evaluator = (scope) => {
      const value = renderString(task.when!, scope, parsed);
      if (typeof value !== 'boolean') throw new TemplateError(`when must evaluate to a boolean, got ${JSON.stringify(value)}`);
      return value;
    };
    whenCache.set(task, evaluator);
  }
  return evaluator;
}

/**
 * A false `when`'s durable decision, the skipped task's output (the reference's shape): the expression, a digest of
 * the values it read (each path it names, with its value), and the result.
 */
function whenDecision(expression: string, scope: TemplateScope): JsonValue {
  const read = parseTemplate(expression).segments.flatMap((segment) => ('expression' in segment ? [{ path: segment.expression.path.join('.'), value: evaluate({ source: segment.expression.source, negate: false, path: segment.expression.path }, scope) }] : []));
  return { reason: 'when condition was false', condition: { expression, contextDigest: `sha256:v1:${sha256(canonicalJson(read as unknown as JsonValue))}`, result: false } };
}

/** What the attempts of one task resolved: the last rendered input, and every file written (the last bytes per path). */
interface Resolved {
  input?: RecordedInput;
  /** The last attempt's working memory: only a success keeps its delta. */
  memory?: TaskMemory;
  readonly artifacts: Map<string, TaskArtifact>;
}

/** Files written through the task's file service go to the artifact store beside the database. */
function artifactSink(store: Store, artifacts: Map<string, TaskArtifact>, guard: <B extends { size: number }>(ingest: (bytes: Uint8Array) => Promise<B>) => (bytes: Uint8Array) => Promise<B> = (ingest) => ingest) {
  const blobs = ArtifactStore.beside(store.path);
  return {
    ingest: guard((bytes: Uint8Array) => blobs.ingest(bytes).catch((error: AgentctlError) => Promise.reject(new EffectFailure('failed', error.code, error.message)))),
    record: (path: string, blob: { digest: string; size: number }) => void artifacts.set(path, { path, ...blob }),
  };
}

async function dispatch(request: TaskRequest, attempt: number, resolved: Resolved): Promise<JsonValue> {
  const { host, plan, task, runId } = request;
  const action = plan.actions[task.action]!;
  const kind = host.actionKind(action.kind)!;
  const rendered = renderValue(task.with, request.scope);
  const input = parseInput(kind, action.fields, rendered, `task ${task.id}`, plan.sections);
  const canonical = canonicalJson(input);
  // An input that holds a secret value gets a keyed digest: a plain hash of a short input could be reversed.
  const holdsSecret = request.vault.redactor.redact(canonical) !== canonical;
  resolved.input = { value: input, digest: holdsSecret ? request.vault.digest(canonical) : `sha256:${sha256(canonical)}` };
  const recordedInput = resolved.input;
  // Each attempt writes afresh over the task's snapshot: a failed attempt's writes are dropped with it.
  const memory = (resolved.memory = new TaskMemory(request.memory, task.memoryWrites ?? [], task.id, memoryPrefixOf(task.namespace)));
  const timeoutSeconds = task.timeoutSeconds ?? plan.runtime.defaultTimeoutSeconds;
  // The task's signal: aborted by the run's cancellation or at the task deadline (reason: a TimeoutError).
  const deadline = boundedSignal(request.signal, timeoutSeconds * 1000, `task deadline of ${timeoutSeconds}s`);
  const signal = deadline.signal;
  const workspaceRoot = request.workspaceRoot;
  const redact = request.vault.redactor.redact;
  const ledger: { lost?: OutcomeNotRecorded } = {};
  const budget = request.budget;
  const effects = request.continuing ? continuingEffectRunner(request.store, { runId, taskId: task.id, attempt }, request.continuing) : createEffectRunner({
    hooks: host.hooks,
    store: request.store,
    runId,
    taskId: task.id,
    attempt,
    policy: plan.policy,
    workspaceRoot,
    redact,
    ...(request.approver ? { approver: request.approver } : {}),
    firstRecord: () =>
      request.store.writeTask(runId, task.id, { state: 'running', attempt, input: recordedInput as unknown as JsonValue, started: true }, { type: 'task.running', data: { attempt } }),
    ledger,
    traceId: request.traceId,
    interception: host.interception,
  });
  // The workflow's long-term memory store is opened on first use and closed when the attempt ends.
  const secrets = request.vault.forTask();
  const provider = memoryProvider(host, plan, secrets, request.vault.network, signal, timeoutSeconds * 1000);
  const longTerm = longTermMemoryService((name) => host.memoryStore(name), plan.longTermMemory ?? DEFAULT_LONG_TERM_MEMORY, request.store, { redact: request.vault.redactor.redactValue, ...(provider ? { provider } : {}) });
  // Every action dispatched in this attempt — the task's own, or one a model runs through a tool — shares these.
  const shared: AttemptDispatch = {
    host,
    plan,
    taskId: task.id,
    attempt,
    traceId: request.traceId,
    effects,
    ...(budget ? { budget } : {}),
    ...(request.vault.network ? { network: request.vault.network } : {}),
    common: {
      run: Object.freeze({ id: runId, workspaceRoot }),
      secrets,
      sections: plan.sections ?? {},
      memory,
      files: createFileService({ workspaceRoot, writableRoots: plan.policy.writableRoots, artifacts: artifactSink(request.store, resolved.artifacts, budget && ((ingest) => budget.guardIngest(task.id, ingest))) }),
      resolvePath: (path: string) => resolve(workspaceRoot, path),
      redact: request.vault.redactor.text,
      longTermMemory: longTerm.service,
    },
    log: (kindName, level, message) => request.notice('plugin.log', { level, kind: kindName, message: redact(message) }, task.id),
  };
  const bounds = { signal, timeoutSeconds };
  const basics = { task, action, input, attempt, run: shared.common.run, signal, scope: request.scope, store: request.store };
  const progress = async (type: string, data: Record<string, JsonValue>, effectId: string) => request.notice(type, data, task.id, effectId);
  let output: JsonValue | undefined;
  try {
    output = await bodyOf(host, task.kind).run(attemptBodyContext(basics, { shared, bounds, progress }));
  } catch (error) {
    if (ledger.lost) throw ledger.lost;
    if (deadline.expired() && !request.signal.aborted && isDeadlineFailure(error)) {
      throw new AgentctlError('AGENTCTL_E_TASK_TIMEOUT', `task ${task.id} exceeded its timeout of ${timeoutSeconds}s${causeOf(error)}`, { cause: error });
    }
    throw error;
  } finally {
    deadline.dispose();
    longTerm.close();
  }
  // A kind that caught the ledger's failure and returned anyway does not make its task succeed.
  if (ledger.lost) throw ledger.lost;
  if (output === undefined) throw new AgentctlError('AGENTCTL_E_PLUGIN_FAILED', `no dispatch handler returned an output for kind ${kind.name}`);
  if (task.outputSchema !== undefined) checkOutput(task, output);
  return output;
}

function checkOutput(task: CompiledTask, output: JsonValue): void {
  let problems: string[];
  try {
    problems = jsonSchemaProblems(task.outputSchema!, output);
  } catch (error) {
    throw new AgentctlError('AGENTCTL_E_TASK_OUTPUT_INVALID', `task ${task.id} outputSchema is not a valid JSON Schema: ${errorMessage(error)}`);
  }
  if (problems.length > 0) throw new AgentctlError('AGENTCTL_E_TASK_OUTPUT_INVALID', `task ${task.id} output does not match its outputSchema: ${problems.join('; ')}`);
}

function asError(thrown: unknown, request: TaskRequest): AgentctlError {
  // Plugins and templates may echo any value in an error: nothing leaves the task unredacted.
  const redact = request.vault.redactor.redact;
  if (thrown instanceof TemplateError) {
    const message = redact(thrown.message);
    return new AgentctlError('AGENTCTL_E_TEMPLATE_EVALUATION', `task ${request.task.id}: ${message}`, {
      diagnostics: [diagnostic('AGENTCTL_E_TEMPLATE_EVALUATION', { message, path: `tasks.${request.task.id}`, taskId: request.task.id })],
    });
  }
  // Errors from the kind's dispatch were normalized by its hook facade; anything else unexpected names the owner too.
  const kind = request.task.kind;
  const error = isAgentctlError(thrown) ? thrown : request.host.errorCodes.normalize(thrown, request.host.ownerOf(kind) ?? kind, `dispatch:${kind}`);
  error.message = redact(error.message);
  error.diagnostics.forEach((item, index) => {
    error.diagnostics[index] = { ...item, message: redact(item.message), ...(item.help === undefined ? {} : { help: redact(item.help) }) };
  });
  return error;
}
