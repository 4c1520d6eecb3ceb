// The heavy half of the pack, imported on first use: spans for runs and task attempts (from the ledger's commit
// events, at their recorded times), for effects (from the interceptor, live, active around the perform), and the
// W3C trace context propagated to child processes and HTTP requests.
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { isEffectFailure, type CommitEvent, type DispatchInterceptorInput, type EffectInterceptorInput, type InterceptorNext, type JsonValue, type PropagationContext } from '@agentctl/sdk';
import { cut, DISPOSITION, effectAttributes, effectSpanName, MODEL_TURN, modelResponseAttributes, type Outcome } from './attributes.js';
import { isTraceId, rootSpanId } from './ids.js';
import { embeddedProvider, embeddedSink, ownSink, type SpanSink } from './provider.js';
import type { Settings } from './settings.js';

/** How long an effect waits for its run's first commit event (its span's parent) before it starts the run span itself. */
const RUN_START_WAIT_MS = 1_000;
/** The commit events that end a run's span in this process, with the state it records. */
const RUN_ENDS: Readonly<Record<string, string>> = { 'run.succeeded': 'succeeded', 'run.failed': 'failed', 'run.cancelled': 'cancelled', 'run.paused': 'paused', 'run.interrupted': 'interrupted' };
const TASK_ENDS: Readonly<Record<string, string>> = {
  'task.succeeded': 'succeeded',
  'task.failed': 'failed',
  'task.cancelled': 'cancelled',
  'task.skipped': 'skipped',
  'task.reused': 'reused',
  'task.waiting_for_approval': 'waiting_for_approval',
  'task.retry_scheduled': 'retry_scheduled',
};
const DERIVATIONS = new Set(['run.retry', 'run.repair', 'run.fork']);

interface TaskSpan {
  readonly span: Span;
  readonly context: Context;
  /** The task's latest model turn: its tool calls are its children. */
  turn?: Context;
  /**
   * A `kind: action` tool call whose action is dispatched next: the call's record is over before the action runs, so
   * its span stays open until that dispatch ends, and the action's effects are its children.
   */
  toolCall?: { readonly span: Span; readonly context: Context; readonly action: string };
}

interface RunSpans {
  readonly traceId: string;
  span?: Span;
  context?: Context;
  readonly began: Promise<void>;
  readonly begin: () => void;
  readonly tasks: Map<string, TaskSpan>;
  /** The latest attempt's span of each task, for the events that name no attempt. */
  readonly latest: Map<string, TaskSpan>;
}

/** The effect span active around a perform: nested effects (those a tool call performs) are its children. */
interface Active {
  readonly runId: string;
  readonly taskId: string;
  readonly span: Span;
  readonly context: Context;
}

const w3c = new W3CTraceContextPropagator();

export class Tracing {
  readonly #tracer: Tracer;
  readonly #runs = new Map<string, RunSpans>();
  readonly #active = new AsyncLocalStorage<Active>();

  constructor(private readonly sink: SpanSink) {
    this.#tracer = sink.provider.getTracer('@agentctl/pack-otel', '0.1.0');
  }

  /** The effect interceptor: one span around the perform, active while it runs. */
  async effect(input: EffectInterceptorInput, next: InterceptorNext): Promise<JsonValue> {
    const run = await this.#runFor(input.runId, input.traceId);
    const task = this.#task(run, input.runId, input.taskId, input.attempt);
    const outer = this.#active.getStore();
    const parent = outer && outer.runId === input.runId && outer.taskId === input.taskId ? outer.context : input.operation === 'tool.call' && task.turn ? task.turn : task.context;
    const span = this.#tracer.startSpan(effectSpanName(input), { kind: input.operation === MODEL_TURN ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: effectAttributes(input) }, parent);
    const spanContext = trace.setSpan(parent, span);
    if (input.operation === MODEL_TURN) task.turn = spanContext;
    let open = false;
    try {
      const value = await this.#active.run({ runId: input.runId, taskId: input.taskId, span, context: spanContext }, () => context.with(spanContext, next));
      if (input.operation === MODEL_TURN) span.setAttributes(modelResponseAttributes(value));
      this.#outcome(span, 'succeeded');
      const action = actionOfToolCall(input);
      if (action !== undefined) {
        this.#closeToolCall(task);
        task.toolCall = { span, context: spanContext, action };
        open = true;
      }
      return value;
    } catch (error) {
      const outcome: Outcome = isEffectFailure(error) ? error.outcome : 'uncertain';
      const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'AGENTCTL_E_PLUGIN_FAILED';
      this.#outcome(span, outcome, code);
      throw error;
    } finally {
      if (!open) span.end();
    }
  }

