// The static half of the network policy: what a URL may look like before any name is resolved. Each refusal is a
// NetworkFailure with `sent: false` and code AGENTCTL_E_NETWORK_DENIED; messages name the URL's origin at most.
import { isIP } from 'node:net';
import { NetworkFailure, type NetworkSettings } from '@agentctl/sdk';

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };
const HELP = 'add the host to spec.policy.networkAllowlist and its scheme and port to spec.policy.network';

/** A URL that passed the static checks: its host as compared and as resolved (no brackets, no trailing dot). */
export interface AcceptedUrl {
  readonly url: URL;
  /** Lower case, IPv6 without brackets, without a trailing dot: what the allowlist was matched against. */
  readonly host: string;
  readonly port: number;
  /** True when the host is an IP literal (no DNS). */
  readonly literal: boolean;
}

export function denied(message: string, help = HELP): NetworkFailure {
  return new NetworkFailure('AGENTCTL_E_NETWORK_DENIED', message, false, { help });
}

/** A host as compared: lower case, brackets of an IPv6 literal removed, one trailing dot removed. */
export function comparableHost(hostname: string): string {
  const lower = hostname.toLowerCase();
  const bare = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/** An allowlist entry in the URL parser's canonical form (IDN to punycode, IPv6 compressed); undefined if unusable. */
function canonicalEntry(entry: string): string | undefined {
  const trimmed = entry.trim();
  const host = isIP(trimmed) === 6 ? `[${trimmed}]` : trimmed;
  try {
    const parsed = new URL(`http://${host}/`);
    return parsed.pathname === '/' && parsed.port === '' && parsed.username === '' ? comparableHost(parsed.hostname) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `host` (already comparable) matches one allowlist entry: an exact host, or `*.suffix`, which matches any
 * name ending in `.suffix` (one label or more) and never `suffix` itself nor an IP literal.
 */
export function hostMatches(host: string, entry: string): boolean {
  if (entry.startsWith('*.')) {
    const suffix = canonicalEntry(entry.slice(2));
    return suffix !== undefined && isIP(host) === 0 && host.endsWith(`.${suffix}`) && host.length > suffix.length + 1;
  }
  return canonicalEntry(entry) === host;
}

/** Applies the static policy, in order: parse, userinfo, scheme, host, port. */
export function acceptUrl(text: string, settings: NetworkSettings): AcceptedUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw denied('the URL is malformed');
  }
  const scheme = url.protocol.slice(0, -1);
  if (url.username !== '' || url.password !== '') {
    throw denied(`a URL for ${scheme}://${url.host} carries a user name or password; credentials go in headers, never in URLs`);
  }
  if (!(url.protocol in DEFAULT_PORTS) || !settings.allowedSchemes.includes(scheme)) {
    throw denied(`scheme ${scheme} is not allowed (allowedSchemes: ${settings.allowedSchemes.join(', ') || 'none'})`);
  }
  const host = comparableHost(url.hostname);
  if (host === '' || !settings.allowlist.some((entry) => hostMatches(host, entry))) {
    throw denied(`host ${host} is not in networkAllowlist`);
  }
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol]! : Number(url.port);
  // An empty list allows any port (the reference's default); a listed one narrows it.
  if (settings.allowedPorts.length > 0 && !settings.allowedPorts.includes(port)) {
    throw denied(`port ${port} of ${host} is not allowed (allowedPorts: ${settings.allowedPorts.join(', ') || 'none'})`);
  }
  return { url, host, port, literal: isIP(host) !== 0 };
}
