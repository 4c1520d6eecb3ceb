// A run whose requested isolation cannot be had (no container engine answers) is recorded and failed before any
// effect, as the reference records it: a script reads exit 4, the run id and a run with zero effects, and nothing ran
// anywhere (never on the host instead). Other preflight problems still fail before any run exists.
import { AgentctlError, EXIT, isAgentctlError, type JsonValue } from '@agentctl/sdk';
import { newRunIdentity } from './identity.js';
import { Scheduler } from './scheduler.js';
import type { RunRequest, RunResult } from './run-types.js';
import type { NewRun } from '../store/store.js';

/** The preflight problems that say the isolation a task asked for is unavailable, not that the workflow is wrong. */
const UNAVAILABLE: ReadonlySet<string> = new Set(['AGENTCTL_E_CONTAINER_ENGINE_MISSING', 'AGENTCTL_E_CONTAINER_ENGINE_STOPPED', 'AGENTCTL_E_CONTAINER_ENGINE_UNREACHABLE']);

/** Whether a preflight failure is only that: every problem it reports is an unavailable isolation. */
export function isolationUnavailable(error: unknown): error is AgentctlError {
  return isAgentctlError(error) && error.diagnostics.length > 0 && error.diagnostics.every((item) => UNAVAILABLE.has(item.code));
}

/**
 * Records the run, fails the tasks the problems name and skips the others, and ends the run `failed` with the first
 * problem as its error (exit 4). No effect is recorded: nothing was dispatched.
 */
export function failWithoutIsolation(request: RunRequest, record: (runId: string, traceId: string) => NewRun, cause: AgentctlError): RunResult {
  const { store, plan } = request;
  const { runId, traceId } = newRunIdentity();
  store.createRun(record(runId, traceId));
  const first = cause.diagnostics[0]!;
  const error = new AgentctlError(first.code, first.message, { diagnostics: cause.diagnostics, exitCode: EXIT.runFailed });
  const recorded = { code: error.code, message: error.message };
  const failing = new Set(cause.diagnostics.map((item) => item.taskId).filter((id): id is string => id !== undefined));
  const scheduler = new Scheduler(plan.tasks);
  store.transaction(() => {
    for (const task of plan.tasks) {
      const state = failing.has(task.id) ? 'failed' : 'skipped';
      scheduler.complete(task.id, state);
      store.writeTask(runId, task.id, { state, finished: true, ...(state === 'failed' ? { error: recorded as JsonValue } : {}) }, { type: `task.${state}`, data: state === 'failed' ? recorded : { reason: 'run failed' } });
    }
  });
  // Nothing ran: the run's working memory is its initial one.
  store.finishRun(runId, 'failed', { output: {}, error: recorded, memory: { ...plan.workingMemory } });
  error.runId = runId;
  error.traceId = traceId;
  return { runId, traceId, state: 'failed', output: {}, tasks: scheduler.snapshot(), error };
}
