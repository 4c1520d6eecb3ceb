// An in-process server that speaks Anthropic's Messages API wire format on 127.0.0.1 (`POST /v1/messages`), for tests
// of the anthropic provider. Each request takes the next scripted reply; none left → 500.
import { startScriptedServer, type Rendered, type ScriptedServer } from './scripted-server.js';

export interface AnthropicUsage {
  readonly input?: number;
  readonly output?: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

export interface AnthropicCall {
  readonly name: string;
  readonly input: unknown;
  readonly id?: string;
}

export type AnthropicReply =
  | { readonly text: string; readonly usage?: AnthropicUsage; readonly model?: string; readonly thinking?: string }
  | { readonly toolCalls: readonly AnthropicCall[]; readonly text?: string; readonly usage?: AnthropicUsage }
  | { readonly json: unknown; readonly usage?: AnthropicUsage }
  | { readonly refusal: string }
  | { readonly maxTokens: string; readonly toolCalls?: readonly AnthropicCall[] }
  | { readonly error: number; readonly type?: string; readonly message?: string }
  | { readonly raw: string; readonly status?: number }
  | { readonly hang: true };

export type AnthropicServer = ScriptedServer<AnthropicReply>;

let counter = 0;

function usageOf(usage: AnthropicUsage = {}) {
  return {
    input_tokens: usage.input ?? 11,
    cache_creation_input_tokens: usage.cacheWrite ?? 0,
    cache_read_input_tokens: usage.cacheRead ?? 0,
    output_tokens: usage.output ?? 7,
  };
}

const toolUse = (call: AnthropicCall) => ({ type: 'tool_use', id: call.id ?? `toolu_${++counter}`, name: call.name, input: call.input });
const text = (value: string) => ({ type: 'text', text: value });

function render(reply: AnthropicReply | undefined, model: string): Rendered {
  const send = (status: number, body: unknown): Rendered => ({ status, body: JSON.stringify(body) });
  const error = (status: number, type: string, message: string) => send(status, { type: 'error', error: { type, message } });
  if (reply === undefined) return error(500, 'api_error', 'no scripted reply left');
  if ('hang' in reply) return 'hang';
  if ('raw' in reply) return { status: reply.status ?? 200, body: reply.raw };
  if ('error' in reply) return error(reply.error, reply.type ?? 'invalid_request_error', reply.message ?? 'scripted error');
  const message = (content: unknown[], stop: string, usage?: AnthropicUsage, answeredBy = model) =>
    send(200, { id: `msg_${++counter}`, type: 'message', role: 'assistant', model: answeredBy, content, stop_reason: stop, stop_sequence: null, usage: usageOf(usage) });
  if ('toolCalls' in reply && !('maxTokens' in reply)) return message([...(reply.text ? [text(reply.text)] : []), ...reply.toolCalls.map(toolUse)], 'tool_use', reply.usage);
  if ('json' in reply) return message([text(JSON.stringify(reply.json))], 'end_turn', reply.usage);
  if ('refusal' in reply) return message([text(reply.refusal)], 'refusal');
  if ('maxTokens' in reply) return message([text(reply.maxTokens), ...(reply.toolCalls ?? []).map(toolUse)], 'max_tokens');
  const thinking = reply.thinking === undefined ? [] : [{ type: 'thinking', thinking: reply.thinking, signature: 'sig' }];
  return message([...thinking, text(reply.text)], 'end_turn', reply.usage, reply.model);
}

/** Starts the server; its `url` is the whole Messages URL, what a provider entry's `endpoint` holds. */
export function startAnthropicServer(): Promise<AnthropicServer> {
  return startScriptedServer<AnthropicReply>('/v1/messages', (reply, request) => {
    const model = (request.body as { model?: unknown } | null)?.model;
    return render(reply, typeof model === 'string' ? model : 'unknown');
  });
}
