import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * A share link's IP allow-list (spec §5 item 6): exact addresses or CIDR ranges, IPv4 and IPv6.
 * One parser serves the validation of a link's entries and the check of a client address.
 */
type Range = { address: string; type: 'ipv4' | 'ipv6'; bits: number | null };

/** `::ffff:a.b.c.d` is the IPv4 address a.b.c.d (a dual-stack socket reports IPv4 clients so). */
function plain(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? address;
}

const typeOf = (a: string) => (isIPv4(a) ? 'ipv4' : isIPv6(a) ? 'ipv6' : null);

/** An address or a CIDR range, or null when the entry is neither. */
function parseRange(entry: string): Range | null {
  const [addr = '', bits, extra] = entry.trim().split('/');
  const address = plain(addr);
  const type = typeOf(address);
  if (!type || extra !== undefined) return null;
  if (bits === undefined) return { address, type, bits: null };
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > (type === 'ipv4' ? 32 : 128)) return null;
  return { address, type, bits: Number(bits) };
}

/** Whether `entry` is an IPv4/IPv6 address or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`). */
export const isIpOrCidr = (entry: string): boolean => parseRange(entry) !== null;

/** Whether `ip` matches an entry of the list; an empty list allows everyone, an invalid entry matches nothing. */
export function ipAllowed(allowed: string[], ip: string): boolean {
  if (allowed.length === 0) return true;
  const list = new BlockList();
  for (const r of allowed.map(parseRange)) {
    if (r === null) continue;
    if (r.bits === null) list.addAddress(r.address, r.type);
    else list.addSubnet(r.address, r.bits, r.type);
  }
  const client = plain(ip);
  const type = typeOf(client);
  return type !== null && list.check(client, type);
}
