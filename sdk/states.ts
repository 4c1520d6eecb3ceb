// The state vocabularies of runs, tasks, effects and approvals, declared once. The store's transition table,
// its SQL CHECK constraints and every state a plugin may observe come from these lists.

/** States of a run (SPEC §7). */
export const RUN_STATES = ['running', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
/** State of a run. */
export type RunState = (typeof RUN_STATES)[number];

/** States of a task within a run. */
export const TASK_STATES = ['pending', 'ready', 'running', 'waiting_for_approval', 'retry_scheduled', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;
/** State of a task. */
export type TaskState = (typeof TASK_STATES)[number];

/** States of a recorded effect: `requested` is committed before dispatch. */
export const EFFECT_STATES = ['requested', 'started', 'succeeded', 'failed', 'uncertain', 'waiting_for_approval', 'cancelled'] as const;
/** State of an effect. */
export type EffectState = (typeof EFFECT_STATES)[number];

/** States of an approval request. */
export const APPROVAL_STATES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
/** State of an approval request. */
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** How a task's result came to be: run now, reused from a source run, or rebuilt from the record. */
export const TASK_DISPOSITIONS = ['executed', 'reused', 'recorded'] as const;
/** Disposition of a task. */
export type Disposition = (typeof TASK_DISPOSITIONS)[number];

/** How a run was created. */
export const RUN_MODES = ['execute', 'replay', 'retry', 'repair', 'fork', 'compensation', 'shard', 'gather'] as const;
/** Mode of a run. */
export type RunMode = (typeof RUN_MODES)[number];

/**
 * Every audit event type the core records and the `commit` hook reports: the state a run, task or effect entered, and
 * the decisions around them.
 */
export const AUDIT_EVENTS = [
  'run.started',
  // A run or task entering one of its states.
  ...RUN_STATES.map((state) => `run.${state}` as const),
  'run.replayed',
  'run.resumed',
  'run.interrupted',
  // `agentctl cancel` asked the run to stop (its driver stops at the next task boundary).
  'run.cancel_requested',
  // `resume --workspace DIR` continued the run in another folder.
  'run.workspace_moved',
  'run.retry',
  'run.repair',
  'run.fork',
  'run.compensation',
  'run.shard',
  'run.gather',
  ...TASK_STATES.map((state) => `task.${state}` as const),
  'task.reused',
  ...EFFECT_STATES.map((state) => `effect.${state}` as const),
  'effect.unchanged',
  'policy.denied',
  'approval.requested',
  'approval.approved',
  'approval.rejected',
  'approval.denied',
  'approval.cancelled',
  'effect.reconciled',
  'effect.compensated',
  'budget.exceeded',
  'artifact.recorded',
  // A protocol client committed the remote identity of an effect while performing it (e.g. a remote task id).
  'protocol.call_recorded',
  // A later process took up an effect from its recorded protocol call, observing instead of sending again.
  'protocol.call_continued',
] as const;
/** An audit event type. */
export type AuditEventType = (typeof AUDIT_EVENTS)[number];
