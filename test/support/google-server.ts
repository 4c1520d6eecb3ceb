// An in-process server that speaks the Gemini API wire format on 127.0.0.1 (`POST /v1beta/models/{model}:generateContent`),
// for tests of the google provider. Each request takes the next scripted reply; none left → 500.
import { startScriptedServer, type Rendered, type ScriptedServer } from './scripted-server.js';

export interface GoogleUsage {
  readonly input?: number;
  readonly output?: number;
  readonly thoughts?: number;
  readonly cached?: number;
}

export interface GoogleCall {
  readonly name: string;
  readonly args: unknown;
}

export type GoogleReply =
  | { readonly text: string; readonly usage?: GoogleUsage; readonly thought?: string }
  | { readonly toolCalls: readonly GoogleCall[]; readonly text?: string; readonly usage?: GoogleUsage }
  | { readonly json: unknown; readonly usage?: GoogleUsage }
  | { readonly finish: string; readonly text?: string; readonly toolCalls?: readonly GoogleCall[] }
  | { readonly blocked: string }
  | { readonly error: number; readonly status?: string; readonly message?: string }
  | { readonly raw: string; readonly status?: number }
  | { readonly hang: true };

export type GoogleServer = ScriptedServer<GoogleReply>;

let counter = 0;

function usageOf(usage: GoogleUsage = {}) {
  const input = usage.input ?? 11;
  const output = usage.output ?? 7;
  return {
    promptTokenCount: input,
    candidatesTokenCount: output,
    ...(usage.thoughts !== undefined ? { thoughtsTokenCount: usage.thoughts } : {}),
    ...(usage.cached !== undefined ? { cachedContentTokenCount: usage.cached } : {}),
    totalTokenCount: input + output + (usage.thoughts ?? 0),
  };
}

const call = (item: GoogleCall) => ({ functionCall: { name: item.name, args: item.args } });

function render(reply: GoogleReply | undefined): Rendered {
  const send = (status: number, body: unknown): Rendered => ({ status, body: JSON.stringify(body) });
  const error = (status: number, code: string, message: string) => send(status, { error: { code: status, message, status: code } });
  if (reply === undefined) return error(500, 'INTERNAL', 'no scripted reply left');
  if ('hang' in reply) return 'hang';
  if ('raw' in reply) return { status: reply.status ?? 200, body: reply.raw };
  if ('error' in reply) return error(reply.error, reply.status ?? 'INVALID_ARGUMENT', reply.message ?? 'scripted error');
  if ('blocked' in reply) return send(200, { promptFeedback: { blockReason: reply.blocked }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 }, modelVersion: 'gemini-test', responseId: `r${++counter}` });
  const answer = (parts: unknown[], finishReason: string, usage?: GoogleUsage) =>
    send(200, { candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }], usageMetadata: usageOf(usage), modelVersion: 'gemini-test', responseId: `r${++counter}` });
  if ('toolCalls' in reply && !('finish' in reply)) return answer([...(reply.text ? [{ text: reply.text }] : []), ...reply.toolCalls.map(call)], 'STOP', reply.usage);
  if ('json' in reply) return answer([{ text: JSON.stringify(reply.json) }], 'STOP', reply.usage);
  if ('finish' in reply) return answer([...(reply.text ? [{ text: reply.text }] : []), ...(reply.toolCalls ?? []).map(call)], reply.finish);
  const thought = reply.thought === undefined ? [] : [{ text: reply.thought, thought: true }];
  return answer([...thought, { text: reply.text }], 'STOP', reply.usage);
}

/** Starts the server; its `url` is the models URL, what a provider entry's `endpoint` holds. */
export function startGoogleServer(): Promise<GoogleServer> {
  return startScriptedServer<GoogleReply>('/v1beta/models', render);
}
