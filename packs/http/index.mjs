// @ts-check
// agentctl-pack-http: one action kind, http.request, that sends one HTTP request through the run's network client
// (the workflow's network policy decides what may be reached) and records it as one effect. Header values may come
// from secret references; the ledger keeps header names only.
import { AgentctlError, defineActionKind, EffectFailure, isNetworkFailure, secretReferenceSchema, z } from '@agentctl/sdk';

const METHODS = /** @type {const} */ (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Methods whose repetition leaves the server as one request would: a failure after sending may be retried. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
/** Response headers copied to the output; others (cookies, tokens a server echoes) are dropped. */
const SAFE_HEADERS = ['content-type', 'content-length', 'etag', 'last-modified', 'location', 'retry-after', 'x-request-id', 'link'];
/** Request headers the client sets itself, or that would change how the request is framed. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive']);
const MIB = 1024 * 1024;
/** How much of a request body the ledger keeps (after redaction). */
const BODY_PREVIEW = 200;

const url = z.string().max(8192).refine((value) => /^https?:\/\//i.test(value), 'an http:// or https:// URL');
const json = z.json();
const headerValue = z.union([
  z.string().max(8192),
  z.strictObject({ prefix: z.string().max(64), secret: secretReferenceSchema }),
  secretReferenceSchema,
]);
const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, 'a header name (token characters)')
  .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), 'a header the client sets itself');
const query = z.record(z.string().min(1).max(256), z.union([z.string().max(8192), z.number(), z.boolean()]));

const actionSchema = z
  .strictObject({
    method: z.enum(METHODS).default('GET'),
    url: url.optional(),
    headers: z.record(headerName, headerValue).default({}),
    body: json.optional(),
    query: query.default({}),
    acceptStatus: z.array(z.number().int().min(100).max(599)).max(50).default([]),
    maxResponseBytes: z.number().int().min(1).max(64 * MIB).default(MIB),
    timeoutSeconds: z.number().int().min(1).max(3600).default(30),
  })
  .refine((action) => action.body === undefined || (action.method !== 'GET' && action.method !== 'HEAD'), { message: 'GET and HEAD requests have no body', path: ['body'] });

const inputSchema = z.strictObject({
  /** Replaces the action's url. */
  url: url.optional(),
  /** Replaces the action's body. */
  body: json.optional(),
  /** Added to the action's query (a name given in both takes this value). */
  query: query.optional(),
});

/**
 * @typedef {z.output<typeof actionSchema>} HttpAction
 * @typedef {z.output<typeof headerValue>} HeaderValue
 * @typedef {Readonly<Record<string, import('@agentctl/sdk').JsonValue>>} Reference
 */

/**
 * The secret reference of a header value, if it has one.
 * @param {HeaderValue} value
 * @returns {Reference | undefined}
 */
function referenceOf(value) {
  if (typeof value === 'string') return undefined;
  if ('prefix' in value && 'secret' in value && Object.keys(value).length === 2) return /** @type {Reference} */ (value.secret);
  return /** @type {Reference} */ (value);
}

/**
 * @param {HttpAction} action
 * @returns {import('@agentctl/sdk').Idempotency}
 */
const idempotencyOf = (action) => (IDEMPOTENT.has(action.method) ? 'idempotent' : 'at_most_once');

/**
 * `scheme://host:port` of a URL: what messages may name (a path or query may hold a credential).
 * @param {string} target
 */
function originOf(target) {
  try {
    return new URL(target).origin;
  } catch {
    return 'an unparsable URL';
  }
}

/**
 * What the network client threw, as an effect outcome. Nothing sent: failed. A redirect: a complete answer, failed.
 * Sent without a usable answer: an idempotent request may be repeated (failed, so task.retry applies); any other
 * may have acted on the server, so it is uncertain and never sent again without an operator.
 * @param {unknown} error
 * @param {string} method
 * @param {boolean} idempotent
 */
function networkOutcome(error, method, idempotent) {
  if (!isNetworkFailure(error)) return new EffectFailure('uncertain', 'AGENTCTL_PACK_HTTP_E_UNCERTAIN', `${method} failed after it may have been sent`, { cause: error });
  const message = `${method} request: ${error.message}`;
  if (!error.sent || error.code === 'AGENTCTL_E_NETWORK_REDIRECT') return new EffectFailure('failed', error.code, message, { cause: error });
  if (error.code === 'AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE') {
    const why = `${message}; the client aborts an oversized body, so no part of it is available: raise maxResponseBytes (the policy's network.maxResponseBytes still bounds it)`;
    return idempotent
      ? new EffectFailure('failed', error.code, why, { cause: error })
      : new EffectFailure('uncertain', 'AGENTCTL_PACK_HTTP_E_UNCERTAIN', `${why}; the server answered, so the ${method} may have taken effect`, { cause: error });
  }
  if (idempotent) return new EffectFailure('failed', error.code, `${message}; it may have reached the server, and repeating ${method} is safe`, { cause: error });
  return new EffectFailure('uncertain', 'AGENTCTL_PACK_HTTP_E_UNCERTAIN', `${message}; the server may have acted on the ${method}, so it is not repeated`, { cause: error });
}

/**
 * The response body: parsed JSON when the server says it is JSON, text otherwise.
 * @param {Buffer} body
 * @param {string} contentType
 * @returns {import('@agentctl/sdk').JsonValue}
 */
