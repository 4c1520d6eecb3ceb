// ModelRequest → the body of `POST {endpoint}/{model}:generateContent`. The host resends the whole conversation every
// turn: every request stands alone.
import type { JsonObject, JsonValue, ModelMessage, ModelRequest, ReasoningSettings } from '@agentctl/sdk';
import { geminiSchema } from './schema.js';

/** The thinking budget of each effort, in tokens (`none` turns thinking off where the model allows it). */
export const THINKING_BUDGETS: Readonly<Record<ReasoningSettings['effort'], number>> = { none: 0, low: 1024, medium: 4096, high: 16384, xhigh: 24576, max: 32768 };

export function requestBody(request: ModelRequest): JsonObject {
  const body: JsonObject = {};
  if (request.instructions !== undefined) body.systemInstruction = { parts: [{ text: request.instructions }] };
  body.contents = request.messages.map(content);
  if (request.tools.length > 0) {
    body.tools = [{ functionDeclarations: request.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: geminiSchema(tool.inputSchema) })) }];
  }
  const generationConfig: JsonObject = { maxOutputTokens: request.maxOutputTokens };
  if (request.structuredOutput !== undefined) {
    generationConfig.responseMimeType = 'application/json';
    generationConfig.responseSchema = geminiSchema(request.structuredOutput);
  }
  if (request.reasoning !== undefined) generationConfig.thinkingConfig = { thinkingBudget: THINKING_BUDGETS[request.reasoning.effort] };
  body.generationConfig = generationConfig;
  return body;
}

/** One message → one Gemini content; the model's turns are role `model`, tool results are user parts. */
function content(message: ModelMessage): JsonObject {
  const parts = message.content.map((block): JsonObject => {
    if (block.type === 'text') return { text: block.text };
    if (block.type === 'tool_call') return { functionCall: { name: block.name, args: block.input } };
    return { functionResponse: { name: block.name, response: responseObject(block.output) } };
  });
  return { role: message.role === 'assistant' ? 'model' : 'user', parts };
}

// Gemini's `response` must be an object: any other result is wrapped.
function responseObject(output: JsonValue): JsonObject {
  return typeof output === 'object' && output !== null && !Array.isArray(output) ? output : { value: output };
}
