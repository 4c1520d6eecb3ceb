// One action's dispatch, whoever asked for it: a task of the action, or a model through a `kind: action` tool. Every
// effect it records acts for the action — the action's kind and class, risk and idempotency are what the ledger keeps
// and policy judges (approval included), its processes' output is metered and reserved under the run budgets, and its
// deadline bounds the work — in the one effect sequence of the task attempt, so a resumed attempt finds them by id.
import { AgentctlError, isAgentctlError, type ActionKind, type CompiledAction, type CompiledPlan, type CompiledTool, type DispatchContext, type DispatchInterceptorInput, type JsonValue, type NetworkClient, type PluginLog, type SpecSectionValues } from '@agentctl/sdk';
import { inputSchemaOf } from '../action-shape.js';
import type { Host } from '../host.js';
import { dispatchProcessService } from '../process-service.js';
import type { ApprovalOverride } from './effect-call.js';
import { meteredProcessService, type EffectBudget, type Meter, type RunBudget } from './budget.js';
import type { EffectActor, EffectRunner } from './effects.js';
import { boundedSignal } from './deadline.js';

/** What every action dispatched in one task attempt shares. */
export interface AttemptDispatch {
  readonly host: Host;
  readonly plan: CompiledPlan;
  readonly taskId: string;
  readonly attempt: number;
  /** The run's trace id, for the dispatch interceptors. */
  readonly traceId: string;
  readonly effects: EffectRunner;
  readonly budget?: RunBudget;
  /** The run's HTTP client, given to the kinds that declare `usesNetwork`. */
  readonly network?: NetworkClient;
  /** The dispatch context's fields that do not depend on the action. */
  readonly common: Pick<DispatchContext, 'run' | 'secrets' | 'sections' | 'memory' | 'files' | 'resolvePath' | 'redact' | 'longTermMemory'>;
  /** A plugin's log line, recorded for the task. */
  readonly log: (kind: string, level: 'info' | 'warn', message: string) => void;
}

/** What bounds one dispatch of an action. */
export interface ActionBounds {
  /** Aborted by cancellation and at the deadline of the work (the task's, or the tool's). */
  readonly signal: AbortSignal;
  readonly timeoutSeconds: number;
  /** A tool contract's approval rule for the action's effects. */
  readonly approval?: ApprovalOverride;
  /** The budget of the action's effects when its caller keeps one of its own (an agent task); default: its processes. */
  readonly budget?: (processes: EffectBudget | undefined) => EffectBudget | undefined;
}

/** The dispatch context of `action` with `input`, and the actor its effects are performed for. */
export function actionContext(shared: AttemptDispatch, action: CompiledAction, input: JsonValue, bounds: ActionBounds): { context: DispatchContext; actor: EffectActor } {
  const { host } = shared;
  const kind = host.actionKind(action.kind)!;
  const meter: Meter = { processOutputBytes: 0 };
  const processes = shared.budget ? processBudget(shared, action, bounds.timeoutSeconds, meter) : undefined;
  const actor = actorFor(host, action, bounds.signal, bounds.budget ? bounds.budget(processes) : processes);
  const effect = shared.effects.actingFor(actor);
  const approval = bounds.approval;
  const service = dispatchProcessService(host, bounds.signal);
  const context: DispatchContext = Object.freeze({
    ...shared.common,
    task: Object.freeze({ id: shared.taskId, attempt: shared.attempt, timeoutSeconds: bounds.timeoutSeconds }),
    signal: bounds.signal,
    process: shared.budget?.limited('processOutputBytes') ? meteredProcessService(service, meter) : service,
    ...(shared.network && kind.usesNetwork ? { network: shared.network } : {}),
    log: pluginLog((level, message) => shared.log(kind.name, level, message)),
    kind: kind.name,
    actionName: action.name,
    action: action.fields,
    input: input as Readonly<unknown>,
    effect: (approval === undefined ? effect : (request, perform, options) => effect(request, perform, options, approval)) as DispatchContext['effect'],
  });
  return { context, actor };
}

/** Who the effects of `action` are performed for. */
function actorFor(host: Host, action: CompiledAction, signal: AbortSignal, budget: EffectBudget | undefined): EffectActor {
  const owner = host.ownerOf(action.kind) ?? action.kind;
  return {
    kind: action.kind,
    profile: action.profile,
    signal,
    normalize: (error) => host.errorCodes.normalize(error, owner, `dispatch:${action.kind}`),
    ...(budget ? { budget } : {}),
  };
}

/** Dispatches `action` to its kind's owner and returns its output. */
export async function dispatchAction(shared: AttemptDispatch, action: CompiledAction, input: JsonValue, bounds: ActionBounds): Promise<JsonValue> {
  const { context } = actionContext(shared, action, input, bounds);
  const hook = shared.host.hooks.dispatch.for(context.kind);
  // Without interceptors or propagators there is nothing to compose: the hook is called as it is.
  const intercept = shared.host.interception.dispatch;
  const output = intercept
    ? await intercept(dispatchInput(shared, context), async () => (await hook.promise(context)) as JsonValue, shared.common.redact)
    : await hook.promise(context);
  if (output === undefined) throw new AgentctlError('AGENTCTL_E_PLUGIN_FAILED', `no dispatch handler returned an output for kind ${context.kind}`);
  return output;
}

