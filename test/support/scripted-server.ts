// The HTTP side of the in-process model servers (anthropic-server.ts, google-server.ts): a server on 127.0.0.1 that
// records every request and answers each from a queue of scripted replies, which the wire format's module renders.
import { createServer, type IncomingMessage } from 'node:http';
import { listenOnLoopback } from './loopback.js';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  readonly body: unknown;
}

/** What to send: a status and a body, a redirect, or nothing at all (a hang). */
export type Rendered = { readonly status: number; readonly body: string; readonly headers?: Record<string, string> } | 'hang';

export interface ScriptedServer<Reply> {
  /** `http://127.0.0.1:PORT` and the path given to startScriptedServer. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  enqueue(...replies: Reply[]): void;
  close(): Promise<void>;
}

/** One request as a test server records it: headers flattened, the body parsed when it is JSON. */
export function record(request: IncomingMessage, text: string): RecordedRequest {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Recorded as text: a test may want to see what was not JSON.
  }
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
  return { method: request.method ?? '', path: request.url ?? '', headers, body };
}

/** Starts a server on a random port of 127.0.0.1; `render` turns the next reply (undefined: none left) into an answer. */
export async function startScriptedServer<Reply>(path: string, render: (reply: Reply | undefined, request: RecordedRequest) => Rendered): Promise<ScriptedServer<Reply>> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded = record(request, Buffer.concat(chunks).toString('utf8'));
      requests.push(recorded);
      const answer = render(queue.shift(), recorded);
      if (answer === 'hang') return;
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body);
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    // Hanging exchanges are cut so that close never waits for them.
    close,
  };
}
