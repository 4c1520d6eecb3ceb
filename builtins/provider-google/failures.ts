// How a failed exchange is reported. Messages name the status and Google's short error status only: an error body
// may quote the request (system prompt, conversation), so it is never echoed.
import { EffectFailure, errorMessage, isAgentctlError, isNetworkFailure, type HttpResponse } from '../../sdk/index.js';

// error.status is a short identifier; anything else in that field is not repeated.
const IDENTIFIER = /^[A-Za-z0-9_.-]{1,64}$/;

/** A non-2xx answer → failed UNAVAILABLE (429, 5xx) or failed REJECTED. */
export function statusFailure(response: HttpResponse): EffectFailure {
  const { status } = response;
  const type = errorStatus(response.body);
  const message = `google answered ${status}${type ? ` (${type})` : ''}`;
  if (status === 429 || status >= 500) return new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_UNAVAILABLE', message, { details: { status } });
  if (status >= 300 && status < 400) return new EffectFailure('failed', 'AGENTCTL_E_NETWORK_REDIRECT', `${message}: redirects are not followed`, { details: { status } });
  return new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_REJECTED', message, { details: { status } });
}

// Google's error body: {"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT"}}.
function errorStatus(body: Buffer): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return '';
  }
  const status = (parsed as { error?: { status?: unknown } } | null)?.error?.status;
  return typeof status === 'string' && IDENTIFIER.test(status) ? status : '';
}

/**
 * What the network client threw → an EffectFailure. Nothing sent: definite, failed with the client's own code. A
 * redirect or an oversized body is a complete answer that cannot be used: failed. Anything else after sending may
 * have reached Google: uncertain, so it is never sent again without an operator.
 */
export function networkFailure(error: unknown): EffectFailure {
  if (!isNetworkFailure(error)) {
    if (isAgentctlError(error)) return new EffectFailure('uncertain', error.code, `google request: ${error.message}`, { cause: error });
    return new EffectFailure('uncertain', 'AGENTCTL_E_PROVIDER_UNCERTAIN', `google request failed after it may have been sent: ${errorMessage(error)}`, { cause: error });
  }
  const message = `google request: ${error.message}`;
  if (error.code === 'AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE') return new EffectFailure('failed', 'AGENTCTL_E_PROVIDER_RESPONSE_INVALID', message, { cause: error });
  if (error.code === 'AGENTCTL_E_CANCELLED') return new EffectFailure(error.sent ? 'uncertain' : 'failed', error.code, message, { cause: error });
  if (!error.sent || error.code === 'AGENTCTL_E_NETWORK_REDIRECT') return new EffectFailure('failed', error.code, message, { cause: error });
  return new EffectFailure('uncertain', 'AGENTCTL_E_PROVIDER_UNCERTAIN', message, { cause: error });
}
