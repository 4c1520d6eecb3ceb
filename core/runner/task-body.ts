// The runner's side of task bodies: which body runs a task (the registered one for its kind, or the default body,
// which dispatches through the action kind), the context a body runs with, and what a body declares about its tasks.
import { AgentctlError, type ApprovalAnswer, type ApprovalQuestion, type CompiledAction, type JsonValue, type SectionSecret, type TaskBody, type TaskBodyContext } from '@agentctl/sdk';
import type { TemplateScope } from '../compiler/templates.js';
import type { Host } from '../host.js';
import type { Store } from '../store/store.js';
import { actionContext, dispatchAction, type ActionBounds, type AttemptDispatch } from './action-dispatch.js';

/**
 * What the runner hands a body: the SDK's view, and what the core's own bodies (agent, flow) read besides it: the
 * task's template scope and ledger, and for a body that is not pure the attempt's dispatch internals.
 */
export interface CoreBodyContext extends TaskBodyContext {
  readonly scope: TemplateScope;
  readonly store: Store;
  readonly internals?: AttemptInternals;
}

/** One attempt's dispatch internals, for the core's own bodies: the agent loop runs its tools' actions through them. */
export interface AttemptInternals {
  readonly shared: AttemptDispatch;
  readonly bounds: ActionBounds;
  /** Records a fact of the task for observers (e.g. one piece of a streamed answer), tied to an effect. */
  readonly progress: (type: string, data: Record<string, JsonValue>, effectId: string) => Promise<void>;
}

/** A body of the core's own, registered from the composition root: its `run` reads the core's context. */
export interface CoreTaskBody extends Omit<TaskBody, 'run'> {
  run(context: CoreBodyContext): Promise<JsonValue>;
}

/** Without a registered body, a task runs through its action kind's dispatch (the dispatch hook for its kind). */
const DEFAULT_BODY: TaskBody = Object.freeze({
  kind: '*',
  description: 'Dispatches the task to its action kind.',
  run: (context: TaskBodyContext) => context.dispatch(),
});

/** The body that runs tasks of `kind`. */
export const bodyOf = (host: Host, kind: string): TaskBody => host.taskBody(kind) ?? DEFAULT_BODY;

/** The secret references a task of `action` needs in preflight: its body's, or its kind's, written at `spec.actions.NAME`. */
export function secretUsesOf(host: Host, action: CompiledAction): readonly SectionSecret[] {
  const body = bodyOf(host, action.kind);
  if (body.secrets) return body.secrets(action);
  return (host.actionKind(action.kind)?.secretReferences?.(action.fields) ?? []).map((reference) => ({ reference, where: `spec.actions.${action.name}` }));
}

/** The parts of a body's context that every attempt has. */
export interface BodyBasics {
  readonly task: TaskBodyContext['task'];
  readonly action: CompiledAction;
  readonly input: JsonValue;
  readonly attempt: number;
  readonly run: TaskBodyContext['run'];
  readonly signal: AbortSignal;
  readonly scope: TemplateScope;
  readonly store: Store;
}

/** The context of a pure body: it evaluates recorded values, so it can neither dispatch nor ask anyone. */
export function pureBodyContext(basics: BodyBasics): CoreBodyContext {
  const refuse = () => Promise.reject(new AgentctlError('AGENTCTL_E_INTERNAL', `task ${basics.task.id}: a pure task body requests no effects`));
  return Object.freeze({ ...basics, dispatch: refuse, approval: refuse });
}

/** The context of one attempt of a body that records effects. */
export function attemptBodyContext(basics: BodyBasics, internals: AttemptInternals): CoreBodyContext {
  const { shared, bounds } = internals;
  return Object.freeze({
    ...basics,
    internals,
    dispatch: () => dispatchAction(shared, basics.action, basics.input, bounds),
    approval: (question: ApprovalQuestion) => askPerson(basics, internals, question),
  });
}

/**
 * An approval as one effect of the task's action that always needs approval (whatever `policy.approval` says; a
 * denial still stands). It performs once approved, and returns the decision recorded with the approval.
 */
async function askPerson(basics: BodyBasics, { shared, bounds }: AttemptInternals, question: ApprovalQuestion): Promise<ApprovalAnswer> {
  const { actor } = actionContext(shared, basics.action, basics.input, bounds);
  const effect = shared.effects.actingFor(actor);
  const request = { operation: question.operation, input: { question: question.question }, access: { tool: question.operation } };
  const answer = await effect(
    request,
    async (_signal, performed) => {
      const row = basics.store.approvalForEffect(performed.id);
      return { actor: String(row?.actor ?? ''), reason: String(row?.decision_reason ?? '') };
    },
    undefined,
    'always',
  );
  return answer as unknown as ApprovalAnswer;
}
