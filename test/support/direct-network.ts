// A NetworkClient without any policy, over undici, for provider tests: it classifies failures like the policy client
// (nothing sent → `sent: false`; a timeout or reset after sending → `sent: true`; a 3xx or an oversized body fails).
import { request as undiciRequest } from 'undici';
import { NetworkFailure, type HttpRequest, type HttpResponse, type NetworkClient } from '../../sdk/index.js';

const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

async function send(request: HttpRequest): Promise<HttpResponse> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = AbortSignal.any([request.signal, timeout]);
  try {
    const response = await undiciRequest(request.url, { method: request.method, headers: request.headers, body: request.body, signal });
    if (response.statusCode >= 300 && response.statusCode < 400) {
      await response.body.dump();
      throw new NetworkFailure('AGENTCTL_E_NETWORK_REDIRECT', `${request.url} answered ${response.statusCode}, a redirect`, true);
    }
    const limit = request.maxResponseBytes ?? Number.POSITIVE_INFINITY;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        response.body.destroy();
        throw new NetworkFailure('AGENTCTL_E_NETWORK_RESPONSE_TOO_LARGE', `the response of ${request.url} is larger than ${limit} bytes`, true);
      }
      chunks.push(chunk as Buffer);
    }
    const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value)]));
    return { status: response.statusCode, headers, body: Buffer.concat(chunks) };
  } catch (error) {
    if (error instanceof NetworkFailure) throw error;
    if (request.signal.aborted) throw new NetworkFailure('AGENTCTL_E_CANCELLED', `the request to ${request.url} was cancelled`, true);
    if (timeout.aborted) throw new NetworkFailure('AGENTCTL_E_NETWORK_TIMEOUT', `no complete answer from ${request.url} within ${request.timeoutMs} ms`, true);
    const code = (error as { code?: string }).code ?? '';
    if (NOT_SENT.has(code)) throw new NetworkFailure('AGENTCTL_E_NETWORK_CONNECT', `cannot connect to ${request.url} (${code})`, false);
    throw new NetworkFailure('AGENTCTL_E_NETWORK_FAILED', `the exchange with ${request.url} broke off (${code || 'unknown error'})`, true);
  }
}

/** A client that reaches any URL. */
export function directNetwork(): NetworkClient {
  return {
    check: async (url) => {
      if (!URL.canParse(url)) throw new NetworkFailure('AGENTCTL_E_NETWORK_DENIED', 'malformed URL', false);
    },
    request: send,
  };
}
