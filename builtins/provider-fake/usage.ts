// Token counts of the fake provider: 1 input and 1 output token per answer (the reference's), or what the options
// say, so budgets are testable offline.
import type { ModelUsage } from '@agentctl/sdk';

export function fakeUsage(configured: { inputTokens: number; outputTokens: number } | undefined): ModelUsage {
  const inputTokens = configured?.inputTokens ?? 1;
  const outputTokens = configured?.outputTokens ?? 1;
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}
