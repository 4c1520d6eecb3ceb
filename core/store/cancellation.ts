// `agentctl cancel RUN`: a durable cancellation request. A run a live process drives gets a `run.cancel_requested`
// event, which that process reads between tasks (Store.cancelRequested) and stops at; a run nobody drives (paused, or
// interrupted) ends `cancelled` at once, in the same transaction. A run that already ended is refused.
import { AgentctlError, type RunState } from '@agentctl/sdk';
import { mayHaveHappened } from './doubt.js';
import { hasEnded } from './runs.js';
import type { Row, Store } from './store.js';

const UNFINISHED_TASKS: readonly string[] = ['pending', 'ready', 'running', 'retry_scheduled'];

export interface CancellationResult {
  readonly runId: string;
  readonly previousState: RunState;
  /** `cancelled`: ended now; `running`: its driver stops at its next task boundary. */
  readonly state: RunState;
}

export function requestCancellation(store: Store, runId: string, isLive: (row: Row) => boolean): CancellationResult {
  return store.transaction(() => {
    // Read under the write lock: a driver that ends the run, or a resume that takes it, cannot slip in between.
    const run = store.existingRun(runId);
    const previousState = String(run.state) as RunState;
    if (hasEnded(previousState)) {
      throw new AgentctlError('AGENTCTL_E_RUN_ENDED', `run ${runId} already ended ${previousState}; there is nothing to cancel`, { help: `see how it ended: agentctl inspect ${runId}` });
    }
    store.audit(runId, { type: 'run.cancel_requested', data: { by: 'agentctl cancel', state: previousState } });
    if (previousState === 'running' && isLive(run)) return { runId, previousState, state: 'running' };
    cancelUndriven(store, runId, previousState);
    return { runId, previousState, state: 'cancelled' };
  });
}

/**
 * Ends a run nobody drives as `cancelled`: its open effects end in doubt (`uncertain`) when a dispatch may have
 * happened, else `cancelled`; waiting tasks, effects and approvals are cancelled, and so is every unfinished task.
 */
function cancelUndriven(store: Store, runId: string, previousState: RunState): void {
  const reason = 'cancelled by agentctl cancel';
  for (const effect of store.effectRows(runId)) {
    if (effect.state !== 'started' && effect.state !== 'requested') continue;
    const next = mayHaveHappened(effect, { state: previousState, live: false }) ? 'uncertain' : 'cancelled';
    store.updateEffect(runId, String(effect.id), next, { taskId: String(effect.task_id), error: { code: 'AGENTCTL_E_CANCELLED', message: reason } });
  }
  store.closeWaiting(runId, reason);
  for (const task of store.taskRows(runId)) {
    if (UNFINISHED_TASKS.includes(String(task.state))) store.writeTask(runId, String(task.task_id), { state: 'cancelled', finished: true }, { type: 'task.cancelled', data: { reason } });
  }
  store.finishRun(runId, 'cancelled', { error: { code: 'AGENTCTL_E_CANCELLED', message: `run ${runId} was ${reason}` } });
}
