// Token counts of the fake provider: a fixed rule (one token per 4 bytes, rounded up) so budgets are testable offline.
import type { ModelRequest, ModelUsage } from '../../sdk/index.js';

const tokens = (text: string) => Math.max(1, Math.ceil(Buffer.byteLength(text, 'utf8') / 4));

export function fakeUsage(request: ModelRequest, output: string): ModelUsage {
  const inputTokens = tokens(JSON.stringify([request.instructions ?? '', request.messages, request.tools]));
  const outputTokens = tokens(output);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}
