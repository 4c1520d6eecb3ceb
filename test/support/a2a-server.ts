// A local A2A 1.0 peer on 127.0.0.1 for the a2a.delegate cases, speaking the JSON-RPC binding: its Agent Card at
// /.well-known/agent-card.json, JSON-RPC requests POSTed to /a2a (SendMessage, GetTask, CancelTask answered as JSON,
// SubscribeToTask as an event stream), tasks in the JSON binding's words (`TASK_STATE_WORKING`, `ROLE_AGENT`) and
// artifacts of typed parts (text, raw, data, url), some served from /files/. It records every request it gets.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback.js';

export const A2A_VERSION = '1.0';

export interface RecordedA2aRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** The JSON-RPC method of a POST to /a2a. */
  readonly rpc?: string;
}

export interface A2aServerOptions {
  /** Listen on this port (default: any free port). */
  readonly port?: number;
  /** The protocolVersion the card advertises for its JSONRPC interface (default 1.0). */
  readonly protocolVersion?: string;
  /** The interface URL the card names (default: this server's /a2a). */
  readonly interfaceUrl?: (base: string) => string;
  /** The card advertises streaming: the client observes with SubscribeToTask. */
  readonly streaming?: boolean;
  /** How a task ends: completed with `artifacts`, failed, or SendMessage answers with a message and no task. */
  readonly outcome?: 'completed' | 'failed' | 'message';
  /** How many observations answer `TASK_STATE_WORKING` before the task ends (default 1); `Infinity` until `finish()`. */
  readonly workingObservations?: number;
  /** Destroy the connection once a SendMessage arrived, without answering. */
  readonly dropSendMessage?: boolean;
  /** Destroy the connection of the GetTask requests with these (1-based) ordinals, without answering. */
  readonly dropGetTask?: readonly number[];
  /** Every request must carry this Authorization header, else 401. */
  readonly authorization?: () => string;
  /** Called with each request before it is answered (e.g. to rotate a credential). */
  readonly onRequest?: (request: RecordedA2aRequest) => void;
  /** The artifacts of a completed task; `{base}` in a part's url becomes this server's origin. */
  readonly artifacts?: readonly Record<string, unknown>[];
  /** Files served under /files/NAME. */
  readonly files?: Readonly<Record<string, Buffer>>;
  /** Serve this as the Agent Card instead of the fixture's. */
  readonly card?: unknown;
  /** Answer SendMessage with this HTTP status and no JSON-RPC body, or with this JSON-RPC error. */
  readonly refuseSend?: { readonly status: number } | { readonly error: { readonly code: number; readonly message: string } };
}

export interface A2aTestServer {
  /** `http://127.0.0.1:PORT` */
  readonly base: string;
  readonly cardUrl: string;
  readonly port: number;
  readonly requests: RecordedA2aRequest[];
  /** The JSON-RPC methods received, in order. */
  methods(): string[];
  /** Ends every task still working (as `outcome` says) at its next observation. */
  finish(): void;
  close(): Promise<void>;
}

/** The artifacts every completed task has unless a case gives its own: a text part and a data part. */
export const DEFAULT_ARTIFACTS = [
  { artifactId: 'report', name: 'report', parts: [{ text: 'the bounded fixture task is done', mediaType: 'text/plain', filename: 'report.txt' }] },
  { artifactId: 'numbers', parts: [{ data: { answer: 42 } }] },
];

interface TaskRecord {
  id: string;
  contextId: string;
  observations: number;
  state: string;
  message: Record<string, unknown>;
}

