// One peer as one effect sees it, through the run's policy-enforcing network client: its Agent Card (fetched without
// following redirects), the JSON-RPC interface selected from it (the pinned version, the card URL's origin), and the
// requests sent there. A 401 resolves the header secrets anew and sends the request once more: a refused request was
// not acted on. Whether a failure is definite or in doubt depends on the phase: before SendMessage nothing happened;
// once it is sent, an answer that never arrives leaves the work in doubt.
import { EffectFailure, isAgentctlError, isJsonObject, isNetworkFailure, JsonDepthError, jsonRpcMessages, type AnyErrorCode, type DispatchContext, type HttpRequest, type HttpResponse, type JsonObject, type JsonValue, type NetworkClient } from '@agentctl/sdk';

export interface PeerEndpoint {
  /** The peer's name in spec.a2aPeers: messages name it, never its URLs' secrets. */
  readonly name: string;
  readonly cardUrl: string;
  readonly protocolVersion: string;
  readonly timeoutMs: number;
}

/** The header values of the peer, and how to resolve them anew after a 401. */
export interface PeerHeaders {
  values(): Readonly<Record<string, string>>;
  refresh(): Promise<void>;
}

/** What was selected from the card. */
export interface SelectedInterface {
  readonly url: string;
  readonly protocolVersion: string;
  readonly cardName: string;
  /** The card advertises `capabilities.streaming`: running tasks are observed with SubscribeToTask. */
  readonly streaming: boolean;
}

/** `discover`: reading the card; `send`: SendMessage; `observe`: GetTask, SubscribeToTask and artifact downloads. */
export type Phase = 'discover' | 'send' | 'observe';

/** A request as a phase builds it; the timeout and signal are the connection's. */
type Outgoing = Omit<HttpRequest, 'timeoutMs' | 'signal'>;

