// Synthetic RunInspection documents for the report renderers' unit tests: the fields the reporters read, with
// timestamps from a fixed origin so every document is the same each time it is built.
import type { RunInspection } from '@agentctl/sdk';

const ORIGIN = Date.parse('2026-01-02T03:04:05.000Z');
/** A timestamp `ms` after the fixed origin. */
export const at = (ms: number) => new Date(ORIGIN + ms).toISOString();

export interface TaskSpec {
  id: string;
  needs?: string[];
  state?: string;
  kind?: string;
  error?: string | null;
  failure?: unknown;
  attempt?: number;
  startMs?: number | null;
  endMs?: number | null;
}

export function task(spec: TaskSpec): RunInspection['tasks'][number] {
  const started = spec.startMs === undefined ? 0 : spec.startMs;
  const ended = spec.endMs === undefined ? (started === null ? null : started + 100) : spec.endMs;
  return {
    runId: 'run_fixture',
    taskId: spec.id,
    position: 0,
    state: spec.state ?? 'succeeded',
    attempt: spec.attempt ?? 1,
    output: null,
    error: spec.error ?? null,
    disposition: 'executed',
    artifactManifest: [],
    updatedAt: at(ended ?? 0),
    kind: spec.kind ?? 'builtin.assign',
    input: {},
    failure: spec.failure ?? null,
    artifacts: [],
    startedAt: started === null ? null : at(started),
    finishedAt: ended === null ? null : at(ended),
  } as unknown as RunInspection['tasks'][number];
}

export function effect(id: string, taskId: string, fields: Record<string, unknown> = {}): RunInspection['effects'][number] {
  return {
    effectId: id,
    runId: 'run_fixture',
    taskId,
    operation: 'process.exec',
    effectClass: 'process_execution',
    risk: 'high',
    idempotency: 'unknown',
    state: 'succeeded',
    status: 'succeeded',
    attempt: 1,
    inDoubt: false,
    reconciled: null,
    requestedAt: at(10),
    startedAt: at(10),
    completedAt: at(50),
    input: { command: 'sh' },
    result: { exitCode: 0 },
    error: null,
    ...fields,
  } as unknown as RunInspection['effects'][number];
}

/** A run inspection with the given tasks (their needs in the recorded plan) and records. */
export function inspection(tasks: ReturnType<typeof task>[], planned: TaskSpec[] = [], extra: Partial<Record<keyof RunInspection, unknown>> = {}, run: Record<string, unknown> = {}): RunInspection {
  const needs = new Map(planned.map((spec) => [spec.id, spec.needs ?? []]));
  return {
    run: {
      runId: 'run_fixture',
      workflowName: 'fixture',
      state: 'succeeded',
      mode: 'execute',
      createdAt: at(0),
      updatedAt: at(1000),
      finishedAt: at(1000),
      traceId: '0123456789abcdef0123456789abcdef',
      planDigest: 'a'.repeat(64),
      parentRunId: null,
      sourceRunId: null,
      liveness: null,
      error: null,
      plan: { tasks: tasks.map((item) => ({ id: item.taskId, needs: needs.get(item.taskId) ?? [] })) },
      ...run,
    },
    tasks,
    effects: [],
    effectReconciliations: [],
    approvals: [],
    checkpoints: [],
    providerSessions: [],
    streamEvents: [],
    protocolSessions: [],
    protocolCalls: [],
    toolCalls: [],
    artifacts: [],
    audit: [],
    traces: [],
    lineage: null,
    modelUsage: null,
    budget: null,
    ...extra,
  } as unknown as RunInspection;
}

/** A chain of `count` assign tasks, each needing the one before; task `failedAt` (when given) failed. */
export function chain(count: number, failedAt: number | null = null): RunInspection {
  const specs = Array.from({ length: count }, (_, index): TaskSpec => ({ id: `t${index}`, needs: index ? [`t${index - 1}`] : [], startMs: index, endMs: index + 1 }));
  const tasks = specs.map((spec, index) => task(index === failedAt ? { ...spec, state: 'failed', error: 'it broke', failure: { code: 'AGENTCTL_E_ASSERTION_FAILED', message: 'it broke' } } : spec));
  return inspection(tasks, specs);
}
