// The addresses each host was resolved to by the last check, handed to net/tls as their `lookup`: the connection goes
// only to an address that was classified, and the name is never resolved a second time (no DNS rebinding window).
import type { LookupAddress, LookupOneOptions, LookupAllOptions } from 'node:dns';
import type { PinnedAddress } from './resolve.js';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Host → the addresses accepted for it, keyed by the host as the connection names it (no brackets, no trailing dot). */
export class Pins {
  readonly #addresses = new Map<string, readonly PinnedAddress[]>();
  /** How many times the connection asked for a host: what a test counts to see that DNS is not asked again. */
  lookups = 0;

  set(host: string, addresses: readonly PinnedAddress[]): void {
    this.#addresses.set(host, addresses);
  }

  /** The `lookup` option of net.connect / tls.connect: answers from the pins, and fails for a host never checked. */
  readonly lookup = (hostname: string, options: LookupOneOptions | LookupAllOptions | number, callback: LookupCallback): void => {
    this.lookups += 1;
    const host = hostname.toLowerCase().replace(/\.$/, '');
    const wanted = typeof options === 'object' ? options.family : options;
    const family = wanted === 'IPv4' ? 4 : wanted === 'IPv6' ? 6 : wanted;
    const pinned = (this.#addresses.get(host) ?? []).filter((entry) => !family || entry.family === family);
    if (pinned.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`${host} has no address accepted by the network policy`);
      error.code = 'ENOTFOUND';
      process.nextTick(callback, error, []);
      return;
    }
    if (typeof options === 'object' && options.all) process.nextTick(callback, null, pinned.map((entry) => ({ ...entry })));
    else process.nextTick(callback, null, pinned[0]!.address, pinned[0]!.family);
  };
}
