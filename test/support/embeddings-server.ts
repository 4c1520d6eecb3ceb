// An in-process server that speaks the OpenAI embeddings wire format (`POST /v1/embeddings`) on 127.0.0.1. Without a
// scripted reply it embeds what it is sent: each word adds ±1 to one dimension chosen by its SHA-256, so texts that
// share words are similar. Scripted replies stand in for broken or refusing APIs.
import { createHash } from 'node:crypto';
import { startScriptedServer, type RecordedRequest, type Rendered, type ScriptedServer } from './scripted-server.js';

/** One scripted reply: vectors as given (numbers or raw JSON text of each), an error status, or a raw body. */
export type EmbeddingReply = { readonly vectors: readonly string[] } | { readonly hang: true } | { readonly error: number; readonly type?: string; readonly code?: string } | { readonly raw: string; readonly status?: number };

export type EmbeddingsServer = ScriptedServer<EmbeddingReply>;

/** The server's own embedding of one text (not normalised: the client scales it). */
export function serverVector(text: string, dimensions: number): number[] {
  const sums = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/).filter((item) => item !== '')) {
    const digest = createHash('sha256').update(word).digest();
    sums[digest.readUInt32BE(0) % dimensions]! += (digest[4]! & 1) === 0 ? 0.5 : -0.5;
  }
  return sums;
}

function render(reply: EmbeddingReply | undefined, request: RecordedRequest): Rendered {
  const body = request.body as { model?: string; input?: string[]; dimensions?: number };
  const model = body.model ?? 'unknown';
  const input = Array.isArray(body.input) ? body.input : [];
  const usage = { prompt_tokens: input.length * 3, total_tokens: input.length * 3 };
  if (reply && 'error' in reply) return { status: reply.error, body: JSON.stringify({ error: { message: 'scripted error', type: reply.type ?? 'invalid_request_error', code: reply.code ?? null, param: null } }) };
  if (reply && 'hang' in reply) return 'hang';
  if (reply && 'raw' in reply) return { status: reply.status ?? 200, body: reply.raw };
  // Each vector is written as JSON text, so a test can send what JSON.stringify cannot (1e999).
  const vectors = reply ? reply.vectors : input.map((text) => JSON.stringify(serverVector(text, body.dimensions ?? 1536)));
  const data = vectors.map((vector, index) => `{"object":"embedding","index":${index},"embedding":${vector}}`).join(',');
  return { status: 200, body: `{"object":"list","data":[${data}],"model":${JSON.stringify(model)},"usage":${JSON.stringify(usage)}}` };
}

/** Starts the server; its `url` is the Responses URL a provider entry's `endpoint` holds (`.../v1/responses`). */
export const startEmbeddingsServer = (): Promise<EmbeddingsServer> => startScriptedServer<EmbeddingReply>('/v1/responses', render);
