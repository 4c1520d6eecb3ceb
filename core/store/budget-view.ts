// The `budget` object of `inspect RUN`: limits, usage per dimension, active reservations, the first exceeded dimension.
import type { JsonValue } from '@agentctl/sdk';
import type { Row, Store } from './store.js';

const dimensionOf = (field: string) => `${field.charAt(3).toLowerCase()}${field.slice(4)}`;

export function budgetView(store: Store, run: Row, plan: JsonValue, audit: readonly Row[], parse: (row: Row) => JsonValue) {
  const runtime = (plan as { runtime?: { budgets?: Record<string, number>; pricing?: { version?: string } } } | null)?.runtime;
  const limits = runtime?.budgets ?? {};
  const usage: Record<string, { used: number; reserved: number; limit: number | null }> = {};
  for (const [field, limit] of Object.entries(limits)) usage[dimensionOf(field)] = { used: 0, reserved: 0, limit };
  for (const [dimension, amounts] of Object.entries(store.budgets.usage(String(run.id)))) usage[dimension] = { ...amounts, limit: usage[dimension]?.limit ?? null };
  // Wall time is a clock: its use is the run's age, to its end (or to now while it is not finished).
  if (usage.wallTimeSeconds) {
    const end = run.finished_at === null ? Date.now() : Date.parse(String(run.finished_at));
    usage.wallTimeSeconds.used = Math.max(0, Math.floor((end - Date.parse(String(run.created_at))) / 1000));
  }
  const first = audit.find((event) => event.type === 'budget.exceeded');
  return {
    limits,
    pricingVersion: runtime?.pricing?.version ?? null,
    usage,
    reservations: store.budgets.activeReservations(String(run.id)).map(({ key, dimension, reserved, createdAt }) => ({ key, dimension, reserved, createdAt })),
    exceeded: first ? { ...(parse(first) as Record<string, JsonValue>), taskId: first.task_id, at: first.at } : null,
  };
}
