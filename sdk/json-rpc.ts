// The JSON-RPC 2.0 messages of one HTTP answer, for a plugin that speaks a JSON-RPC protocol over HTTP (MCP's
// Streamable HTTP, A2A): a JSON body carries one message, a `text/event-stream` body one message per event.
import type { HttpResponse } from './network.js';
import { JsonDepthError, parseJsonAnswer, type JsonObject } from './json.js';

/** Whether `value` is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The `data` of each event of a server-sent event stream, its `data` lines joined by newlines (comments, other fields
 * and events without data are left out), as the HTML living standard's event-stream parsing reads them.
 */
export function serverSentEventData(text: string): string[] {
  const events: string[] = [];
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0) events.push(data.join('\n'));
    data = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field === 'data') data.push(colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, ''));
  }
  dispatch();
  return events;
}

/**
 * The JSON-RPC 2.0 objects of an answer: its body as one JSON document, or, for `text/event-stream`, each event's data.
 * What does not parse, or is not a JSON-RPC 2.0 object, is left out; a message nested more than MAX_JSON_DEPTH levels
 * throws JsonDepthError instead (it may answer a request that had effects, so it cannot just be dropped).
 */
export function jsonRpcMessages(response: Pick<HttpResponse, 'headers' | 'body'>): JsonObject[] {
  const text = response.body.toString('utf8');
  const type = (response.headers['content-type'] ?? '').toLowerCase();
  const documents = type.startsWith('text/event-stream') ? serverSentEventData(text) : [text];
  return documents.flatMap((document) => {
    try {
      const value: unknown = parseJsonAnswer(document);
      return isJsonObject(value) && value.jsonrpc === '2.0' ? [value] : [];
    } catch (error) {
      if (error instanceof JsonDepthError) throw error;
      return [];
    }
  });
}
