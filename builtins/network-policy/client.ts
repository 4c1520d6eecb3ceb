// The NetworkClient of one run: static URL policy, one resolution per request with every address classified, and
// a dispatcher that connects only to the addresses that were accepted. undici is loaded by the first request, so
// commands that never reach the network do not pay for it.
import { rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';
import { NetworkFailure, type HttpRequest, type HttpResponse, type NetworkClient, type NetworkSettings } from '@agentctl/sdk';
import { parseCaBundle } from './ca-bundle.js';
import { exchange } from './exchange.js';
import { Pins } from './pins.js';
import { resolveAccepted, systemResolver, type PinnedAddress, type Resolver } from './resolve.js';
import { acceptUrl } from './url-policy.js';

export interface ClientOptions {
  /** Replaces the system resolver (tests). */
  readonly resolver?: Resolver;
}

/** A client plus what tests inspect: the pins the connections read their addresses from. */
export interface PolicyClient extends NetworkClient {
  readonly pins: Pins;
}

const cancelled = (sent: boolean) => new NetworkFailure('AGENTCTL_E_CANCELLED', 'the HTTP request was cancelled', sent);

export function createNetworkClient(settings: NetworkSettings, options: ClientOptions = {}): PolicyClient {
  const ca = settings.customCa === undefined ? undefined : [...rootCertificates, ...parseCaBundle(settings.customCa)];
  const resolver = options.resolver ?? systemResolver;
  const pins = new Pins();
  let dispatcher: Promise<Dispatcher> | undefined;

  const check = async (url: string, signal: AbortSignal, onAbort: () => Error): Promise<{ accepted: ReturnType<typeof acceptUrl>; addresses: PinnedAddress[] }> => {
    const accepted = acceptUrl(url, settings);
    if (signal.aborted) throw onAbort();
    const addresses = await resolveAccepted(accepted, { resolver, timeoutSeconds: settings.connectTimeoutSeconds, allowPrivate: settings.allowPrivate, signal, onAbort });
    return { accepted, addresses };
  };

  return {
    pins,
    async check(url, signal) {
      await check(url, signal, () => cancelled(false));
    },
    async request(request: HttpRequest): Promise<HttpResponse> {
      const deadline = AbortSignal.timeout(request.timeoutMs);
      const stop = AbortSignal.any([request.signal, deadline]);
      const stopped = (sent: boolean) =>
        request.signal.aborted ? cancelled(sent) : new NetworkFailure('AGENTCTL_E_NETWORK_TIMEOUT', `the HTTP request did not complete within ${request.timeoutMs} ms`, sent);
      const { accepted, addresses } = await check(request.url, stop, () => stopped(false));
      if (!accepted.literal) pins.set(accepted.host, addresses);
      dispatcher ??= createDispatcher(settings, pins, ca);
      const cap = Math.min(request.maxResponseBytes ?? Number.POSITIVE_INFINITY, settings.maxResponseBytes);
      const target = `${accepted.url.protocol}//${accepted.url.host}`;
      return exchange(await dispatcher, request, { url: accepted.url, target, cap, timeoutMs: request.timeoutMs, stop, stopped });
    },
  };
}

/**
 * A plain Agent ignores HTTP_PROXY and friends. With allowProxy, undici's EnvHttpProxyAgent honours them: the proxy
 * then resolves the names it connects to, outside the pins (docs/network.md says so).
 */
async function createDispatcher(settings: NetworkSettings, pins: Pins, ca: string[] | undefined): Promise<Dispatcher> {
  const { Agent, EnvHttpProxyAgent } = await import('undici');
  const timeout = settings.connectTimeoutSeconds * 1000;
  // servername is left to undici: TLS verifies the certificate against the URL's host, not the pinned address.
  const connect = { timeout, lookup: pins.lookup, ...(ca ? { ca } : {}) };
  if (!settings.allowProxy) return new Agent({ connect });
  const tls = ca ? { ca } : {};
  return new EnvHttpProxyAgent({ connect, requestTls: tls, proxyTls: { ...tls, timeout } });
}
