// How a failed exchange is reported. Messages name the status and OpenAI's short error type and code only: an error
// body may quote the request (instructions, conversation), so it is never echoed.
import { EffectFailure, errorMessage, isAgentctlError, isNetworkFailure, type HttpResponse } from '../../sdk/index.js';

// error.type / error.code are short identifiers; anything else in those fields is not repeated.
const IDENTIFIER = /^[A-Za-z0-9_.-]{1,64}$/;

/** A non-2xx answer → failed UNAVAILABLE (429, 5xx: the host may retry) or failed REJECTED (any other status). */
export function statusFailure(response: HttpResponse, kind = 'openai'): EffectFailure {
  const { status } = response;
  const detail = errorIdentifiers(response.body);
  const message = `${kind} answered ${status}${detail ? ` (${detail})` : ''}`;
  if (status === 429 || status >= 500) return new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', message, { details: { status } });
  if (status >= 300 && status < 400) return new EffectFailure('failed', 'AGENTCTL_E_NETWORK_REDIRECT', `${message}: redirects are not followed`, { details: { status } });
  return new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_REJECTED', message, { details: { status } });
}

function errorIdentifiers(body: Buffer): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return '';
  }
  const error = (parsed as { error?: { type?: unknown; code?: unknown } } | null)?.error;
  return [error?.type, error?.code].filter((value): value is string => typeof value === 'string' && IDENTIFIER.test(value)).join(', ');
}

/**
 * What the network client threw → an EffectFailure. Nothing sent: definite, failed with the client's own code. A
 * redirect or an oversized body is a complete answer that cannot be used: failed. Anything else after sending (a
 * timeout, a reset) may have reached OpenAI: uncertain, so it is never sent again without an operator.
 */
export function networkFailure(error: unknown, kind = 'openai'): EffectFailure {
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
