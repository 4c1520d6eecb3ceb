// Run budgets while a run is driven: the plan's limits as ledger dimensions, refusals with their audit event, the
// meter of what processes actually wrote, artifact ingestion under the byte budget, and the wall clock.
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { AgentctlError, diagnostic, EffectFailure, type DispatchProcessService, type JsonValue, type RunBudgets } from '@agentctl/sdk';
import type { Amounts, BudgetDenial } from '../store/budget.js';
import type { Store } from '../store/store.js';

/** The ledger dimension of a budget field (`maxProcessOutputBytes` → `processOutputBytes`), and back. */
export const dimensionOf = (field: string) => `${field.charAt(3).toLowerCase()}${field.slice(4)}`;
export const fieldOf = (dimension: string) => `max${dimension.charAt(0).toUpperCase()}${dimension.slice(1)}`;

/** Wall time is a clock, not a quantity reserved in the ledger. */
const WALL_TIME = 'maxWallTimeSeconds';

/** The ledger limits of a run: every configured budget but wall time, by dimension. */
export function ledgerLimits(budgets: RunBudgets | undefined): Record<string, number> {
  const entries = Object.entries(budgets ?? {}).filter(([field, value]) => field !== WALL_TIME && value !== undefined);
  return Object.fromEntries(entries.map(([field, value]) => [dimensionOf(field), value as number]));
}

const HELP = 'raise the limit in spec.runtime.budgets, or make the run do less; `agentctl inspect RUN` shows usage and reservations';

/** A refused reservation (or an expired wall clock): nothing was started, and the run fails. */
export class BudgetExceeded extends AgentctlError {
  constructor(
    readonly denial: BudgetDenial,
    message: string,
    taskId?: string,
  ) {
    const path = `spec.runtime.budgets.${fieldOf(denial.dimension)}`;
    super('AGENTCTL_E_BUDGET_EXCEEDED', message, { diagnostics: [diagnostic('AGENTCTL_E_BUDGET_EXCEEDED', { message, path, help: HELP, ...(taskId ? { taskId } : {}) })] });
  }
}

export const isBudgetExceeded = (error: unknown): error is BudgetExceeded => error instanceof BudgetExceeded;

/** Names the exceeded dimension as the reference does (`providerRequests`): scripts match the message on it. */
const refusalMessage = (what: string, denial: BudgetDenial) =>
  `${what} was not started: run budget ${denial.dimension} exceeded: it needs ${denial.requested} of ${fieldOf(denial.dimension)} ${denial.limit}, of which ${denial.used} are used and ${denial.reserved} reserved`;

/** What the processes of one task attempt wrote, counted by the process service as each one ends. */
export interface Meter {
  processOutputBytes: number;
}

/** The process service of one dispatch, counting captured output bytes into `meter`. */
export function meteredProcessService(service: DispatchProcessService, meter: Meter): DispatchProcessService {
  return Object.freeze({
    ...service,
    run: async (...args: Parameters<DispatchProcessService['run']>) => {
      const result = await service.run(...args);
      meter.processOutputBytes += result.stdout.length + result.stderr.length;
      return result;
    },
  });
}

/** The budget side of one effect's life, as the effect runner uses it (core/runner/effects.ts). */
export interface EffectBudget {
  /** Inside the transaction that records the effect: reserves its worst case, or throws BudgetExceeded. */
  reserve(effectId: string, operation: string): void;
  /** After that transaction rolled back: records the refusal. */
  refused(error: BudgetExceeded): void;
  /** After the effect: its reservation becomes what it actually used. */
  settle(effectId: string): void;
}

/** One run's budgets over the store's ledger. Without any budget configured, every method is a no-op. */
export class RunBudget {
  readonly limits: Readonly<Record<string, number>>;

  constructor(
    private readonly store: Store,
    private readonly runId: string,
    private readonly budgets: RunBudgets | undefined,
  ) {
    this.limits = ledgerLimits(budgets);
  }

  limited(dimension: string): boolean {
    return this.limits[dimension] !== undefined;
  }

  /** Reserves `amounts` under `key` (in the caller's transaction, if any); throws BudgetExceeded when refused. */
  reserve(key: string, amounts: Amounts, what: string, taskId: string): void {
    if (!Object.keys(amounts).some((dimension) => this.limited(dimension))) return;
    const denial = this.store.budgets.reserve(this.runId, key, amounts, this.limits);
    if (denial) throw new BudgetExceeded(denial, refusalMessage(what, denial), taskId);
  }

  /** Records a refusal as a `budget.exceeded` audit event, in its own transaction. */
  refused(error: BudgetExceeded, taskId: string | undefined, key?: string): Record<string, JsonValue> {
    const data: Record<string, JsonValue> = { ...error.denial, field: fieldOf(error.denial.dimension), ...(key ? { key } : {}), message: error.message };
    this.store.transaction(() => this.store.audit(this.runId, { type: 'budget.exceeded', ...(taskId ? { taskId } : {}), data }));
    return data;
  }

