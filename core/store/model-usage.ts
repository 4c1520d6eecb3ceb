// What a run's agents used, read from its recorded model turns and tool calls: `inspect` and the RunOutcome show it
// whether or not the run has budgets (the reservation ledger only counts limited dimensions).
import type { JsonValue } from '@agentctl/sdk';

export interface ModelUsageSummary {
  providerRequests: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** An effect row as the store reads it. */
type EffectLike = Readonly<Record<string, unknown>>;

/** Undefined when the run made no model request. A request in doubt counts as made, with no known tokens. */
export function modelUsage(effects: readonly EffectLike[]): ModelUsageSummary | undefined {
  const summary: ModelUsageSummary = { providerRequests: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (const effect of effects) {
    if (effect.state === 'requested' || effect.state === 'waiting_for_approval' || effect.state === 'cancelled') continue;
    if (effect.operation === 'tool.call') summary.toolCalls += 1;
    if (effect.operation !== 'model.request') continue;
    summary.providerRequests += 1;
    if (effect.state !== 'succeeded' || typeof effect.result_json !== 'string') continue;
    const usage = (JSON.parse(effect.result_json) as { response?: { usage?: Record<string, JsonValue> } }).response?.usage ?? {};
    summary.inputTokens += Number(usage.inputTokens ?? 0);
    summary.outputTokens += Number(usage.outputTokens ?? 0);
    summary.totalTokens += Number(usage.totalTokens ?? 0);
  }
  return summary.providerRequests > 0 ? summary : undefined;
}
