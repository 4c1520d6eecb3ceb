// The one table of legal state changes for runs, tasks and effects. The store applies every change with a guarded
// UPDATE (`WHERE state IN (predecessors)`), so an illegal transition changes nothing and throws: it is a bug.
import { AgentctlError, type EffectState, type RunState, type TaskState } from '@agentctl/sdk';

type Table<S extends string> = Readonly<Record<S, readonly S[]>>;

export const RUN_TRANSITIONS: Table<RunState> = {
  running: ['paused', 'succeeded', 'failed', 'cancelled'],
  paused: ['running', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

const UNFINISHED_TASK_NEXT: readonly TaskState[] = ['running', 'waiting_for_approval', 'retry_scheduled', 'succeeded', 'failed', 'skipped', 'cancelled'];

export const TASK_TRANSITIONS: Table<TaskState> = {
  pending: ['ready', ...UNFINISHED_TASK_NEXT],
  ready: UNFINISHED_TASK_NEXT,
  running: ['waiting_for_approval', 'retry_scheduled', 'succeeded', 'failed', 'cancelled'],
  waiting_for_approval: ['running', 'failed', 'cancelled'],
  retry_scheduled: UNFINISHED_TASK_NEXT,
  succeeded: [],
  failed: [],
  skipped: [],
  cancelled: [],
};

export const EFFECT_TRANSITIONS: Table<EffectState> = {
  // `uncertain`: found only `requested` in an interrupted run, where a power loss may have lost its `started` mark.
  requested: ['started', 'uncertain', 'cancelled'],
  waiting_for_approval: ['requested', 'cancelled'],
  // A started effect may have happened: it ends known (succeeded, failed) or in doubt, never `cancelled`.
  started: ['succeeded', 'failed', 'uncertain'],
  // Taken up again only by observing the remote work its protocol call recorded (core/store/protocol-calls.ts).
  uncertain: ['started'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

/** The states a record may be in to move to `target`. */
export function predecessors<S extends string>(table: Table<S>, target: S): S[] {
  return (Object.keys(table) as S[]).filter((state) => table[state].includes(target));
}

/** The SQL list of the states that may move to `target`, e.g. `'pending','running'`; `NULL` when none may. */
export function predecessorList<S extends string>(table: Table<S>, target: S): string {
  const states = predecessors(table, target);
  return states.length === 0 ? 'NULL' : states.map((state) => `'${state}'`).join(',');
}

/** Thrown when the store is asked for a state change the table does not allow. */
export function illegalTransition(what: string, id: string, from: string | undefined, to: string): AgentctlError {
  return new AgentctlError('AGENTCTL_E_INTERNAL', `illegal ${what} transition ${from ?? '(missing)'} → ${to} for ${id}`, {
    help: 'this is a bug in agentctl; please report it with the command you ran',
  });
}
