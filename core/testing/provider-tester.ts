// The provider tester: a provider kind registered alone in a real host (so its errors are attributed as in a run),
// called with a stub ProviderCallContext whose network client answers from a script and records every request.
import { AgentctlError, NetworkFailure, type HttpRequest, type HttpResponse, type JsonValue, type ModelProvider, type ModelRequest, type ModelResponse, type NetworkClient, type PluginDefinition, type ProviderCallContext } from '@agentctl/sdk';
import { bareHost } from './bare-host.js';

/** One scripted HTTP answer: a status with a JSON (or text) body, or the NetworkFailure the exchange ends with. */
export type ScriptedReply = { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: JsonValue | string } | NetworkFailure;

/** A request the stub network received, its body decoded as text (and parsed when it is JSON). */
export interface RecordedRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: JsonValue | string | undefined;
  readonly timeoutMs: number;
}

/**
 * A NetworkClient that answers each request with the next scripted reply and records it. With no reply left it fails
 * with AGENTCTL_E_NETWORK_CONNECT (`sent: false`), as a server that is not there would. `check` accepts every URL.
 */
export class StubNetwork implements NetworkClient {
  readonly requests: RecordedRequest[] = [];
  readonly #replies: ScriptedReply[];

  constructor(replies: readonly ScriptedReply[] = []) {
    this.#replies = [...replies];
  }

  /** Adds replies after those already queued. */
  reply(...replies: ScriptedReply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  async check(): Promise<void> {}

  async request(request: HttpRequest): Promise<HttpResponse> {
    const text = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : Buffer.from(request.body).toString('utf8');
    this.requests.push({ url: request.url, method: request.method, headers: { ...request.headers }, body: text === undefined ? undefined : parsed(text), timeoutMs: request.timeoutMs });
    const reply = this.#replies.shift();
    if (reply === undefined) throw new NetworkFailure('AGENTCTL_E_NETWORK_CONNECT', `no scripted reply is left for ${request.method} ${request.url}`, false);
    if (!('status' in reply)) throw reply;
    const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    const headers = Object.fromEntries(Object.entries(reply.headers ?? { 'content-type': 'application/json' }).map(([name, value]) => [name.toLowerCase(), value]));
    return { status: reply.status, headers, body: Buffer.from(body) };
  }
}

function parsed(text: string): JsonValue | string {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** Options of a ProviderTester. */
export interface ProviderTesterOptions {
  /** The provider kind to test; default: the only one the plugin registers. */
  readonly kind?: string;
  /** Replies the stub network gives, in order. */
  readonly replies?: readonly ScriptedReply[];
}

/**
 * Tests a model provider kind without a network. `call` sends a request (defaults: one user message, no tools, 256
 * output tokens) with a stub context (`credential` `test-credential`, the stub network, a 5 s timeout) that
 * any field of `context` replaces; `network.requests` shows what the provider sent.
 */
export class ProviderTester {
  readonly provider: ModelProvider;
  readonly network: StubNetwork;

  constructor(plugin: PluginDefinition, options: ProviderTesterOptions = {}) {
    const host = bareHost([plugin]);
    const kinds = host.providers();
    const kind = options.kind ?? (kinds.length === 1 ? kinds[0] : undefined);
    const provider = kind === undefined ? undefined : host.provider(kind);
    if (!provider) {
      throw new AgentctlError('AGENTCTL_E_PROVIDER_UNKNOWN', `plugin ${plugin.name} registers provider kinds [${kinds.join(', ')}]; name the one to test with options.kind`);
    }
    this.provider = provider;
    this.network = new StubNetwork(options.replies);
  }

  /** A request with the tester's defaults and `overrides`. */
  request(overrides: Partial<ModelRequest> = {}): ModelRequest {
    return { model: 'test-model', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }], tools: [], maxOutputTokens: 256, options: {}, ...overrides };
  }

  /** A call context with the tester's defaults and `overrides`. */
  context(overrides: Partial<ProviderCallContext> = {}): ProviderCallContext {
    return {
      provider: { name: 'main', kind: this.provider.kind },
      credential: 'test-credential',
      headers: {},
      network: this.network,
      signal: new AbortController().signal,
      timeoutMs: 5000,
      effectId: 'eff_0000000000000000000000000000000000000001',
      sequence: 1,
      ...overrides,
    };
  }

  /** Calls the provider as the agent loop does, with the request and context defaults. */
  call(request: Partial<ModelRequest> = {}, context: Partial<ProviderCallContext> = {}): Promise<ModelResponse> {
    return this.provider.call(this.request(request), this.context(context));
  }
}