/** Remote text repeated in a message is cut to this many characters (after redaction). */
const QUOTE = 300;
/** JSON-RPC answers are bounded as the reference bounds them (the policy's maxResponseBytes applies when lower). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export class PeerConnection {
  #selected: SelectedInterface | undefined;
  #refreshed = false;
  #nextId = 1;

  constructor(
    private readonly network: NetworkClient,
    private readonly endpoint: PeerEndpoint,
    private readonly headers: PeerHeaders,
    private readonly signal: AbortSignal,
    private readonly redact: DispatchContext['redact'],
  ) {}

  quote(text: string): string {
    return this.redact(text, { limit: QUOTE });
  }

  get selected(): SelectedInterface | undefined {
    return this.#selected;
  }

  /** Reads the card and selects its JSON-RPC interface of the pinned version, on the card URL's origin. */
  async discover(): Promise<SelectedInterface> {
    const { name, cardUrl, protocolVersion } = this.endpoint;
    const response = await this.#exchange('discover', 'the Agent Card', this.signal, () => ({ url: cardUrl, method: 'GET', headers: { ...this.#headerValues(), accept: 'application/json' } }));
    if (response.status < 200 || response.status > 299) throw this.#card(`answered GET with HTTP ${response.status}`);
    let card: unknown;
    try {
      card = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw this.#card('answered with a body that is not JSON');
    }
    if (!isJsonObject(card)) throw this.#card('answered with JSON that is not an object');
    const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces.filter(isJsonObject) : [];
    if (typeof card.name !== 'string' || card.name.trim() === '' || interfaces.length === 0) throw this.#card('has no name or no supportedInterfaces');
    const chosen = interfaces.find((item) => typeof item.protocolBinding === 'string' && item.protocolBinding.toUpperCase() === 'JSONRPC' && item.protocolVersion === protocolVersion);
    if (chosen === undefined) {
      const offered = interfaces.map((item) => `${this.quote(String(item.protocolBinding ?? '?'))} ${this.quote(String(item.protocolVersion ?? '?'))}`).join(', ');
      throw new EffectFailure('failed', 'AGENTCTL_E_A2A_VERSION', `A2A peer ${name} advertises no JSONRPC interface of version ${protocolVersion} (it offers: ${offered}); no message was sent`, {
        help: `set spec.a2aPeers.${name}.protocolVersion to a version the peer speaks, or upgrade the peer`,
      });
    }
    const url = typeof chosen.url === 'string' ? chosen.url : '';
    if (!sameOrigin(cardUrl, url)) {
      throw new EffectFailure('failed', 'AGENTCTL_E_A2A_ORIGIN', `A2A peer ${name}: its JSON-RPC interface is not on the origin of its card URL; it is not contacted and no message was sent`, {
        details: { interfaceOrigin: originOf(url) },
      });
    }
    const capabilities = isJsonObject(card.capabilities) ? card.capabilities : {};
    this.#selected = { url, protocolVersion, cardName: this.quote(card.name), streaming: capabilities.streaming === true };
    return this.#selected;
  }

  /**
   * Sends one JSON-RPC request and returns its result object (the last response of a stream for SSE answers). A
   * request sent after the effect's signal was aborted (CancelTask) brings its own.
   */
  async call(method: string, params: JsonObject, phase: Phase, signal = this.signal): Promise<JsonObject> {
    const results = await this.#request(method, params, phase, signal);
    const last = results.at(-1);
    if (last === undefined) throw this.#invalid(phase, `${method}: the answer holds no JSON-RPC response`);
    return last;
  }

  /** Sends one JSON-RPC request answered with an event stream; returns every result it carried, in order. */
  async stream(method: string, params: JsonObject, phase: Phase): Promise<JsonObject[]> {
    return this.#request(method, params, phase, this.signal);
  }

  /** Downloads an artifact part's URL, which must share the card URL's origin; at most `maxBytes` bytes. */
  async fetch(url: string, maxBytes: number): Promise<Buffer> {
    if (!sameOrigin(this.endpoint.cardUrl, url)) {
      throw new EffectFailure('failed', 'AGENTCTL_E_A2A_ORIGIN', `A2A peer ${this.endpoint.name}: an artifact part names a URL off the origin of its card URL; it is not downloaded`, {
        details: { artifactOrigin: originOf(url) },
      });
    }
    const response = await this.#exchange('observe', 'an artifact', this.signal, () => ({ url, method: 'GET', headers: this.#headerValues(), maxResponseBytes: maxBytes }));
    if (response.status < 200 || response.status > 299) throw this.#invalid('observe', `an artifact download answered HTTP ${response.status}`);
    return response.body;
  }

  async #request(method: string, params: JsonObject, phase: Phase, signal: AbortSignal): Promise<JsonObject[]> {
    const selected = this.#selected;
    if (selected === undefined) throw new Error('the peer was not discovered');
    const id = this.#nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const response = await this.#exchange(phase, method, signal, () => ({
      url: selected.url,
      method: 'POST',
      headers: { ...this.#headerValues(), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'a2a-version': selected.protocolVersion },
      body,
      maxResponseBytes: MAX_ANSWER_BYTES,
    }));
    if (response.status < 200 || response.status > 299) {
      throw new EffectFailure(phase === 'observe' ? 'uncertain' : 'failed', 'AGENTCTL_E_A2A_RESPONSE_INVALID', `A2A peer ${this.endpoint.name} answered ${method} with HTTP ${response.status}`, { details: { status: response.status, method } });
    }
    let messages: JsonObject[];
    try {
      messages = jsonRpcMessages(response).filter((message) => message.id === id || message.id === undefined || message.id === null);
    } catch (error) {
      if (error instanceof JsonDepthError) throw this.#invalid(phase, `${method}: the answer is JSON nested more than ${error.limit} levels deep`);
      throw error;
    }
    const failed = messages.find((message) => 'error' in message);
    if (failed !== undefined) {
      const error = isJsonObject(failed.error) ? failed.error : {};
      const code = typeof error.code === 'number' ? ` ${error.code}` : '';
      const text = typeof error.message === 'string' ? `: ${this.quote(error.message)}` : '';
      throw new EffectFailure(phase === 'observe' ? 'uncertain' : 'failed', 'AGENTCTL_E_A2A_RPC_ERROR', `A2A peer ${this.endpoint.name} refused ${method} with error${code}${text}`, { details: { method, error: error as JsonValue } });
    }
    const results = messages.flatMap((message) => (isJsonObject(message.result) ? [message.result] : []));
    if (results.length === 0) throw this.#invalid(phase, `${method}: the answer holds no JSON-RPC result object for request ${id}`);
    return results;
  }

  /** One HTTP exchange; a 401 resolves the header secrets anew and sends it once more (at most once per effect). */
  async #exchange(phase: Phase, what: string, signal: AbortSignal, build: () => Outgoing): Promise<HttpResponse> {
    let response = await this.#send(phase, what, signal, build);
    if (response.status === 401 && !this.#refreshed && Object.keys(this.headers.values()).length > 0) {
      this.#refreshed = true;
      await this.headers.refresh();
      response = await this.#send(phase, what, signal, build);
    }
    if (response.status === 401) {
      throw new EffectFailure('failed', 'AGENTCTL_E_A2A_UNAUTHORIZED', `A2A peer ${this.endpoint.name} refused ${what} with 401${this.#refreshed ? ' after the header secrets were resolved anew' : ''}`, {
        help: `check the secrets of spec.a2aPeers.${this.endpoint.name}.headers`,
      });
    }
    return response;
  }

  async #send(phase: Phase, what: string, signal: AbortSignal, build: () => Outgoing): Promise<HttpResponse> {
    try {
      // Built for each send: a refreshed header secret goes into the second one.
      return await this.network.request({ ...build(), timeoutMs: this.endpoint.timeoutMs, signal });
    } catch (error) {
      throw this.#networkFailure(error, phase, what);
    }
  }

  #headerValues(): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.headers.values())) headers[name.toLowerCase()] = value;
    return headers;
  }

  #card(problem: string): EffectFailure {
    return new EffectFailure('failed', 'AGENTCTL_E_A2A_CARD_INVALID', `the Agent Card of A2A peer ${this.endpoint.name} ${problem}; no message was sent`);
  }

  /** A 2xx answer that cannot be read: after SendMessage the peer may have taken the work, so it is uncertain. */
  #invalid(phase: Phase, problem: string): EffectFailure {
    if (phase === 'send') return new EffectFailure('uncertain', 'AGENTCTL_E_A2A_UNCERTAIN', `A2A peer ${this.endpoint.name}: ${problem}; the peer may have taken the message, so it is not sent again`);
    return new EffectFailure(phase === 'observe' ? 'uncertain' : 'failed', 'AGENTCTL_E_A2A_RESPONSE_INVALID', `A2A peer ${this.endpoint.name}: ${problem}`);
  }

  #networkFailure(error: unknown, phase: Phase, what: string): EffectFailure {
    const prefix = `A2A peer ${this.endpoint.name} (${what})`;
    if (!isNetworkFailure(error)) {
      const code: AnyErrorCode = isAgentctlError(error) ? error.code : 'AGENTCTL_E_A2A_UNCERTAIN';
      return new EffectFailure(phase === 'discover' ? 'failed' : 'uncertain', code, `${prefix}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const message = `${prefix}: ${error.message}`;
    // Nothing reached the peer, or it answered with a redirect (never followed), or only the card was asked for.
    if (phase === 'discover' || !error.sent || error.code === 'AGENTCTL_E_NETWORK_REDIRECT') return new EffectFailure('failed', error.code, message, { cause: error });
    if (phase === 'observe') return new EffectFailure('uncertain', error.code, `${message}; the remote task is known and is observed again on resume`, { cause: error });
    if (error.code === 'AGENTCTL_E_CANCELLED' || error.code === 'AGENTCTL_E_TASK_TIMEOUT') return new EffectFailure('uncertain', error.code, `${message}; the peer may have taken the message`, { cause: error });
    return new EffectFailure('uncertain', 'AGENTCTL_E_A2A_UNCERTAIN', `${message}; the peer may have taken the message, so it is not sent again`, { cause: error });
  }
}

/** Same scheme, host and effective port. */
export function sameOrigin(left: string, right: string): boolean {
  try {
    return originOf(left) === originOf(right) && originOf(left) !== 'null';
  } catch {
    return false;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'not a URL';
  }
}
