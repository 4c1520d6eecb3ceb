// The body of a Messages API answer → ModelResponse. Only the fields used are checked; `thinking` and other blocks
// are skipped, since the neutral response has no place for them.
import { z } from 'zod';
import { invalidAnswer, parseProviderAnswer, type FinishReason, type JsonValue, type ModelResponse, type TextBlock, type ToolCallBlock } from '@agentctl/sdk';

const count = z.number().int().nonnegative();
const block = z.looseObject({ type: z.string(), text: z.string().optional(), id: z.string().optional(), name: z.string().optional(), input: z.unknown().optional() });
const responseSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  content: z.array(block),
  stop_reason: z.string().nullish(),
  // Required: run budgets count tokens, and an answer without usage would count as free.
  usage: z.looseObject({
    input_tokens: count,
    output_tokens: count,
    cache_read_input_tokens: count.nullish(),
    cache_creation_input_tokens: count.nullish(),
  }),
});

const invalid = (message: string) => invalidAnswer('anthropic', message);

/** Parses a 2xx body. Throws a failed EffectFailure AGENTCTL_E_PROVIDER_RESPONSE_INVALID when it cannot be read. */
export function modelResponse(body: Buffer): ModelResponse {
  const answer = parseProviderAnswer('anthropic', body, responseSchema);
  const truncated = answer.stop_reason === 'max_tokens';
  const content: (TextBlock | ToolCallBlock)[] = [];
  let calls = 0;
  for (const [index, entry] of answer.content.entries()) {
    if (entry.type === 'text' && entry.text !== undefined) content.push({ type: 'text', text: entry.text });
    if (entry.type !== 'tool_use') continue;
    // A call cut off by max_tokens is not a call: the answer reports max_tokens instead.
    if (truncated) continue;
    if (entry.id === undefined || entry.name === undefined || entry.input === undefined) throw invalid(`content.${index}: a tool_use without id, name or input`);
    content.push({ type: 'tool_call', id: entry.id, name: entry.name, input: entry.input as JsonValue });
    calls += 1;
  }
  const usage = answer.usage;
  return {
    content,
    finishReason: finishReason(answer.stop_reason ?? undefined, calls > 0),
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      totalTokens: usage.input_tokens + usage.output_tokens,
      ...(typeof usage.cache_read_input_tokens === 'number' ? { cacheReadTokens: usage.cache_read_input_tokens } : {}),
      ...(typeof usage.cache_creation_input_tokens === 'number' ? { cacheWriteTokens: usage.cache_creation_input_tokens } : {}),
    },
    ...(answer.id !== undefined ? { responseId: answer.id } : {}),
    ...(answer.model !== undefined ? { model: answer.model } : {}),
  };
}

// A truncated answer is never treated as final or as calls to run, whatever it holds.
function finishReason(stop: string | undefined, called: boolean): FinishReason {
  if (stop === 'max_tokens') return 'max_tokens';
  if (stop === 'refusal') return 'refusal';
  return called ? 'tool_calls' : 'complete';
}
