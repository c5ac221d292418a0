import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** `::ffff:a.b.c.d` is the IPv4 address a.b.c.d (a dual-stack socket reports IPv4 clients so). */
function plain(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? address;
}

/**
 * Whether `ip` matches one entry of a link's allow-list: exact addresses or CIDRs, IPv4 and IPv6.
 * An empty list allows everyone; an entry that is not an address or CIDR matches nothing.
 */
export function ipAllowed(allowed: string[], ip: string): boolean {
  if (allowed.length === 0) return true;
  const list = new BlockList();
  for (const entry of allowed) {
    const [addr = '', bits] = entry.trim().split('/');
    const a = plain(addr);
    const type = isIPv4(a) ? 'ipv4' : isIPv6(a) ? 'ipv6' : null;
    if (!type) continue;
    if (bits === undefined) list.addAddress(a, type);
    else if (/^\d{1,3}$/.test(bits) && Number(bits) <= (type === 'ipv4' ? 32 : 128))
      list.addSubnet(a, Number(bits), type);
  }
  const client = plain(ip);
  const type = isIPv4(client) ? 'ipv4' : isIPv6(client) ? 'ipv6' : null;
  return type !== null && list.check(client, type);
}
