// Which addresses are not public. A name that resolves to any of them is refused unless `allowPrivate` is set, so
// an allowlisted name cannot be pointed (by its DNS or by an attacker who controls it) at this machine or its LAN.
import { BlockList, isIP, isIPv6 } from 'node:net';

/** One refused range: its CIDR and the class named in the diagnostic; the first match names the class. */
const RANGES: readonly (readonly [cidr: string, name: string])[] = [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b::/96', 'NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
];

const CLASSES = RANGES.map(([cidr, name]) => {
  const [network, prefix] = cidr.split('/') as [string, string];
  const list = new BlockList();
  list.addSubnet(network, Number(prefix), isIPv6(network) ? 'ipv6' : 'ipv4');
  return { name, list, family: isIPv6(network) ? 'ipv6' : 'ipv4' };
});

/** Address in ::ffff:0:0/96: an IPv4 address in IPv6 form, classified by the IPv4 address it holds. */
const MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/** The embedded IPv4 address of an IPv4-mapped IPv6 address, or undefined. */
export function embeddedIpv4(address: string): string | undefined {
  if (!isIPv6(address)) return undefined;
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const match = MAPPED.exec(canonical);
  if (!match) return undefined;
  const high = Number.parseInt(match[1]!, 16);
  const low = Number.parseInt(match[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** The class of a non-public address (e.g. `loopback`), or undefined for a public one. Throws on a non-address. */
export function nonPublicClass(address: string): string | undefined {
  const version = isIP(address);
  if (version === 0) throw new TypeError(`${JSON.stringify(address)} is not an IP address`);
  const mapped = embeddedIpv4(address);
  const target = mapped ?? address;
  const family = mapped !== undefined || version === 4 ? 'ipv4' : 'ipv6';
  const found = CLASSES.find((entry) => entry.family === family && entry.list.check(target, family));
  if (found === undefined) return undefined;
  return mapped === undefined ? found.name : `IPv4-mapped ${found.name}`;
}
