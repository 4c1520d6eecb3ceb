// The body of a generateContent answer → ModelResponse. Only the fields used are checked; thought parts are skipped,
// since the neutral response has no place for them.
import { z } from 'zod';
import { invalidAnswer, parseProviderAnswer, type FinishReason, type JsonValue, type ModelRequest, type ModelResponse, type TextBlock, type ToolCallBlock } from '@agentctl/sdk';

const count = z.number().int().nonnegative();
const part = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  functionCall: z.looseObject({ name: z.string(), args: z.unknown().optional() }).optional(),
});
const candidate = z.looseObject({ content: z.looseObject({ parts: z.array(part).optional() }).optional(), finishReason: z.string().optional() });
const responseSchema = z.looseObject({
  candidates: z.array(candidate).optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  // Required: run budgets count tokens, and an answer without usage would count as free.
  usageMetadata: z.looseObject({
    promptTokenCount: count,
    candidatesTokenCount: count.optional(),
    thoughtsTokenCount: count.optional(),
    cachedContentTokenCount: count.optional(),
    totalTokenCount: count.optional(),
  }),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
});

const REFUSALS = new Set(['SAFETY', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'RECITATION']);
const invalid = (message: string) => invalidAnswer('google', message);

/**
 * Parses a 2xx body. Gemini gives calls no id, so each gets `call_<m>_<n>`: m the request's message count, n its rank
 * in the answer. The same turn always has the same message count, so the ids are the same when a run resumes.
 */
export function modelResponse(body: Buffer, request: ModelRequest): ModelResponse {
  const answer = parseProviderAnswer('google', body, responseSchema);
  const first = answer.candidates?.[0];
  const reason = first?.finishReason ?? 'STOP';
  if (first === undefined && answer.promptFeedback?.blockReason === undefined) throw invalid('no candidate and no promptFeedback.blockReason');
  const content: (TextBlock | ToolCallBlock)[] = [];
  let calls = 0;
  for (const piece of first?.content?.parts ?? []) {
    if (piece.thought === true) continue;
    if (piece.text !== undefined) content.push({ type: 'text', text: piece.text });
    // A call cut off by the token limit is not a call: the answer reports max_tokens instead.
    if (piece.functionCall !== undefined && reason !== 'MAX_TOKENS') {
      calls += 1;
      content.push({ type: 'tool_call', id: `call_${request.messages.length}_${calls}`, name: piece.functionCall.name, input: (piece.functionCall.args ?? {}) as JsonValue });
    }
  }
  const usage = answer.usageMetadata;
  const output = usage.candidatesTokenCount ?? 0;
  return {
    content,
    finishReason: answer.promptFeedback?.blockReason !== undefined && first === undefined ? 'refusal' : finishReason(reason, calls > 0),
    usage: {
      inputTokens: usage.promptTokenCount,
      outputTokens: output,
      totalTokens: usage.totalTokenCount ?? usage.promptTokenCount + output + (usage.thoughtsTokenCount ?? 0),
      ...(usage.thoughtsTokenCount !== undefined ? { reasoningTokens: usage.thoughtsTokenCount } : {}),
      ...(usage.cachedContentTokenCount !== undefined ? { cacheReadTokens: usage.cachedContentTokenCount } : {}),
    },
    ...(answer.responseId !== undefined ? { responseId: answer.responseId } : {}),
    ...(answer.modelVersion !== undefined ? { model: answer.modelVersion } : {}),
  };
}

function finishReason(reason: string, called: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'max_tokens';
  if (REFUSALS.has(reason)) return 'refusal';
  if (reason === 'STOP') return called ? 'tool_calls' : 'complete';
  // MALFORMED_FUNCTION_CALL, OTHER, ...: no usable answer, and nothing says what to do with it.
  throw invalid(`finishReason ${/^[A-Z_]{1,64}$/.test(reason) ? reason : '(unreadable)'} is not an answer agentctl can use`);
}
