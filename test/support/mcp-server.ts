// A local MCP server speaking Streamable HTTP JSON-RPC (revision 2025-11-25) on 127.0.0.1, for the mcp.call cases:
// it opens a session on initialize, expects the session and protocol headers afterwards, answers tools/call from a
// table of tools (as JSON, or as an event stream with a notification first), and records every request it gets.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startServer, type RecordedRequest, type RecordingServer } from './network.js';

export const MCP_VERSION = '2025-11-25';

/** What a tool answers: a tool result, its JSON text as is (`raw`), a JSON-RPC error, or nothing at all (the exchange hangs). */
export type ToolAnswer = { readonly result: Record<string, unknown> } | { readonly raw: string } | { readonly error: { readonly code: number; readonly message: string } } | 'hang';

export type Tool = (args: Record<string, unknown>, request: RecordedRequest) => ToolAnswer;

export interface McpServerOptions {
  /** The protocolVersion initialize answers with (default: the one the client asked for). */
  readonly protocolVersion?: string;
  /** Answer requests with `text/event-stream`. */
  readonly sse?: boolean;
  /** Answer tools/call with 404, as a server that ended the session does. */
  readonly expireSession?: boolean;
  /** Forget only the first session opened, with a 404 at this step; later sessions work. */
  readonly expireFirstSession?: 'initialized' | 'call';
  /** Answer tools/call with this HTTP status and no JSON-RPC body, as a failing server does. */
  readonly callStatus?: number;
  /** Answer every request with a redirect to this URL. */
  readonly redirect?: string;
  readonly tools?: Readonly<Record<string, Tool>>;
}

/** The tools every server has besides its own: durable (structured), echo-auth (quotes the Authorization header), fails (isError). */
export const DEFAULT_TOOLS: Readonly<Record<string, Tool>> = {
  durable: (args) => ({ result: { content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true, received: args } } }),
  'echo-auth': (_args, request) => ({ result: { content: [{ type: 'text', text: 'seen' }], structuredContent: { authorization: request.headers.authorization ?? null } } }),
  plain: () => ({ result: { content: [{ type: 'text', text: 'no structure' }] } }),
  fails: () => ({ result: { content: [{ type: 'text', text: 'disk quota exceeded' }], isError: true } }),
  slow: () => 'hang',
};

export interface McpTestServer {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** The JSON-RPC methods received, in order. */
  methods(): string[];
  close(): Promise<void>;
}

export async function startMcpServer(options: McpServerOptions = {}): Promise<McpTestServer> {
  const tools = { ...DEFAULT_TOOLS, ...options.tools };
  const sessions = new Set<string>();
  let first: string | undefined;
  const server: RecordingServer = await startServer((request, response) => {
    if (options.redirect !== undefined) return void response.writeHead(307, { location: options.redirect }).end();
    if (request.method !== 'POST' || request.url !== '/mcp') return void response.writeHead(404).end();
    const message = JSON.parse(request.body) as { id?: number; method: string; params?: Record<string, unknown> };
    if (message.method === 'initialize') {
      const session = `session-${randomBytes(6).toString('hex')}`;
      sessions.add(session);
      first ??= session;
      const protocolVersion = options.protocolVersion ?? message.params?.protocolVersion;
      return answer(response, options, message.id!, { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'fixture', version: '1.0.0' } }, { 'mcp-session-id': session });
    }
    const session = String(request.headers['mcp-session-id'] ?? '');
    if (!sessions.has(session) || request.headers['mcp-protocol-version'] !== MCP_VERSION) return void response.writeHead(400).end('missing session or protocol version');
    const forgotten = session === first && options.expireFirstSession !== undefined;
    if (forgotten && options.expireFirstSession === (message.id === undefined ? 'initialized' : 'call')) {
      sessions.delete(session);
      return void response.writeHead(404).end();
    }
    if (message.id === undefined) return void response.writeHead(202).end();
    if (options.expireSession) return void response.writeHead(404).end();
    if (options.callStatus !== undefined && message.method === 'tools/call') return void response.writeHead(options.callStatus).end('internal error');
    if (message.method !== 'tools/call') return error(response, options, message.id!, -32601, `Method not found: ${message.method}`);
    const name = String(message.params?.name);
    const tool = tools[name];
    if (!tool) return error(response, options, message.id!, -32602, `Unknown tool: ${name}`);
    const outcome = tool((message.params?.arguments ?? {}) as Record<string, unknown>, request);
    if (outcome === 'hang') return;
    if ('error' in outcome) return error(response, options, message.id!, outcome.error.code, outcome.error.message);
    if ('raw' in outcome) return void response.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${message.id},"result":${outcome.raw}}`);
    answer(response, options, message.id!, outcome.result);
  });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    port: server.port,
    requests: server.requests,
    methods: () => server.requests.map((request) => (JSON.parse(request.body) as { method: string }).method),
    close: () => server.close(),
  };
}

function error(response: ServerResponse, options: McpServerOptions, id: number, code: number, message: string): void {
  send(response, options, { jsonrpc: '2.0', id, error: { code, message } });
}

function answer(response: ServerResponse, options: McpServerOptions, id: number, result: unknown, headers: Record<string, string> = {}): void {
  send(response, options, { jsonrpc: '2.0', id, result }, headers);
}

/** One JSON-RPC response: a JSON body, or an event stream with a progress notification before it. */
function send(response: ServerResponse, options: McpServerOptions, message: unknown, headers: Record<string, string> = {}): void {
  if (!options.sse) {
    response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(message));
    return;
  }
  const notification = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
  response.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
  response.end(`: a comment line\nevent: message\ndata: ${JSON.stringify(notification)}\n\nid: 1\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
}
