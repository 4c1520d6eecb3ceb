// ModelRequest → the body of `POST /v1/messages`. The host resends the whole conversation every turn: every request
// stands alone.
import { EffectFailure, type JsonObject, type ModelMessage, type ModelRequest, type ReasoningSettings } from '@agentctl/sdk';

/**
 * The thinking budget of each effort, in tokens. Thinking tokens count toward `max_tokens`, and Anthropic requires
 * 1024 <= budget_tokens < max_tokens, so the budget is capped at maxOutputTokens - 1.
 */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ReasoningSettings['effort'], 'none'>, number>> = { low: 1024, medium: 4096, high: 16384, xhigh: 32768, max: 65536 };
const MIN_THINKING_BUDGET = 1024;

/**
 * The Messages API has no JSON-schema answer mode: the schema is put in the system prompt, and the host validates the
 * answer against it as for any provider.
 */
export function structuredOutputInstruction(schema: JsonObject): string {
  return `Answer with only a JSON value, without any other text or code fences, that matches this JSON Schema:\n${JSON.stringify(schema)}`;
}

/** The request body. Throws a failed EffectFailure (nothing sent) when reasoning cannot fit in maxOutputTokens. */
export function requestBody(request: ModelRequest): JsonObject {
  const body: JsonObject = { model: request.model };
  const system = [request.instructions, request.structuredOutput === undefined ? undefined : structuredOutputInstruction(request.structuredOutput)].filter((part) => part !== undefined);
  if (system.length > 0) body.system = system.join('\n\n');
  body.messages = request.messages.map(message);
  body.max_tokens = request.maxOutputTokens;
  if (request.tools.length > 0) body.tools = request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }));
  if (request.reasoning !== undefined && request.reasoning.effort !== 'none') {
    const budget = Math.min(THINKING_BUDGETS[request.reasoning.effort], request.maxOutputTokens - 1);
    if (budget < MIN_THINKING_BUDGET) {
      throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_REJECTED', `anthropic thinking needs a budget of at least ${MIN_THINKING_BUDGET} tokens below max_tokens: raise maxOutputTokens above ${MIN_THINKING_BUDGET} (nothing was sent)`);
    }
    body.thinking = { type: 'enabled', budget_tokens: budget };
  }
  return body;
}

/** One message → one Messages API message; tool results are user content, as Anthropic requires. */
function message(item: ModelMessage): JsonObject {
  const content = item.content.map((block): JsonObject => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'tool_call') return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    return { type: 'tool_result', tool_use_id: block.callId, content: JSON.stringify(block.output), ...(block.isError ? { is_error: true } : {}) };
  });
  return { role: item.role === 'assistant' ? 'assistant' : 'user', content };
}
