/**
 * Which IP addresses the safe HTTP client (`read_url`, knowledge sources) may connect to: public unicast only. Everything that reaches the bot's
 * own machine, its network or its cloud provider's metadata service is refused, in IPv4 and in every
 * IPv6 spelling that carries an IPv4 address inside it (mapped, compatible, NAT64, 6to4).
 */
import net from 'node:net';

/** IPv4 ranges that are not the public internet, with the reason shown when one is refused. */
const IPV4_RANGES: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private network address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (where cloud metadata services live)'],
  ['172.16.0.0', 12, 'a private network address'],
  ['192.0.0.0', 24, 'an IETF special-purpose address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a 6to4 relay address'],
  ['192.168.0.0', 16, 'a private network address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved or broadcast address'],
  // Azure's platform endpoint sits in public space but answers only from inside the VM's network.
  ['168.63.129.16', 32, 'a cloud metadata address'],
];

const ipv4Blocked = new net.BlockList();
for (const [network, prefix] of IPV4_RANGES) ipv4Blocked.addSubnet(network, prefix, 'ipv4');

/** Options for `addressRefusal`. */
export interface AddressPolicy {
  /** Allow 127.0.0.0/8 and ::1. Only tests set this, through an option code must pass explicitly. */
  allowLoopback?: boolean;
}

/** Why connecting to `address` (an IP literal) is refused, or undefined when it is a public address. */
export function addressRefusal(address: string, policy: AddressPolicy = {}): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = net.isIP(bare);
  if (family === 4) return ipv4Refusal(bare, policy);
  if (family === 6) return ipv6Refusal(bare, policy);
  return 'not an IP address';
}

function ipv4Refusal(address: string, policy: AddressPolicy): string | undefined {
  if (policy.allowLoopback && address.startsWith('127.')) return undefined;
  if (!ipv4Blocked.check(address, 'ipv4')) return undefined;
  return IPV4_RANGES.find(([network, prefix]) => {
    const one = new net.BlockList();
    one.addSubnet(network, prefix, 'ipv4');
    return one.check(address, 'ipv4');
  })?.[2];
}

function ipv6Refusal(address: string, policy: AddressPolicy): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return 'an IPv6 address that could not be read';
  const embedded = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'an unspecified address';
  if (zeros(0, 7) && g[7] === 1) return policy.allowLoopback ? undefined : 'a loopback address';
  // ::ffff:a.b.c.d (mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address inside them.
  if (zeros(0, 5) && g[5] === 0xffff) return ipv4Refusal(embedded(g[6]!, g[7]!), policy);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return ipv4Refusal(embedded(g[6]!, g[7]!), policy);
  if (zeros(0, 6)) return 'a deprecated IPv4-compatible address';
  // 6to4 carries its IPv4 address in bits 16-48.
  if (g[0] === 0x2002) return ipv4Refusal(embedded(g[1]!, g[2]!), policy);
  const first = g[0]!;
  if (first >= 0xfc00 && first <= 0xfdff) return 'a unique-local (private) address';
  if (first >= 0xfe80 && first <= 0xfebf) return 'a link-local address';
  if (first >= 0xff00) return 'a multicast address';
  // Only global unicast (2000::/3) is the public internet; inside it, the IETF, Teredo, documentation
  // and segment-routing blocks are not places web pages live.
  if (first < 0x2000 || first > 0x3fff) return 'a reserved IPv6 address';
  if (first === 0x2001 && g[1]! < 0x200) return 'an IETF special-purpose address (e.g. Teredo)';
  if (first === 0x2001 && g[1] === 0xdb8) return 'a documentation address';
  if (first === 0x3fff && g[1]! < 0x1000) return 'a documentation address';
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (already known to be valid), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return undefined;
  const groups = [...left, ...new Array<number>(fill).fill(0), ...right];
  return groups.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? groups : undefined;
}
