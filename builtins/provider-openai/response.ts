// The body of a Responses API answer → ModelResponse. Only the fields used are checked; `reasoning` items are kept as
// providerItems when the agent carries reasoning between turns (reasoningContext all_turns); other items are skipped.
import { z } from 'zod';
import { invalidAnswer, JsonDepthError, parseJsonAnswer, parseProviderAnswer, type FinishReason, type JsonObject, type JsonValue, type ModelResponse, type TextBlock, type ToolCallBlock } from '@agentctl/sdk';

const count = z.number().int().nonnegative();
const part = z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() });
const item = z.looseObject({
  type: z.string(),
  content: z.array(part).optional(),
  call_id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.string().optional(),
});
const responseSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  status: z.string().optional(),
  incomplete_details: z.looseObject({ reason: z.string().optional() }).nullish(),
  output: z.array(item),
  // Required: run budgets count tokens, and an answer without usage would count as free.
  usage: z.looseObject({
    input_tokens: count,
    output_tokens: count,
    total_tokens: count,
    input_tokens_details: z.looseObject({ cached_tokens: count.optional() }).nullish(),
    output_tokens_details: z.looseObject({ reasoning_tokens: count.optional() }).nullish(),
  }),
});

const invalid = (message: string) => invalidAnswer('openai', message);

/** Parses a 2xx body. Throws a failed EffectFailure AGENTCTL_E_PROVIDER_RESPONSE_INVALID when it cannot be read. */
export function modelResponse(body: Buffer, keepReasoning = false): ModelResponse {
  const answer = parseProviderAnswer('openai', body, responseSchema);
  const truncated = answer.status === 'incomplete' && answer.incomplete_details?.reason === 'max_output_tokens';
  const content: (TextBlock | ToolCallBlock)[] = [];
  let refused = answer.status === 'incomplete' && answer.incomplete_details?.reason === 'content_filter';
  let calls = 0;
  const reasoning: JsonObject[] = [];
  for (const [index, entry] of answer.output.entries()) {
    if (entry.type === 'reasoning') {
      if (keepReasoning) reasoning.push(reasoningItem(entry));
    } else if (entry.type === 'message') {
      for (const piece of entry.content ?? []) {
        if (piece.type === 'output_text' && piece.text !== undefined) content.push({ type: 'text', text: piece.text });
        if (piece.type === 'refusal') {
          refused = true;
          if (piece.refusal) content.push({ type: 'text', text: piece.refusal });
        }
      }
    } else if (entry.type === 'function_call') {
      if (entry.call_id === undefined || entry.name === undefined || entry.arguments === undefined) throw invalid(`output.${index}: a function_call without call_id, name or arguments`);
      const input = parseArguments(entry.arguments, entry.name, index);
      // A call cut off by max_output_tokens is not a call: the answer reports max_tokens instead.
      if (input === undefined) {
        if (truncated) continue;
        throw invalid(`output.${index}: the arguments of function_call ${entry.name} are not JSON`);
      }
      content.push({ type: 'tool_call', id: entry.call_id, name: entry.name, input });
      calls += 1;
    }
  }
  const usage = answer.usage;
  return {
    content,
    finishReason: finishReason(truncated, calls > 0, refused),
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      totalTokens: usage.total_tokens,
      ...(usage.output_tokens_details?.reasoning_tokens !== undefined ? { reasoningTokens: usage.output_tokens_details.reasoning_tokens } : {}),
      ...(usage.input_tokens_details?.cached_tokens !== undefined ? { cacheReadTokens: usage.input_tokens_details.cached_tokens } : {}),
    },
    ...(answer.id !== undefined ? { responseId: answer.id } : {}),
    ...(answer.model !== undefined ? { model: answer.model } : {}),
    ...(reasoning.length > 0 ? { providerItems: reasoning } : {}),
  };
}

/** A reasoning item as it goes back in a later request: its id, summary and encrypted content, nothing else. */
function reasoningItem(entry: Record<string, unknown>): JsonObject {
  const kept: JsonObject = { type: 'reasoning' };
  for (const field of ['id', 'summary', 'encrypted_content'] as const) if (entry[field] !== undefined) kept[field] = entry[field] as JsonValue;
  return kept;
}

// A truncated answer is never treated as final or as calls to run, whatever it holds.
function finishReason(truncated: boolean, called: boolean, refused: boolean): FinishReason {
  if (truncated) return 'max_tokens';
  if (called) return 'tool_calls';
  return refused ? 'refusal' : 'complete';
}

/** The call's arguments, or undefined when they are not JSON; nested too deeply, the answer is refused. */
function parseArguments(text: string, name: string, index: number): JsonValue | undefined {
  try {
    return parseJsonAnswer(text) as JsonValue;
  } catch (error) {
    if (error instanceof JsonDepthError) throw invalid(`output.${index}: the arguments of function_call ${name} are JSON nested more than ${error.limit} levels deep`);
    return undefined;
  }
}