/** The one read-only input of the dispatch interceptors. */
function dispatchInput(shared: AttemptDispatch, context: DispatchContext): DispatchInterceptorInput {
  return { runId: context.run.id, traceId: shared.traceId, taskId: shared.taskId, attempt: shared.attempt, kind: context.kind, signal: context.signal, actionName: context.actionName, action: context.action };
}

/**
 * A model's call of a `kind: action` tool. The call is a `tool.call` effect of the action, judged by the tool's name
 * (toolsAllow, toolsDeny) and counted in usage and maxToolCalls; it records that the call was admitted, not what the
 * action did. Its approval is the action's effects' own, each asked as in a task (with the tool's `approval` rule), so
 * one call never asks twice. Then the action runs under the tool's `timeoutSeconds`, within the task's deadline.
 */
export async function dispatchActionTool(shared: AttemptDispatch, tool: CompiledTool, callId: string, toolInput: JsonValue, task: { signal: AbortSignal; timeoutSeconds: number }): Promise<JsonValue> {
  const action = shared.plan.actions[tool.action!]!;
  const kind = shared.host.actionKind(action.kind)!;
  const input = parseInput(kind, action.fields, toolInput, `tool ${tool.name} (action ${action.name})`, shared.plan.sections);
  const deadline = boundedSignal(task.signal, tool.timeoutSeconds * 1000, `tool ${tool.name} deadline of ${tool.timeoutSeconds}s`);
  const bounds: ActionBounds = { signal: deadline.signal, timeoutSeconds: Math.min(tool.timeoutSeconds, task.timeoutSeconds), approval: tool.approval };
  try {
    // The call's record reserves nothing of the action's budget: maxToolCalls was taken when the model made the call.
    await shared.effects.actingFor(actorFor(shared.host, action, bounds.signal, undefined))(
      // The record changes nothing: internal and pure, so a crash before its `started` mark leaves nothing in doubt.
      { operation: 'tool.call', input: { tool: tool.name, kind: 'action', action: action.name, callId, input: toolInput }, access: { tool: tool.name }, profile: { effectClass: 'internal_state', idempotency: 'pure' } },
      async () => ({ action: action.name, admitted: true }),
      undefined,
      'never',
    );
    return await dispatchAction(shared, action, input, bounds);
  } catch (error) {
    if (deadline.expired() && !task.signal.aborted && isDeadlineFailure(error)) {
      throw new AgentctlError('AGENTCTL_E_TASK_TIMEOUT', `tool ${tool.name} (action ${action.name}) exceeded its timeoutSeconds of ${tool.timeoutSeconds}s${causeOf(error)}`, { cause: error });
    }
    throw error;
  } finally {
    deadline.dispose();
  }
}

/**
 * Whether what a kind threw once its deadline passed is the deadline's doing (an abort, a closed pipe): an error
 * without a code of its own, which the dispatch facade has already wrapped as the plugin's failure.
 */
export const isDeadlineFailure = (error: unknown): boolean => !isAgentctlError(error) || error.code === 'AGENTCTL_E_PLUGIN_FAILED';

/** The wrapped error's message, appended to a timeout's. */
export const causeOf = (error: unknown): string => (isAgentctlError(error) ? ` (${error.message})` : '');

/** A rendered input checked against what the action takes; a mismatch is refused before anything is recorded. */
export function parseInput(kind: ActionKind, fields: unknown, rendered: unknown, owner: string, sections?: SpecSectionValues): JsonValue {
  const parsed = inputSchemaOf(kind, fields, sections).safeParse(rendered);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue: { path: PropertyKey[]; message: string }) => `${issue.path.join('.') || 'with'}: ${issue.message}`).join('; ');
    throw new AgentctlError('AGENTCTL_E_TASK_INPUT_INVALID', `${owner} input does not match ${kind.name}: ${issues}`, {
      help: `see the ${kind.name} input fields in \`agentctl schema\``,
    });
  }
  return parsed.data as JsonValue;
}

/** Worst case of one effect of the action: a process action reserves its combined output limit per process. */
function processBudget(shared: AttemptDispatch, action: CompiledAction, timeoutSeconds: number, meter: Meter): EffectBudget | undefined {
  const { host, plan, budget } = shared;
  if (!budget?.limited('processOutputBytes')) return undefined;
  const described = host.actionKind(action.kind)!.describe?.(action.fields, { defaultTimeoutSeconds: plan.runtime.defaultTimeoutSeconds, taskTimeoutSeconds: timeoutSeconds, process: host.process });
  const processOutput = described?.process ? described.process.limits.combinedOutputLimitBytes * (described.process.processesPerEffect ?? 1) : undefined;
  return processOutput === undefined ? undefined : budget.forEffects(shared.taskId, { processOutputBytes: processOutput }, meter);
}

/** A plugin's log lines become `plugin.log` commit events, which the human progress observer prints. */
function pluginLog(emit: (level: 'info' | 'warn', message: string) => void): PluginLog {
  return Object.freeze({ info: (message: string) => emit('info', String(message)), warn: (message: string) => emit('warn', String(message)) });
}
