// One MCP tool call over Streamable HTTP (revision 2025-11-25), through the run's policy-enforcing network client:
// initialize → notifications/initialized → tools/call, in one session of its own.
// Until tools/call is handed to the connection nothing has happened on the server, so every failure is definite;
// after that, an exchange that breaks off may have run the tool: uncertain, never sent again (when the run stopped
// waiting, the server is told so with notifications/cancelled, best effort). A session the server forgot (404) is
// opened again once, as the reference implementation does: before tools/call was sent the call then proceeds; after,
// it is sent again only when the action declares it safe to repeat (pure, idempotent, keyed), else it is uncertain.
import { EffectFailure, isAgentctlError, isEffectFailure, isNetworkFailure, JsonDepthError, jsonRpcMessages, type AnyErrorCode, type DispatchContext, type HttpResponse, type JsonObject, type JsonValue, type NetworkClient } from '@agentctl/sdk';

export interface McpEndpoint {
  /** The server's name in spec.mcpServers: messages name it, never its URL (which may carry a token). */
  readonly name: string;
  readonly url: string;
  readonly protocolVersion: string;
  readonly timeoutMs: number;
  /** Resolved header values. */
  readonly headers: Readonly<Record<string, string>>;
  readonly clientVersion: string;
  /** The action's idempotency says a tools/call may be sent twice (pure, idempotent, keyed). */
  readonly repeatable: boolean;
}

type Phase = 'initialize' | 'call';

/**
 * Remote text repeated in a message is cut to this many characters: it is the server's, not ours. It is cut by the
 * run's redactor, after redaction: a secret the server echoes must not be cut into a piece that is no longer hidden.
 */
const QUOTE = 300;
/** The longest wait for the server to take a cancellation notice. */
const CANCEL_NOTICE_MS = 2000;

export class McpCall {
  #session: string | undefined;
  #nextId = 1;
  /** 1 for the first session, 2 once a forgotten session was opened again (at most once). */
  #generation = 1;

  constructor(
    private readonly network: NetworkClient,
    private readonly endpoint: McpEndpoint,
    private readonly signal: AbortSignal,
    private readonly redact: DispatchContext['redact'],
  ) {}

