// An in-process server that speaks the OpenAI Responses API wire format on 127.0.0.1, for tests of anything that calls
// a model. It records every request and answers from a queue of scripted replies, one per request.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { listenOnLoopback } from './loopback.js';
import { record, type RecordedRequest } from './scripted-server.js';

export type { RecordedRequest } from './scripted-server.js';

export interface Usage {
  readonly input?: number;
  readonly output?: number;
  readonly reasoning?: number;
  readonly cached?: number;
}

export interface ScriptedCall {
  readonly name: string;
  /** An object is sent as JSON text; a string is sent as is (to script unparsable arguments). */
  readonly arguments: unknown;
  readonly callId?: string;
}

/** One scripted reply. */
export type Reply =
  | { readonly text: string; readonly usage?: Usage; readonly model?: string }
  | { readonly toolCalls: readonly ScriptedCall[]; readonly text?: string; readonly usage?: Usage; readonly reasoning?: { readonly id: string; readonly summary: string; readonly encrypted?: string } }
  | { readonly json: unknown; readonly usage?: Usage }
  | { readonly refusal: string; readonly usage?: Usage }
  | { readonly incomplete: string; readonly text?: string; readonly toolCalls?: readonly ScriptedCall[]; readonly usage?: Usage }
  | { readonly error: number; readonly type?: string; readonly code?: string; readonly message?: string }
  | { readonly raw: string; readonly status?: number }
  | { readonly redirect: string }
  | { readonly hang: true };

export interface OpenAiServer {
  /** The Responses URL, `http://127.0.0.1:PORT/v1/responses`: what a provider entry's `endpoint` holds. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  enqueue(...replies: Reply[]): void;
  close(): Promise<void>;
}

let counter = 0;

function usageOf(usage: Usage = {}) {
  const input = usage.input ?? 11;
  const output = usage.output ?? 7;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cached ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    total_tokens: input + output,
  };
}

const message = (parts: object[]) => ({ type: 'message', id: `msg_${++counter}`, status: 'completed', role: 'assistant', content: parts });
const outputText = (text: string) => ({ type: 'output_text', text, annotations: [] });
const functionCall = (call: ScriptedCall) => ({
  type: 'function_call',
  id: `fc_${++counter}`,
  call_id: call.callId ?? `call_${counter}`,
  name: call.name,
  arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  status: 'completed',
});

/** A reasoning output item, as OpenAI returns one (with its encrypted content when asked for it). */
const reasoningItem = (reasoning: { id: string; summary: string; encrypted?: string }) => ({
  type: 'reasoning',
  id: reasoning.id,
  summary: [{ type: 'summary_text', text: reasoning.summary }],
  ...(reasoning.encrypted === undefined ? {} : { encrypted_content: reasoning.encrypted }),
  status: 'completed',
});

function responseOf(reply: Reply, model: string): object {
  const base = { id: `resp_${++counter}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'completed', incomplete_details: null };
  const texts = (text?: string) => (text === undefined ? [] : [message([outputText(text)])]);
  if ('toolCalls' in reply && !('incomplete' in reply)) {
    const thought = 'reasoning' in reply && reply.reasoning ? [reasoningItem(reply.reasoning)] : [];
    return { ...base, output: [...thought, ...texts(reply.text), ...reply.toolCalls.map(functionCall)], usage: usageOf(reply.usage) };
  }
  if ('json' in reply) return { ...base, output: texts(JSON.stringify(reply.json)), usage: usageOf(reply.usage) };
  if ('refusal' in reply) return { ...base, output: [message([{ type: 'refusal', refusal: reply.refusal }])], usage: usageOf(reply.usage) };
  if ('incomplete' in reply) {
    const output = [...texts(reply.text), ...(reply.toolCalls ?? []).map(functionCall)];
    return { ...base, status: 'incomplete', incomplete_details: { reason: reply.incomplete }, output, usage: usageOf(reply.usage) };
  }
  const text = reply as { text: string; usage?: Usage; model?: string };
  return { ...base, model: text.model ?? model, output: [{ type: 'reasoning', id: `rs_${++counter}`, summary: [] }, ...texts(text.text)], usage: usageOf(text.usage) };
}

function answer(reply: Reply | undefined, model: string, response: ServerResponse): void {
  const send = (status: number, body: string, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body);
  };
  if (reply === undefined) return send(500, JSON.stringify({ error: { message: 'no scripted reply left', type: 'server_error', code: null, param: null } }));
  if ('hang' in reply) return;
  if ('redirect' in reply) return send(302, '', { location: reply.redirect });
  if ('raw' in reply) return send(reply.status ?? 200, reply.raw);
  if ('error' in reply) {
    const error = { message: reply.message ?? 'scripted error', type: reply.type ?? 'invalid_request_error', param: null, code: reply.code ?? null };
    return send(reply.error, JSON.stringify({ error }));
  }
  send(200, JSON.stringify(responseOf(reply, model)));
}


/**
 * Starts a server on a random port of 127.0.0.1. Each request takes the next reply; none left → 500. With `tls` (a
 * key and certificate in PEM), it speaks HTTPS and its URL is `https://...`.
 */
export async function startOpenAiServer(tls?: { readonly key: string; readonly cert: string }): Promise<OpenAiServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded = record(request, Buffer.concat(chunks).toString('utf8'));
      requests.push(recorded);
      const model = (recorded.body as { model?: unknown } | null)?.model;
      answer(queue.shift(), typeof model === 'string' ? model : 'unknown', response);
    });
  };
  const server = tls ? createHttpsServer(tls, handle) : createServer(handle);
  const { port, close } = await listenOnLoopback(server);
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/v1/responses`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    // Hanging exchanges are cut so that close never waits for them.
    close,
  };
}
