// One JSON exchange of an HTTP model provider, with the failure rules every provider shares: a definite retryable
// answer (429, 5xx), a definite refusal (other 4xx), nothing sent (definite), or sent without an answer (uncertain).
// Messages name the status and the API's short error identifiers only: an error body may quote the request.
import { EffectFailure, errorMessage, isAgentctlError } from './errors.js';
import { JsonDepthError, parseJsonAnswer } from './json.js';
import { isNetworkFailure } from './network.js';
import type { EmbeddingCallContext } from './provider.js';
import type { z } from 'zod';

/** Error identifiers (`invalid_request_error`, `INVALID_ARGUMENT`) are short tokens; anything else is not repeated. */
const IDENTIFIER = /^[A-Za-z0-9_.-]{1,64}$/;

/** One request of a provider kind. */
export interface ProviderExchange {
  /** The provider kind, for messages (`anthropic answered 503 ...`). */
  readonly kind: string;
  readonly url: string;
  /** The kind's authentication headers; they win over the entry's own `headers`. */
  readonly auth: Readonly<Record<string, string>>;
  /** The JSON body. */
  readonly body: unknown;
  /** The largest answer read; a longer one is AGENTCTL_E_PROVIDER_RESPONSE_INVALID. */
  readonly maxResponseBytes: number;
  /** The short identifiers of an error body, e.g. `[error.type, error.code]`; non-identifiers are dropped. */
  errorIdentifiers(body: unknown): readonly unknown[];
}

/**
 * Sends `exchange` through `context.network` and returns the 2xx body. Without a credential nothing is sent
 * (AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING). Every failure is an EffectFailure, as `providerStatusFailure` and
 * `providerNetworkFailure` say.
 */
export async function postProviderJson(context: EmbeddingCallContext, exchange: ProviderExchange): Promise<Buffer> {
  if (context.credential === undefined) {
    throw new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_CREDENTIAL_MISSING', `provider ${context.provider.name} (${exchange.kind}) has no credential; nothing was sent`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(context.headers)) headers[name.toLowerCase()] = value;
  Object.assign(headers, exchange.auth, { 'content-type': 'application/json' });
  let response;
  try {
    response = await context.network.request({
      url: exchange.url,
      method: 'POST',
      headers,
      body: JSON.stringify(exchange.body),
      timeoutMs: context.timeoutMs,
      maxResponseBytes: exchange.maxResponseBytes,
      signal: context.signal,
    });
  } catch (error) {
    throw providerNetworkFailure(exchange.kind, error);
  }
  if (response.status < 200 || response.status >= 300) throw providerStatusFailure(exchange.kind, response.status, identifiersOf(response.body, exchange));
  return response.body;
}

function identifiersOf(body: Buffer, exchange: ProviderExchange): string[] {
  let parsed: unknown;
  try {
    parsed = parseJsonAnswer(body.toString('utf8'));
  } catch {
    return [];
  }
  return exchange.errorIdentifiers(parsed).filter((value): value is string => typeof value === 'string' && IDENTIFIER.test(value));
}

/** A non-2xx answer: failed UNAVAILABLE (429, 5xx: the host may retry), a redirect, or failed REJECTED. */
export function providerStatusFailure(kind: string, status: number, identifiers: readonly string[] = []): EffectFailure {
  const message = `${kind} answered ${status}${identifiers.length > 0 ? ` (${identifiers.join(', ')})` : ''}`;
  if (status === 429 || status >= 500) return new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', message, { details: { status } });
  if (status >= 300 && status < 400) return new EffectFailure('failed', 'AGENTCTL_E_NETWORK_REDIRECT', `${message}: redirects are not followed`, { details: { status } });
  return new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_REJECTED', message, { details: { status } });
}

/**
 * What the network client threw. Nothing sent: definite, failed with the client's own code. A redirect or an
 * oversized body is a complete answer that cannot be used: failed. Anything else after sending (a timeout, a reset)
 * may have reached the provider: uncertain, so it is never sent again without an operator.
 */
export function providerNetworkFailure(kind: string, error: unknown): EffectFailure {
  if (!isNetworkFailure(error)) {
    if (isAgentctlError(error)) return new EffectFailure('uncertain', error.code, `${kind} request: ${error.message}`, { cause: error });
    return new EffectFailure('uncertain', 'AGENTCTL_E_PROVIDER_UNCERTAIN', `${kind} request failed after it may have been sent: ${errorMessage(error)}`, { cause: error });
  }
  const message = `${kind} request: ${error.message}`;
  if (error.code === 'AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE') return new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID', message, { cause: error });
  if (error.code === 'AGENTCTL_E_CANCELLED') return new EffectFailure(error.sent ? 'uncertain' : 'failed', error.code, message, { cause: error });
  if (!error.sent || error.code === 'AGENTCTL_E_NETWORK_REDIRECT') return new EffectFailure('failed', error.code, message, { cause: error });
  return new EffectFailure('uncertain', 'AGENTCTL_E_PROVIDER_UNCERTAIN', message, { cause: error });
}

/** A 2xx answer that cannot be used: failed (the provider answered; nothing is in doubt). */
export function invalidAnswer(kind: string, message: string): EffectFailure {
  return new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID', `${kind} answer: ${message}`);
}

/** A 2xx body parsed as JSON and checked against `schema`; AGENTCTL_E_PROVIDER_RESPONSE_INVALID when it is not. */
export function parseProviderAnswer<Schema extends z.ZodType>(kind: string, body: Buffer, schema: Schema): z.output<Schema> {
  let json: unknown;
  try {
    json = parseJsonAnswer(body.toString('utf8'));
  } catch (error) {
    if (error instanceof JsonDepthError) throw invalidAnswer(kind, `the body is JSON nested more than ${error.limit} levels deep`);
    throw invalidAnswer(kind, `the body is not JSON (${body.length} bytes)`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidAnswer(kind, `${issue.path.join('.') || 'the body'}: ${issue.message}`);
  }
  return parsed.data;
}
