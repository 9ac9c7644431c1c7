import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

// Which network addresses the crawler may connect to (SSRF defence). A crawl is started by an
// operator, but the pages it fetches choose its next URLs: a link or redirect to 127.0.0.1, a
// cloud metadata address or an intranet server would otherwise be fetched and made searchable.
// Only public unicast addresses are allowed unless the operator opts in (--allow-private or
// --allow-net CIDR). The check runs on the addresses a host name resolves to, inside the lookup
// the HTTP agent connects with, so the address vetted is the address connected to.

/** Special-purpose IPv4 ranges (IANA registry): never public. */
const IPV4_SPECIAL: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved (documentation)'],
  ['192.88.99.0', 24, 'reserved (6to4 relay)'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved (benchmarking)'],
  ['198.51.100.0', 24, 'reserved (documentation)'],
  ['203.0.113.0', 24, 'reserved (documentation)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** IPv6: only global unicast (2000::/3) is public, minus these. */
const IPV6_SPECIAL: [string, number, string][] = [
  ['2001::', 23, 'reserved (IETF protocol assignments, Teredo)'],
  ['2001:db8::', 32, 'reserved (documentation)'],
  ['2002::', 16, 'reserved (6to4)'],
  ['3fff::', 20, 'reserved (documentation)'],
];

const ipv4Rules = IPV4_SPECIAL.map(([net, prefix, kind]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, 'ipv4');
  return { list, kind };
});
const ipv6Rules = IPV6_SPECIAL.map(([net, prefix, kind]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, 'ipv6');
  return { list, kind };
});
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/** The IPv4 address an IPv6 address carries (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d), or null. */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (!groups) return null;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (!mapped && !nat64) return null;
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
}

/** Eight 16-bit groups of an IPv6 address (dotted IPv4 tail allowed), or null. */
function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const dotted = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups = tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** Why an address is not public ("loopback", "private", ...), or null for a public unicast address. */
export function nonPublicKind(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return ipv4Rules.find((rule) => rule.list.check(bare, 'ipv4'))?.kind ?? null;
  if (family !== 6) return 'not an IP address';
  const v4 = embeddedIpv4(bare);
  if (v4 !== null) return nonPublicKind(v4);
  const groups = expandIpv6(bare)!;
  if (groups.every((g) => g === 0)) return 'unspecified';
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return 'loopback';
  if ((groups[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((groups[0] & 0xfe00) === 0xfc00) return 'private (unique local)';
  if ((groups[0] & 0xff00) === 0xff00) return 'multicast';
  if (!globalUnicast.check(bare, 'ipv6')) return 'reserved';
  return ipv6Rules.find((rule) => rule.list.check(bare, 'ipv6'))?.kind ?? null;
}

/** What the operator allows beyond public addresses. */
export interface AddressPolicy {
  /** Every address (an intranet crawl). */
  allowPrivate?: boolean;
  /** CIDR ranges ("10.1.0.0/16", "::1/128") allowed although not public. */
  allowedNetworks?: string[];
}

export const ADDRESS_REFUSED = 'FUNDUS_ADDRESS_REFUSED';

export class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED;
}

/** Parses "addr/prefix" (or a bare address: one host); throws with the bad entry named. */
export function parseNetwork(cidr: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } {
  const [rawAddress, rawPrefix] = cidr.trim().split('/');
  const address = rawAddress.replace(/^\[|\]$/g, '');
  const family = isIP(address);
  const max = family === 4 ? 32 : 128;
  const prefix = rawPrefix === undefined ? max : Number(rawPrefix);
  if (!family || !/^\d*$/.test(rawPrefix ?? '') || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
    throw new Error(`not a network: "${cidr}" (give e.g. 10.0.0.0/8 or fd00::/8)`);
  }
  return { address, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/** The check for one crawl: null when the address may be connected to, else why not. */
export function addressChecker(policy: AddressPolicy): (address: string) => string | null {
  const allowed = new BlockList();
  for (const cidr of policy.allowedNetworks ?? []) {
    const { address, prefix, family } = parseNetwork(cidr);
    allowed.addSubnet(address, prefix, family);
  }
  return (address) => {
    if (policy.allowPrivate) return null;
    const bare = address.replace(/^\[|\]$/g, '');
    const kind = nonPublicKind(bare);
    if (kind === null) return null;
    const family = isIP(bare) === 4 ? 'ipv4' : 'ipv6';
    const v4 = family === 'ipv6' ? embeddedIpv4(bare) : null;
    if (allowed.check(bare, family) || (v4 !== null && allowed.check(v4, 'ipv4'))) return null;
    return `refused address ${bare} (${kind}; --allow-private or --allow-net allows it)`;
  };
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A dns.lookup replacement for the HTTP agent: resolves, and refuses the connection when any of the
 * addresses is not allowed (a host that resolves to a public and a private address is refused:
 * which one would be used is not ours to choose).
 */
export function guardedLookup(check: (address: string) => string | null) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: options.family === 6 || options.family === 'IPv6' ? 6 : options.family === 4 || options.family === 'IPv4' ? 4 : 0 }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const refused = check(address);
        if (refused) return callback(new AddressRefusedError(refused), []);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