export async function startA2aServer(options: A2aServerOptions = {}): Promise<A2aTestServer> {
  const requests: RecordedA2aRequest[] = [];
  const tasks = new Map<string, TaskRecord>();
  let finished = false;
  let base = '';
  const server = createServer();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      let rpc: { id?: unknown; method?: string; params?: Record<string, any> } | undefined;
      if (request.method === 'POST') {
        try {
          rpc = JSON.parse(body);
        } catch {
          rpc = undefined;
        }
      }
      const recorded: RecordedA2aRequest = { method: request.method!, url: request.url!, headers: request.headers, body, ...(rpc?.method ? { rpc: rpc.method } : {}) };
      requests.push(recorded);
      options.onRequest?.(recorded);
      if (options.authorization && request.headers.authorization !== options.authorization()) return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      if (request.method === 'GET' && request.url === '/.well-known/agent-card.json') return json(response, options.card ?? card(base, options));
      if (request.method === 'GET' && request.url?.startsWith('/files/')) {
        const file = options.files?.[request.url.slice('/files/'.length)];
        return file ? void response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file) : void response.writeHead(404).end();
      }
      if (request.method !== 'POST' || request.url !== '/a2a' || rpc === undefined) return void response.writeHead(404).end();
      if (request.headers['a2a-version'] !== A2A_VERSION) return rpcError(response, rpc.id, -32009, `VersionNotSupportedError: ${String(request.headers['a2a-version'])}`);
      const params = rpc.params ?? {};
      switch (rpc.method) {
        case 'SendMessage': {
          if (options.dropSendMessage) return void request.socket.destroy();
          if (options.refuseSend && 'status' in options.refuseSend) return void response.writeHead(options.refuseSend.status).end('unavailable');
          if (options.refuseSend) return rpcError(response, rpc.id, options.refuseSend.error.code, options.refuseSend.error.message);
          const message = params.message ?? {};
          if (options.outcome === 'message') return result(response, rpc.id, { message: { messageId: `reply-${String(message.messageId)}`, role: 'ROLE_AGENT', parts: [{ text: 'answered directly' }] } });
          const task: TaskRecord = { id: `task-${tasks.size + 1}`, contextId: String(message.contextId ?? 'ctx-1'), observations: 0, state: 'TASK_STATE_SUBMITTED', message };
          tasks.set(task.id, task);
          return result(response, rpc.id, { task: view(task, base, options) });
        }
        case 'GetTask': {
          if (options.dropGetTask?.includes(requests.filter((item) => item.rpc === 'GetTask').length)) return void request.socket.destroy();
          const task = tasks.get(String(params.id));
          if (!task) return rpcError(response, rpc.id, -32001, 'TaskNotFoundError');
          observe(task, options, finished);
          return result(response, rpc.id, view(task, base, options));
        }
        case 'SubscribeToTask': {
          const task = tasks.get(String(params.id));
          if (!task) return rpcError(response, rpc.id, -32001, 'TaskNotFoundError');
          observe(task, options, finished);
          const events = [{ task: { ...view(task, base, options), status: { state: 'TASK_STATE_WORKING' }, artifacts: [] } }, { statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: task.state } } }];
          if (task.state === 'TASK_STATE_COMPLETED') for (const artifact of artifactsOf(base, options)) events.push({ artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact } } as never);
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          return void response.end(events.map((event) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: rpc!.id, result: event })}\n\n`).join(''));
        }
        case 'CancelTask': {
          const task = tasks.get(String(params.id));
          if (!task) return rpcError(response, rpc.id, -32001, 'TaskNotFoundError');
          task.state = 'TASK_STATE_CANCELED';
          return result(response, rpc.id, view(task, base, options));
        }
        default:
          return rpcError(response, rpc.id, -32601, `Method not found: ${String(rpc.method)}`);
      }
    });
  });
  const { port, close } = await listenOnLoopback(server, options.port);
  base = `http://127.0.0.1:${port}`;
  return {
    base,
    cardUrl: `${base}/.well-known/agent-card.json`,
    port,
    requests,
    methods: () => requests.flatMap((request) => (request.rpc ? [request.rpc] : request.method === 'GET' ? [`GET ${request.url}`] : [])),
    finish: () => {
      finished = true;
    },
    close,
  };
}

function card(base: string, options: A2aServerOptions) {
  return {
    name: 'fixture-peer',
    description: 'A local A2A peer for agentctl tests',
    version: '1.0.0',
    supportedInterfaces: [{ url: options.interfaceUrl?.(base) ?? `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: options.protocolVersion ?? A2A_VERSION }],
    capabilities: { streaming: options.streaming === true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'fixture', name: 'fixture', description: 'does a bounded fixture task', tags: ['test'] }],
  };
}

/** One observation: the task works for `workingObservations` observations (or until `finish()`), then ends. */
function observe(task: TaskRecord, options: A2aServerOptions, finished: boolean): void {
  if (task.state !== 'TASK_STATE_SUBMITTED' && task.state !== 'TASK_STATE_WORKING') return;
  task.observations += 1;
  const working = options.workingObservations ?? 1;
  const done = finished || task.observations > working;
  task.state = done ? (options.outcome === 'failed' ? 'TASK_STATE_FAILED' : 'TASK_STATE_COMPLETED') : 'TASK_STATE_WORKING';
}

function view(task: TaskRecord, base: string, options: A2aServerOptions) {
  const status: Record<string, unknown> = { state: task.state, timestamp: '2026-01-01T00:00:00Z' };
  if (task.state === 'TASK_STATE_FAILED') status.message = { messageId: `status-${task.id}`, role: 'ROLE_AGENT', parts: [{ text: 'the fixture task could not be done' }] };
  return {
    id: task.id,
    contextId: task.contextId,
    status,
    history: [task.message],
    ...(task.state === 'TASK_STATE_COMPLETED' ? { artifacts: artifactsOf(base, options) } : {}),
  };
}

function artifactsOf(base: string, options: A2aServerOptions) {
  return JSON.parse(JSON.stringify(options.artifacts ?? DEFAULT_ARTIFACTS).replaceAll('{base}', base)) as Record<string, unknown>[];
}

function json(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

function result(response: ServerResponse, id: unknown, value: unknown): void {
  json(response, { jsonrpc: '2.0', id, result: value });
}

function rpcError(response: ServerResponse, id: unknown, code: number, message: string): void {
  json(response, { jsonrpc: '2.0', id: id ?? null, error: { code, message } });
}
