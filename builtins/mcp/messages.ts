// The JSON-RPC messages of one Streamable HTTP answer: a JSON body (one message), or a `text/event-stream` body whose
// events each carry one message in their `data` lines. What is not a JSON-RPC 2.0 object is left out.
import { JsonDepthError, parseJsonAnswer, type HttpResponse, type JsonObject } from '@agentctl/sdk';

/**
 * Throws JsonDepthError for a message nested more than MAX_JSON_DEPTH levels: it is not left out, since its tool may
 * have run, and recording it could not be done safely.
 */
export function parseRpcMessages(response: Pick<HttpResponse, 'headers' | 'body'>): JsonObject[] {
  const text = response.body.toString('utf8');
  const type = (response.headers['content-type'] ?? '').toLowerCase();
  const documents = type.startsWith('text/event-stream') ? eventData(text) : [text];
  return documents.flatMap((document) => {
    try {
      const value: unknown = parseJsonAnswer(document);
      return value !== null && typeof value === 'object' && !Array.isArray(value) && (value as JsonObject).jsonrpc === '2.0' ? [value as JsonObject] : [];
    } catch (error) {
      if (error instanceof JsonDepthError) throw error;
      return [];
    }
  });
}

/** The `data` of each event of a server-sent event stream (its `data:` lines joined by newlines). */
export function eventData(text: string): string[] {
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
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
  }
  dispatch();
  return events;
}