function bodyOf(body, contentType) {
  const text = body.toString('utf8');
  if (/^application\/([\w.+-]+\+)?json\b/i.test(contentType) && text.trim() !== '') {
    try {
      return /** @type {import('@agentctl/sdk').JsonValue} */ (JSON.parse(text));
    } catch {
      // Not JSON after all: returned as text.
    }
  }
  return text;
}

export const http = defineActionKind({
  plugin: 'agentctl-pack-http',
  version: '0.1.0',
  hostRange: '^0.1.0',
  name: 'http.request',
  description: 'Sends one HTTP request under the network policy: {status, headers, body, bytes} out.',
  errorCodes: {
    AGENTCTL_PACK_HTTP_E_STATUS: { exitCode: 4, description: 'The server answered with a status that is not 2xx and not in acceptStatus.' },
    AGENTCTL_PACK_HTTP_E_UNCERTAIN: { exitCode: 6, description: 'A POST or PATCH failed after it was sent: the server may have acted on it.' },
    AGENTCTL_PACK_HTTP_E_NO_URL: { exitCode: 2, description: 'Neither the action nor the task input gives a url.' },
    AGENTCTL_PACK_HTTP_E_BODY: { exitCode: 2, description: 'A GET or HEAD request was given a body.' },
  },
  actionSchema,
  inputSchema,
  effect: { effectClass: 'network', risk: 'medium', idempotency: 'at_most_once' },
  usesNetwork: true,
  profileFor: (action) => ({ effectClass: 'network', risk: 'medium', idempotency: idempotencyOf(action) }),
  // What check and plan judge by policy, as they judge a builtin's effects: the one request, with the access and
  // idempotency dispatch will give it. Its URL is judged by the network policy when the run sends it.
  describe: (action) => ({ effects: [{ operation: 'http.request', access: { tool: 'http.request' }, profile: { idempotency: idempotencyOf(action) } }] }),
  secretReferences: (action) => {
    /** @type {Reference[]} */
    const references = [];
    for (const value of Object.values(action.headers)) {
      const reference = referenceOf(value);
      if (reference) references.push(reference);
    }
    return references;
  },
  async dispatch(context) {
    const { action, input } = context;
    const network = context.network;
    if (!network) throw new AgentctlError('AGENTCTL_E_NETWORK_UNAVAILABLE', 'http.request got no network client: no plugin provides one');
    const base = input.url ?? action.url;
    if (base === undefined) throw new AgentctlError('AGENTCTL_PACK_HTTP_E_NO_URL', 'http.request needs a url', { help: 'set the action\'s url or the task\'s with.url' });
    const target = new URL(base);
    for (const [name, value] of Object.entries({ ...action.query, ...input.query })) target.searchParams.set(name, String(value));
    const body = input.body ?? action.body;
    if (body !== undefined && (action.method === 'GET' || action.method === 'HEAD')) {
      throw new AgentctlError('AGENTCTL_PACK_HTTP_E_BODY', `${action.method} requests have no body, but with.body is set`);
    }

    /** @type {Record<string, string>} */
    const headers = {};
    for (const [name, value] of Object.entries(action.headers)) {
      const reference = referenceOf(value);
      if (typeof value === 'string') headers[name.toLowerCase()] = value;
      else if (reference) headers[name.toLowerCase()] = ('prefix' in value && typeof value.prefix === 'string' ? value.prefix : '') + context.secrets.value(reference);
    }
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    if (body !== undefined && typeof body !== 'string' && headers['content-type'] === undefined) headers['content-type'] = 'application/json';

    // The policy refuses a host, scheme or port before anything is recorded or sent.
    await network.check(target.href, context.signal);

    const method = action.method;
    const idempotency = idempotencyOf(action);
    const recorded = {
      method,
      // The store redacts every known secret value; the URL is recorded as the policy sees it.
      url: context.redact(target.href),
      headerNames: Object.keys(headers).sort(),
      ...(text === undefined ? {} : { bodyBytes: Buffer.byteLength(text), bodyPreview: context.redact(text.slice(0, BODY_PREVIEW), { truncated: text.length > BODY_PREVIEW }) }),
    };
    const request = { operation: 'http.request', input: recorded, access: { tool: 'http.request' }, profile: { idempotency } };
    return context.effect(request, async (signal) => {
      let response;
      try {
        response = await network.request({
          url: target.href,
          method,
          headers,
          ...(text === undefined ? {} : { body: text }),
          timeoutMs: action.timeoutSeconds * 1000,
          maxResponseBytes: action.maxResponseBytes,
          signal,
        });
      } catch (error) {
        throw networkOutcome(error, method, idempotency === 'idempotent');
      }
      const ok = (response.status >= 200 && response.status < 300) || action.acceptStatus.includes(response.status);
      if (!ok) {
        throw new EffectFailure('failed', 'AGENTCTL_PACK_HTTP_E_STATUS', `${method} ${originOf(target.href)} answered ${response.status}`, {
          details: { status: response.status },
          help: 'list the status in acceptStatus if it is an expected answer',
        });
      }
      /** @type {Record<string, string>} */
      const safe = {};
      for (const name of SAFE_HEADERS) if (response.headers[name] !== undefined) safe[name] = response.headers[name];
      const parsed = bodyOf(response.body, response.headers['content-type'] ?? '');
      return { status: response.status, headers: safe, body: typeof parsed === 'string' ? context.redact(parsed) : parsed, bytes: response.body.length };
    });
  },
});

export default http;