  /** The dispatch interceptor: the action of a `kind: action` tool call runs inside that call's span. */
  async dispatch(input: DispatchInterceptorInput, next: InterceptorNext): Promise<JsonValue> {
    const task = this.#runs.get(input.runId)?.tasks.get(taskKey(input.taskId, input.attempt));
    const call = task?.toolCall;
    if (!task || !call || call.action !== input.actionName) return next();
    task.toolCall = undefined;
    try {
      return await this.#active.run({ runId: input.runId, taskId: input.taskId, span: call.span, context: call.context }, () => context.with(call.context, next));
    } catch (error) {
      const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'AGENTCTL_E_PLUGIN_FAILED';
      call.span.setAttributes({ 'error.type': code, 'agentctl.error.code': code });
      call.span.setStatus({ code: SpanStatusCode.ERROR, message: code });
      throw error;
    } finally {
      call.span.end();
    }
  }

  /** Ends a tool call's span whose action never came (refused before its dispatch). */
  #closeToolCall(task: TaskSpan): void {
    task.toolCall?.span.end();
    task.toolCall = undefined;
  }

  #outcome(span: Span, outcome: Outcome, code?: string): void {
    span.setAttributes({ 'agentctl.effect.outcome': outcome, 'agentctl.effect.disposition': DISPOSITION[outcome] });
    if (code === undefined) return;
    span.setAttributes({ 'error.type': code, 'agentctl.error.code': code });
    span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  }

  /** The W3C trace context of the work running now: the active effect span, else the task attempt's span. */
  #carrier(work: PropagationContext): Record<string, string> {
    const active = this.#active.getStore();
    const run = this.#runs.get(work.runId);
    const task = run?.tasks.get(taskKey(work.taskId, work.attempt));
    const current = active && active.runId === work.runId ? active.context : task?.context;
    if (!current) return {};
    const carrier: Record<string, string> = {};
    w3c.inject(current, carrier, { set: (target, key, value) => void (target[key] = value) });
    return carrier;
  }

  /** The `TRACEPARENT` (and `TRACESTATE`) entries of a child process's environment. */
  environment(work: PropagationContext): Record<string, string> {
    const carrier = this.#carrier(work);
    return { ...(carrier.traceparent ? { TRACEPARENT: carrier.traceparent } : {}), ...(carrier.tracestate ? { TRACESTATE: carrier.tracestate } : {}) };
  }

  /** The `traceparent` (and `tracestate`) headers of an outgoing HTTP request. */
  headers(work: PropagationContext): Record<string, string> {
    return this.#carrier(work);
  }

  /** The commit tap: run and task spans, and the events on them. Resolves to a problem to warn about at a run's end. */
  async commit(event: CommitEvent): Promise<string | undefined> {
    const data = event.data;
    const at = new Date(event.at);
    if (event.type === 'run.started' || event.type === 'run.resumed') {
      const traceId = isTraceId(data.traceId) ? data.traceId : this.#runs.get(event.runId)?.traceId;
      if (!traceId) return undefined;
      this.#begin(this.#spans(event.runId, traceId), event.runId, event.type === 'run.resumed', at, typeof data.workflow === 'string' ? data.workflow : undefined);
      return undefined;
    }
    if (event.type === 'run.replayed') return this.#replayed(event, at);
    const run = this.#runs.get(event.runId);
    if (!run?.span) return undefined;
    if (DERIVATIONS.has(event.type)) {
      this.#derived(run.span, event.type.slice('run.'.length), data);
      return undefined;
    }
    const runEnd = RUN_ENDS[event.type];
    if (runEnd !== undefined) return this.#endRun(event.runId, run, runEnd, data, at);
    if (event.type === 'run.cancel_requested') run.span.addEvent('run.cancel_requested', {}, at);
    if (event.taskId === undefined) return undefined;
    this.#taskEvent(event, run, at);
    return undefined;
  }

  #taskEvent(event: CommitEvent, run: RunSpans, at: Date): void {
    const { data } = event;
    const taskId = event.taskId!;
    const attempt = typeof data.attempt === 'number' ? data.attempt : undefined;
    if (event.type === 'task.running' && attempt !== undefined) {
      this.#task(run, event.runId, taskId, attempt, at);
      return;
    }
    const task = (attempt === undefined ? run.latest.get(taskId) : run.tasks.get(taskKey(taskId, attempt))) ?? this.#unstarted(event, run, at);
    if (!task) return;
    if (event.type.startsWith('approval.')) {
      task.span.addEvent(event.type, { ...(typeof data.approvalId === 'string' ? { 'agentctl.approval.id': data.approvalId } : {}), ...(event.effectId ? { 'agentctl.effect.id': event.effectId } : {}), ...(typeof data.reason === 'string' ? { 'agentctl.approval.reason': cut(data.reason) } : {}) }, at);
      return;
    }
    const state = TASK_ENDS[event.type];
    if (state === undefined) return;
    task.span.setAttribute('agentctl.task.state', state);
    if (state === 'waiting_for_approval') task.span.addEvent('task.paused', { 'agentctl.task.state': state }, at);
    if (state === 'failed' || state === 'cancelled') failed(task.span, data.code, data.message);
    this.#closeToolCall(task);
    task.span.end(at);
    for (const [key, open] of run.tasks) if (open === task) run.tasks.delete(key);
  }

  async #endRun(runId: string, run: RunSpans, state: string, data: CommitEvent['data'], at: Date): Promise<string | undefined> {
    const span = run.span!;
    span.setAttribute('agentctl.run.state', state);
    const error = data.error !== null && typeof data.error === 'object' && !Array.isArray(data.error) ? data.error : undefined;
    if (state === 'paused') span.addEvent('run.paused', { ...(typeof error?.code === 'string' ? { 'agentctl.pause.code': error.code } : {}) }, at);
    else if (error) failed(span, error.code, error.message);
    for (const task of run.tasks.values()) {
      this.#closeToolCall(task);
      if (task.span.isRecording()) task.span.end(at);
    }
    span.end(at);
    this.#runs.delete(runId);
    return this.sink.flush();
  }

  /**
   * A replay is recorded whole, in one transaction, and performs nothing: its run span starts and ends at its one
   * `run.replayed` record, with the source's recorded end state, and links to the source run's root span.
   */
  async #replayed(event: CommitEvent, at: Date): Promise<string | undefined> {
    const { data } = event;
    if (!isTraceId(data.traceId)) return undefined;
    const run = this.#spans(event.runId, data.traceId);
    this.#begin(run, event.runId, false, at, typeof data.workflow === 'string' ? data.workflow : undefined);
    if (!run.span) return undefined;
    this.#derived(run.span, 'replay', data);
    if (typeof data.tasks === 'number') run.span.setAttribute('agentctl.run.tasks', data.tasks);
    return this.#endRun(event.runId, run, typeof data.state === 'string' ? data.state : 'succeeded', data, at);
  }

  /** A derived run (retry, repair, fork, replay) links to its source run's root span. */
  #derived(span: Span, mode: string, data: CommitEvent['data']): void {
    span.setAttribute('agentctl.run.derivation', mode);
    if (typeof data.sourceRunId !== 'string') return;
    span.setAttribute('agentctl.run.source_id', data.sourceRunId);
    if (!isTraceId(data.sourceTraceId)) return;
    span.addLink({ context: { traceId: data.sourceTraceId, spanId: rootSpanId(data.sourceRunId), traceFlags: TraceFlags.SAMPLED, isRemote: true }, attributes: { 'agentctl.link': `${mode}_of` } });
  }

  #spans(runId: string, traceId: string): RunSpans {
    let run = this.#runs.get(runId);
    if (!run) {
      let begin!: () => void;
      const began = new Promise<void>((resolve) => (begin = resolve));
      run = { traceId, began, begin, tasks: new Map(), latest: new Map() };
      this.#runs.set(runId, run);
    }
    return run;
  }

  /** The run's spans, once its run span exists: after its first commit event, or a bounded wait. */
  async #runFor(runId: string, traceId: string): Promise<RunSpans> {
    const run = this.#spans(runId, traceId);
    if (run.span) return run;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([run.began, new Promise<void>((resolve) => (timer = setTimeout(resolve, RUN_START_WAIT_MS)))]);
    clearTimeout(timer);
    if (!run.span) this.#begin(run, runId, false, new Date(), undefined);
    return run;
  }

  /**
   * The run span of this process. A run's first process makes the trace's root span: with the pack's own provider it
   * has the run's trace id and the span id derived from the run id. A resumed process's run span, and every run span
   * under an embedder's provider, is a child of that root (a remote parent), so it is in the run's trace too.
   */
  #begin(run: RunSpans, runId: string, resumed: boolean, at: Date, workflow: string | undefined): void {
    if (run.span) return;
    const root: SpanContext = { traceId: run.traceId, spanId: rootSpanId(runId), traceFlags: this.sink.sampled(run.traceId) ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true };
    const attributes: Attributes = { 'agentctl.run.id': runId, 'agentctl.run.resumed': resumed, ...(workflow ? { 'agentctl.workflow.name': cut(workflow, 256) } : {}) };
    const own = this.sink.ids && !resumed;
    const parent = own ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, root);
    if (own) this.sink.ids!.use(run.traceId, root.spanId);
    try {
      run.span = this.#tracer.startSpan(workflow ? `run ${cut(workflow, 128)}` : 'run', { kind: SpanKind.INTERNAL, root: own, startTime: at, attributes }, parent);
    } finally {
      this.sink.ids?.clear();
    }
    run.context = trace.setSpan(ROOT_CONTEXT, run.span);
    run.begin();
  }

  /**
   * A task that ends without having run anything recorded (a pure task such as an assert, a skipped one) has no
   * `task.running`: its span is made at its end, starting its recorded duration before it.
   */
  #unstarted(event: CommitEvent, run: RunSpans, at: Date): TaskSpan | undefined {
    const state = TASK_ENDS[event.type];
    if (state === undefined || state === 'waiting_for_approval') return undefined;
    const attempt = typeof event.data.attempt === 'number' ? event.data.attempt : 1;
    const durationMs = typeof event.data.durationMs === 'number' && event.data.durationMs >= 0 ? event.data.durationMs : 0;
    const task = this.#task(run, event.runId, event.taskId!, attempt, new Date(at.getTime() - durationMs));
    // A replay's tasks are `recorded` (copied from the source), a derived run's unchanged ones `reused`.
    if (typeof event.data.disposition === 'string') task.span.setAttribute('agentctl.task.disposition', event.data.disposition);
    return task;
  }

  /** The span of one task attempt, started at `at` (its `task.running`) or now, when an effect comes first. */
  #task(run: RunSpans, runId: string, taskId: string, attempt: number, at?: Date): TaskSpan {
    const key = taskKey(taskId, attempt);
    const existing = run.tasks.get(key);
    if (existing) return existing;
    const span = this.#tracer.startSpan(`task ${taskId}`, { kind: SpanKind.INTERNAL, ...(at ? { startTime: at } : {}), attributes: { 'agentctl.run.id': runId, 'agentctl.task.id': taskId, 'agentctl.task.attempt': attempt } }, run.context);
    const task: TaskSpan = { span, context: trace.setSpan(run.context!, span) };
    run.tasks.set(key, task);
    run.latest.set(taskId, task);
    return task;
  }
}

