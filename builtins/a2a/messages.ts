// The JSON-RPC messages of one answer: a JSON body (one message), or a `text/event-stream` body whose events each carry
// one message in their `data` lines (SubscribeToTask, SendStreamingMessage). What is not a JSON-RPC 2.0 object is
// left out; JSON nested too deeply throws JsonDepthError.
import { JsonDepthError, parseJsonAnswer, type HttpResponse, type JsonObject } from '@agentctl/sdk';

export function rpcMessages(response: Pick<HttpResponse, 'headers' | 'body'>): JsonObject[] {
  const text = response.body.toString('utf8');
  const type = (response.headers['content-type'] ?? '').toLowerCase();
  const documents = type.startsWith('text/event-stream') ? eventData(text) : [text];
  return documents.flatMap((document) => {
    try {
      const value: unknown = parseJsonAnswer(document);
      return isObject(value) && value.jsonrpc === '2.0' ? [value] : [];
    } catch (error) {
      if (error instanceof JsonDepthError) throw error;
      return [];
    }
  });
}

/** The `data` of each event of a server-sent event stream, its `data:` lines joined by newlines. */
export function eventData(text: string): string[] {
  const events: string[] = [];
  let lines: string[] = [];
  const flush = () => {
    if (lines.length > 0) events.push(lines.join('\n'));
    lines = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') flush();
    else if (line === 'data' || line.startsWith('data:')) lines.push(line.slice(5).replace(/^ /, ''));
  }
  flush();
  return events;
}

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
