import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses outbound calls may not reach, and a small CIDR matcher over byte arrays
 * (4 bytes for IPv4, 16 for IPv6). Written here rather than with node:net BlockList so that the
 * IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4) are decoded and checked explicitly.
 */
export type Cidr = { bytes: Uint8Array; prefix: number };

/** IPv4 or IPv6 text → bytes; null when it is not an IP literal. Zone ids (`fe80::1%eth0`) are dropped. */
export function parseIp(text: string): Uint8Array | null {
  const ip = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIPv4(ip)) return Uint8Array.from(ip.split('.').map(Number));
  const bare = ip.split('%')[0] ?? ip;
  if (!isIPv6(bare)) return null;
  return parseIpv6(bare);
}

function parseIpv6(ip: string): Uint8Array {
  let text = ip;
  const tail: number[] = [];
  // a trailing dotted quad (`::ffff:127.0.0.1`) holds the last 32 bits
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    tail.push(...dotted[1].split('.').map(Number));
    text = `${text.slice(0, -dotted[1].length)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (s: string) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const out = new Uint8Array(16);
  words.forEach((w, i) => {
    out[i * 2] = w >> 8;
    out[i * 2 + 1] = w & 0xff;
  });
  if (tail.length) out.set(tail, 12);
  return out;
}

export function parseCidr(text: string): Cidr | null {
  const [ip, len, extra] = text.split('/');
  if (!ip || extra !== undefined) return null;
  const bytes = parseIp(ip);
  if (!bytes) return null;
  if (len === undefined) return { bytes, prefix: bytes.length * 8 };
  if (!/^\d{1,3}$/.test(len) || Number(len) > bytes.length * 8) return null;
  return { bytes, prefix: Number(len) };
}

/** Whether `addr` lies in `cidr` (same family only: callers decode embedded IPv4 first). */
export function inCidr(addr: Uint8Array, cidr: Cidr): boolean {
  if (addr.length !== cidr.bytes.length) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((addr[i] ?? 0) & mask) !== ((cidr.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

const table = (rows: [string, string][]) => rows.map(([cidr, reason]) => ({ cidr: parseCidr(cidr) as Cidr, reason }));

/** IPv4 special-purpose ranges that are not globally reachable (RFC 6890 and its updates). */
const V4_BLOCKED = table([
  ['0.0.0.0/8', 'this network (RFC 6890)'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'shared address space, CGNAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback (RFC 6890)'],
  ['169.254.0.0/16', 'link-local, cloud metadata (RFC 3927)'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0/24', 'documentation (RFC 5737)'],
  ['192.88.99.0/24', '6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation (RFC 5737)'],
  ['203.0.113.0/24', 'documentation (RFC 5737)'],
  ['224.0.0.0/4', 'multicast (RFC 5771)'],
  ['240.0.0.0/4', 'reserved, broadcast (RFC 1112, RFC 919)'],
]);

/** IPv6 ranges that hold an IPv4 address, which is then checked as IPv4. */
const V6_EMBEDDING: { cidr: Cidr; offset: number; form: string }[] = [
  { cidr: parseCidr('::ffff:0:0/96') as Cidr, offset: 12, form: 'IPv4-mapped (RFC 4291 §2.5.5.2)' },
  { cidr: parseCidr('64:ff9b::/96') as Cidr, offset: 12, form: 'NAT64 (RFC 6052)' },
  { cidr: parseCidr('2002::/16') as Cidr, offset: 2, form: '6to4 (RFC 3056)' },
];

/** IPv6 ranges refused outright; checked in order, so the specific names come first. */
const V6_BLOCKED = table([
  ['::/128', 'unspecified (RFC 4291)'],
  ['::1/128', 'loopback (RFC 4291)'],
  ['::/96', 'IPv4-compatible, deprecated (RFC 4291 §2.5.5.1)'],
  ['64:ff9b:1::/48', 'local-use NAT64 (RFC 8215)'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['fc00::/7', 'unique local (RFC 4193)'],
  ['fe80::/10', 'link-local (RFC 4291)'],
  ['fec0::/10', 'site-local, deprecated (RFC 3879)'],
  ['ff00::/8', 'multicast (RFC 4291)'],
  ['2001::/32', 'Teredo (RFC 4380)'],
  ['2001:2::/48', 'benchmarking (RFC 5180)'],
  ['2001:10::/28', 'ORCHID (RFC 4843)'],
  ['2001:20::/28', 'ORCHIDv2 (RFC 7343)'],
  ['2001:db8::/32', 'documentation (RFC 3849)'],
  ['3fff::/20', 'documentation (RFC 9637)'],
]);

/** Global unicast (RFC 4291 §2.4): any other IPv6 address is not reachable on the Internet. */
const V6_GLOBAL = parseCidr('2000::/3') as Cidr;

/**
 * Why an address may not be reached, or null when it is a public unicast address.
 * An IPv6 address that embeds an IPv4 address is judged by that IPv4 address.
 */
export function blockedReason(address: string | Uint8Array): string | null {
  const bytes = typeof address === 'string' ? parseIp(address) : address;
  if (!bytes) return 'not an IP address';
  if (bytes.length === 4) return V4_BLOCKED.find((r) => inCidr(bytes, r.cidr))?.reason ?? null;
  for (const e of V6_EMBEDDING) {
    if (!inCidr(bytes, e.cidr)) continue;
    const reason = blockedReason(bytes.slice(e.offset, e.offset + 4));
    return reason ? `${e.form} of ${reason}` : null;
  }
  const hit = V6_BLOCKED.find((r) => inCidr(bytes, r.cidr));
  if (hit) return hit.reason;
  return inCidr(bytes, V6_GLOBAL) ? null : 'not global unicast (RFC 4291 §2.4)';
}
