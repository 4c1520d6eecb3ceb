// ModelRequest → the body of `POST /responses`. The host resends the whole conversation every turn, so nothing here
// refers to earlier responses (no previous_response_id) but, with reasoningContext all_turns, the reasoning items an
// answer carried, sent back before it as OpenAI asks.
import { canonicalJson, type JsonObject, type JsonValue, type ModelMessage, type ModelRequest } from '@agentctl/sdk';
import type { OpenAiOptions } from './options.js';

type InputItem = JsonObject;

/** The request body; `store` and the other options are sent only when the agent gave them. */
export function requestBody(request: ModelRequest, options: OpenAiOptions): JsonObject {
  const body: JsonObject = { model: request.model };
  if (request.instructions !== undefined) body.instructions = request.instructions;
  const carried = options.reasoningContext === 'all_turns';
  body.input = request.messages.flatMap((message) => [...(carried ? (message.providerItems ?? []) : []), ...inputItems(message)]);
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: true }));
  }
  body.max_output_tokens = request.maxOutputTokens;
  if (request.structuredOutput !== undefined) {
    body.text = { format: { type: 'json_schema', name: 'agentctl_output', schema: request.structuredOutput, strict: true } };
  }
  // OpenAI has no effort above `xhigh`; the neutral `max` asks for the most there is.
  if (request.reasoning !== undefined) body.reasoning = { effort: request.reasoning.effort === 'max' ? 'xhigh' : request.reasoning.effort };
  if (options.store !== undefined) body.store = options.store;
  // Without storage OpenAI can only resume reasoning it returned encrypted.
  if (carried && options.store === false) body.include = ['reasoning.encrypted_content'];
  if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
  if (options.safetyIdentifier !== undefined) body.safety_identifier = options.safetyIdentifier;
  if (options.promptCacheTtl !== undefined) body.prompt_cache_retention = 'in_memory';
  if (options.promptCacheMode === 'explicit') body.prompt_cache_key = promptCacheKey(request);
  return body;
}

/** One message → Responses input items: consecutive texts share a message item; calls and results are items of their own. */
function inputItems(message: ModelMessage): InputItem[] {
  const items: InputItem[] = [];
  const assistant = message.role === 'assistant';
  let texts: JsonObject[] | undefined;
  for (const block of message.content) {
    if (block.type === 'text') {
      if (texts === undefined) {
        texts = [];
        items.push({ role: assistant ? 'assistant' : 'user', content: texts });
      }
      texts.push({ type: assistant ? 'output_text' : 'input_text', text: block.text });
      continue;
    }
    texts = undefined;
    if (block.type === 'tool_call') items.push({ type: 'function_call', call_id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
    else items.push({ type: 'function_call_output', call_id: block.callId, output: JSON.stringify(block.output) });
  }
  return items;
}

/**
 * A stable routing key for OpenAI's prompt cache: turns of one agent share model, instructions and tools, so they
 * share a key. FNV-1a (64 bit) is enough for routing; the key protects nothing and reveals nothing OpenAI is not sent.
 */
function promptCacheKey(request: ModelRequest): string {
  const prefix: JsonValue = { model: request.model, instructions: request.instructions ?? null, tools: request.tools.map((tool) => ({ ...tool })) };
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(canonicalJson(prefix))) {
    hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return `agentctl-${hash.toString(16).padStart(16, '0')}`;
}
