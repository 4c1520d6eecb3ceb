// Resolves a host once, bounded by connectTimeoutSeconds, and classifies every address it resolves to. The answer is
// what the connection later uses (see pins.ts): nothing resolves the name a second time.
import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { NetworkFailure } from '@agentctl/sdk';
import { nonPublicClass } from './address-class.js';
import { denied, type AcceptedUrl } from './url-policy.js';

/** How names are resolved: `dns.promises.lookup` with `{all: true, verbatim: true}` unless a test injects another. */
export type Resolver = (host: string) => Promise<readonly LookupAddress[]>;

export const systemResolver: Resolver = (host) => dns.lookup(host, { all: true, verbatim: true });

/** One resolved address, in the form net's `lookup` option hands to connect. */
export interface PinnedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Rejects when `signal` aborts, with what `onAbort` builds. */
function whenAborted(signal: AbortSignal, onAbort: () => Error): { promise: Promise<never>; dispose(): void } {
  let listener: () => void = () => undefined;
  const promise = new Promise<never>((_, reject) => {
    listener = () => reject(onAbort());
    if (signal.aborted) listener();
    else signal.addEventListener('abort', listener, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', listener) };
}

/** Resolves `accepted.host` (IP literals as themselves), then refuses the answer unless every address may be reached. */
export async function resolveAccepted(
  accepted: AcceptedUrl,
  options: { readonly resolver: Resolver; readonly timeoutSeconds: number; readonly allowPrivate: boolean; readonly signal: AbortSignal; readonly onAbort: () => Error },
): Promise<PinnedAddress[]> {
  const answer = accepted.literal ? [{ address: accepted.host, family: isIP(accepted.host) }] : await lookup(accepted.host, options);
  const unique = new Map<string, PinnedAddress>();
  for (const entry of answer) {
    if (isIP(entry.address) === 0) continue;
    unique.set(entry.address, { address: entry.address, family: isIP(entry.address) as 4 | 6 });
  }
  const addresses = [...unique.values()].sort((left, right) => left.family - right.family || (left.address < right.address ? -1 : 1));
  if (addresses.length === 0) throw denied(`${accepted.host} resolves to no address`);
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const kind = nonPublicClass(address);
      if (kind === undefined) continue;
      const subject = accepted.literal ? address : `${accepted.host} resolves to ${address}`;
      // The allowlist already admits the host: what stands in the way is the private address, so the help says so.
      // The reference's words lead ("network address is not authorized"): scripts match the message on them.
      throw denied(`network address is not authorized: ${subject} (${kind}), refused without allowPrivate`, `set spec.policy.network.allowPrivate: true if ${accepted.host} is an intended ${kind} peer (a local service, a test server); otherwise use a public address`);
    }
  }
  return addresses;
}

async function lookup(host: string, options: { resolver: Resolver; timeoutSeconds: number; signal: AbortSignal; onAbort: () => Error }): Promise<readonly LookupAddress[]> {
  const limit = AbortSignal.timeout(options.timeoutSeconds * 1000);
  const expired = whenAborted(limit, () => new NetworkFailure('AGENTCTL_E_NETWORK_DNS', `resolving ${host} took longer than ${options.timeoutSeconds} s (connectTimeoutSeconds)`, false));
  const cancelled = whenAborted(options.signal, options.onAbort);
  try {
    return await Promise.race([
      options.resolver(host).catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException)?.code ?? 'an error';
        throw new NetworkFailure('AGENTCTL_E_NETWORK_DNS', `${host} could not be resolved (${code})`, false);
      }),
      expired.promise,
      cancelled.promise,
    ]);
  } finally {
    expired.dispose();
    cancelled.dispose();
  }
}