const taskKey = (taskId: string, attempt: number) => `${taskId}\u0000${attempt}`;

/** The action a `kind: action` tool call admitted (from its recorded input), or undefined for any other effect. */
function actionOfToolCall(input: EffectInterceptorInput): string | undefined {
  if (input.operation !== 'tool.call' || input.input === null || typeof input.input !== 'object' || Array.isArray(input.input)) return undefined;
  const { kind, action } = input.input;
  return kind === 'action' && typeof action === 'string' ? action : undefined;
}

/** An error status carrying the stable code (`error.type`); the message is the ledger's, already redacted. */
function failed(span: Span, code: JsonValue | undefined, message: JsonValue | undefined): void {
  const stable = typeof code === 'string' ? code : 'AGENTCTL_E_RUN_FAILED';
  span.setAttributes({ 'error.type': stable, 'agentctl.error.code': stable });
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof message === 'string' ? cut(message) : stable });
}

/** The spans' destination: the embedder's provider, or the pack's own exporting one. */
export async function createTracing(settings: Settings | undefined, hostVersion: string): Promise<Tracing> {
  const embedded = embeddedProvider();
  if (embedded) return new Tracing(embeddedSink(embedded));
  if (!settings) throw new Error('telemetry is on for an embedder, but its tracer provider is gone');
  return new Tracing(await ownSink(settings, hostVersion));
}