  settle(key: string, actual: Amounts): void {
    if (Object.keys(this.limits).length > 0) this.store.budgets.settle(this.runId, key, actual);
  }

  release(key: string): void {
    if (Object.keys(this.limits).length > 0) this.store.budgets.release(this.runId, key);
  }

  /** A task takes one of maxTasks when it starts executing; a resumed or retried task keeps the one it took. */
  startTask(taskId: string): void {
    if (!this.limited('tasks')) return;
    const key = `task:${taskId}`;
    try {
      this.reserve(key, { tasks: 1 }, `task ${taskId}`, taskId);
    } catch (error) {
      if (isBudgetExceeded(error)) this.refused(error, taskId, key);
      throw error;
    }
    this.settle(key, { tasks: 1 });
  }

  /**
   * The budget of each effect of one task attempt: `perEffect` is the worst case of one effect (from the action's
   * description); what it actually used is read from `meter` when it ends. Undefined when nothing of it is limited.
   */
  forEffects(taskId: string, perEffect: Amounts, meter: Meter): EffectBudget | undefined {
    if (!Object.keys(perEffect).some((dimension) => this.limited(dimension))) return undefined;
    const marks = new Map<string, number>();
    return {
      reserve: (effectId, operation) => {
        this.reserve(effectId, perEffect, `${operation} (task ${taskId})`, taskId);
        marks.set(effectId, meter.processOutputBytes);
      },
      refused: (error) => void this.refused(error, taskId),
      settle: (effectId) => {
        const mark = marks.get(effectId);
        if (mark !== undefined) this.settle(effectId, { processOutputBytes: meter.processOutputBytes - mark });
      },
    };
  }

  /**
   * Artifact ingestion under maxArtifactBytes: the file's size is reserved before its blob is written, and settled to
   * the bytes stored. A refusal fails the write before the file is replaced (a definite failure, never retried).
   */
  guardIngest<Blob extends { size: number }>(taskId: string, ingest: (bytes: Uint8Array) => Promise<Blob>): (bytes: Uint8Array) => Promise<Blob> {
    if (!this.limited('artifactBytes')) return ingest;
    return async (bytes) => {
      const key = `artifact:${taskId}:sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      try {
        this.reserve(key, { artifactBytes: bytes.length }, `ingesting a ${bytes.length}-byte artifact`, taskId);
      } catch (error) {
        if (!isBudgetExceeded(error)) throw error;
        this.refused(error, taskId, key);
        throw new EffectFailure('failed', 'AGENTCTL_E_BUDGET_EXCEEDED', error.message, { diagnostics: error.diagnostics });
      }
      try {
        const blob = await ingest(bytes);
        this.settle(key, { artifactBytes: blob.size });
        return blob;
      } catch (error) {
        this.release(key);
        throw error;
      }
    };
  }

  /**
   * The run's signal under maxWallTimeSeconds, counted from the run's durable creation (paused time included): at
   * expiry the overrun is recorded and the signal aborted, which cancels in-flight work; `overrun` then says why the
   * run fails. A run already over it when driven is refused before anything is dispatched.
   */
  wallClock(createdAt: () => string, outer: AbortSignal): { signal: AbortSignal; overrun: () => BudgetExceeded | undefined; dispose: () => void } {
    const limit = this.budgets?.maxWallTimeSeconds;
    if (limit === undefined) return { signal: outer, overrun: () => undefined, dispose: () => undefined };
    const controller = new AbortController();
    const signal = AbortSignal.any([outer, controller.signal]);
    setMaxListeners(0, signal);
    const start = Date.parse(createdAt());
    let overrun: BudgetExceeded | undefined;
    const expire = () => {
      if (outer.aborted) return;
      const elapsed = (Date.now() - start) / 1000;
      const denial = { dimension: 'wallTimeSeconds', limit, used: Math.floor(elapsed), reserved: 0, requested: 0 };
      overrun = new BudgetExceeded(denial, `the run reached maxWallTimeSeconds ${limit}: it is ${elapsed.toFixed(1)}s old, counted from its creation with paused time included; in-flight work is cancelled and nothing more starts`);
      this.refused(overrun, undefined);
      controller.abort(new DOMException(overrun.message, 'BudgetExceededError'));
    };
    const remaining = start + limit * 1000 - Date.now();
    let timer: NodeJS.Timeout | undefined;
    if (remaining <= 0) expire();
    else timer = setTimeout(expire, remaining);
    return { signal, overrun: () => overrun, dispose: () => clearTimeout(timer) };
  }
}