  /** Remote text for a message: redacted, then cut to QUOTE characters. */
  #quote(text: string): string {
    return this.redact(text, { limit: QUOTE });
  }

  /** Calls `tool` and returns the tool result (an object with `content`, maybe `structuredContent`). */
  async callTool(tool: string, args: JsonObject): Promise<JsonObject> {
    await this.#open();
    let result: JsonObject;
    try {
      result = await this.#call(tool, args);
    } catch (error) {
      if (!expired(error) || this.#generation > 1) throw error;
      // tools/call was sent: the server may have run it before it forgot the session.
      if (!this.endpoint.repeatable) {
        throw new EffectFailure('uncertain', 'AGENTCTL_E_MCP_SESSION_EXPIRED', `MCP server ${this.endpoint.name} no longer knows the session (404 on tools/call); the tool may have run and the action's idempotency does not allow sending it again`, {
          details: { status: 404, method: 'tools/call', sessionGeneration: this.#generation },
          help: 'find out whether the tool ran, record it with `agentctl effects reconcile`, then resume; declare the action idempotent or keyed if a repeat is safe',
        });
      }
      await this.#reopen();
      result = await this.#call(tool, args);
    }
    if (result.isError === true) {
      throw new EffectFailure('failed', 'AGENTCTL_E_MCP_TOOL_ERROR', `MCP server ${this.endpoint.name}: tool ${tool} reported an error: ${this.#summary(result)}`, { details: { result } });
    }
    // The recorded result says the call went through a reopened session; the task output never carries it.
    return this.#generation > 1 ? { ...result, sessionGeneration: this.#generation } : result;
  }

  async #call(tool: string, args: JsonObject): Promise<JsonObject> {
    const id = this.#nextId;
    try {
      return await this.#request('tools/call', { name: tool, arguments: args }, 'call');
    } catch (error) {
      if (this.signal.aborted && isEffectFailure(error) && error.outcome === 'uncertain') await this.#cancelled(id);
      throw error;
    }
  }

  /** A session; one the server forgets before tools/call was sent is opened again once (nothing was called yet). */
  async #open(): Promise<void> {
    try {
      await this.#initialize();
    } catch (error) {
      if (!expired(error) || this.#generation > 1) throw error;
      await this.#reopen();
    }
  }

  async #reopen(): Promise<void> {
    this.#generation += 1;
    this.#session = undefined;
    await this.#initialize();
  }

  async #initialize(): Promise<void> {
    const { protocolVersion, clientVersion, name } = this.endpoint;
    const result = await this.#request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'agentctl', version: clientVersion } }, 'initialize');
    if (result.protocolVersion !== protocolVersion) {
      const answered = typeof result.protocolVersion === 'string' ? `"${this.#quote(result.protocolVersion)}"` : 'no protocolVersion';
      throw new EffectFailure('failed', 'AGENTCTL_E_MCP_VERSION', `MCP server ${name} answered initialize with ${answered}, not "${protocolVersion}"; the tool was not called`, {
        help: `set spec.mcpServers.${name}.protocolVersion to a revision the server speaks, or upgrade the server`,
      });
    }
    const response = await this.#post({ jsonrpc: '2.0', method: 'notifications/initialized' }, 'initialize');
    this.#checkStatus(response, 'initialize', 'notifications/initialized');
  }

  /**
   * Tells the server that the run gave up on request `id` (cancelled, or the task's deadline): best effort, within a
   * short bound of its own, and what it answers changes nothing: the call stays uncertain.
   */
  async #cancelled(id: number): Promise<void> {
    const signal = AbortSignal.timeout(Math.min(this.endpoint.timeoutMs, CANCEL_NOTICE_MS));
    try {
      await this.#post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the agentctl run stopped waiting' } }, 'call', signal);
    } catch {
      // Best effort: the outcome is recorded as uncertain whatever happens here.
    }
  }

  /** Sends one JSON-RPC request and returns its result; every other answer is a failure of the phase. */
  async #request(method: string, params: JsonObject, phase: Phase): Promise<JsonObject> {
    const id = this.#nextId++;
    const response = await this.#post({ jsonrpc: '2.0', id, method, params }, phase);
    this.#checkStatus(response, phase, method);
    if (method === 'initialize') this.#session = response.headers['mcp-session-id'] ?? this.#session;
    const answer = this.#messages(response, phase, method).find((message) => message.id === id && ('result' in message || 'error' in message));
    if (answer === undefined) throw this.#invalid(phase, `${method}: the answer holds no JSON-RPC response with id ${id}`);
    if ('error' in answer) {
      const error = (answer.error ?? {}) as JsonObject;
      const code = typeof error.code === 'number' ? ` ${error.code}` : '';
      const text = typeof error.message === 'string' ? `: ${this.#quote(error.message)}` : '';
      throw new EffectFailure('failed', 'AGENTCTL_E_MCP_RPC_ERROR', `MCP server ${this.endpoint.name} refused ${method}${params.name ? ` of tool ${String(params.name)}` : ''} with error${code}${text}`, {
        details: { method, error: error as JsonValue },
      });
    }
    const result = answer.result;
    if (result === null || typeof result !== 'object' || Array.isArray(result)) throw this.#invalid(phase, `${method}: the result is not an object`);
    return result as JsonObject;
  }

  async #post(message: JsonObject, phase: Phase, signal = this.signal): Promise<HttpResponse> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.endpoint.headers)) headers[name.toLowerCase()] = value;
    Object.assign(headers, { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    if (message.method !== 'initialize') headers['mcp-protocol-version'] = this.endpoint.protocolVersion;
    if (this.#session !== undefined) headers['mcp-session-id'] = this.#session;
    try {
      return await this.network.request({ url: this.endpoint.url, method: 'POST', headers, body: JSON.stringify(message), timeoutMs: this.endpoint.timeoutMs, signal });
    } catch (error) {
      throw this.#networkFailure(error, phase, String(message.method));
    }
  }

  /** A 404 on a request that carries a session is the session's end (the server forgot it). */
  #checkStatus(response: HttpResponse, phase: Phase, method: string): void {
    if (response.status >= 200 && response.status < 300) return;
    if (response.status === 404 && this.#session !== undefined) {
      const again = this.#generation > 1 ? ' again, after it was opened a second time' : '';
      throw new EffectFailure('failed', 'AGENTCTL_E_MCP_SESSION_EXPIRED', `MCP server ${this.endpoint.name} no longer knows the session${again} (404 on ${method})`, {
        details: { status: 404, method, sessionGeneration: this.#generation },
      });
    }
    throw new EffectFailure('failed', 'AGENTCTL_E_MCP_RESPONSE_INVALID', `MCP server ${this.endpoint.name} answered ${method} with HTTP ${response.status}`, { details: { status: response.status, method, phase } });
  }

  /** The JSON-RPC messages of an answer; one nested too deeply makes the answer unreadable. */
  #messages(response: HttpResponse, phase: Phase, method: string): JsonObject[] {
    try {
      return jsonRpcMessages(response);
    } catch (error) {
      if (error instanceof JsonDepthError) throw this.#invalid(phase, `${method}: the answer is JSON nested more than ${error.limit} levels deep`);
      throw error;
    }
  }

  /** The text parts of a tool result, for the message of a tool error. */
  #summary(result: JsonObject): string {
    const content = Array.isArray(result.content) ? result.content : [];
    const texts = content.flatMap((item) => (item !== null && typeof item === 'object' && !Array.isArray(item) && typeof item.text === 'string' ? [item.text] : []));
    return texts.length > 0 ? this.#quote(texts.join(' ')) : 'no text content';
  }

  /** A 2xx answer that cannot be read: after tools/call the tool may have run, so it is uncertain. */
  #invalid(phase: Phase, problem: string): EffectFailure {
    return new EffectFailure(phase === 'call' ? 'uncertain' : 'failed', 'AGENTCTL_E_MCP_RESPONSE_INVALID', `MCP server ${this.endpoint.name}: ${problem}`);
  }

  #networkFailure(error: unknown, phase: Phase, method: string): EffectFailure {
    const prefix = `MCP server ${this.endpoint.name} (${method})`;
    if (!isNetworkFailure(error)) {
      const code: AnyErrorCode = isAgentctlError(error) ? error.code : 'AGENTCTL_E_MCP_UNCERTAIN';
      return new EffectFailure(phase === 'call' ? 'uncertain' : 'failed', code, `${prefix}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const message = `${prefix}: ${error.message}`;
    // Nothing reached the server, or it answered with a redirect (never followed): the tool did not run.
    if (!error.sent || error.code === 'AGENTCTL_E_NETWORK_REDIRECT' || phase === 'initialize') return new EffectFailure('failed', error.code, message, { cause: error });
    if (error.code === 'AGENTCTL_E_CANCELLED') return new EffectFailure('uncertain', error.code, `${message}; the tool may have run`, { cause: error });
    return new EffectFailure('uncertain', 'AGENTCTL_E_MCP_UNCERTAIN', `${message}; the tool may have run, so it is not called again`, { cause: error });
  }
}

/** The server forgot the session (a 404 answer to a request that carried it). */
function expired(error: unknown): boolean {
  return isEffectFailure(error) && error.code === 'AGENTCTL_E_MCP_SESSION_EXPIRED' && error.outcome === 'failed';
}
