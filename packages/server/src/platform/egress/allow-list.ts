import { type Cidr, inCidr, parseCidr, parseIp } from './address.ts';

/**
 * The explicit exceptions an operator configures (EGRESS_ALLOW_HOSTS): comma-separated entries,
 * each a host name, an IP literal or a CIDR, with an optional port for names and IPs:
 * `hooks.internal`, `hooks.internal:8443`, `127.0.0.1:4010`, `[::1]:4010`, `10.20.0.0/16`.
 * A name entry lets that name through whatever it resolves to; an IP or CIDR entry lets those
 * addresses through whatever name led there. Nothing else bypasses the checks.
 */
export type AllowEntry =
  | { kind: 'host'; host: string; port: number | null }
  | { kind: 'cidr'; cidr: Cidr; port: number | null };

/** Host names as compared everywhere: lower case, without the root's trailing dot. */
export function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

const HOST = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** Parses one entry; throws with a message naming the entry when it is not valid. */
export function parseAllowEntry(raw: string): AllowEntry {
  const text = raw.trim();
  const fail = (): never => {
    throw new Error(`"${text}" is not a host[:port], IP[:port] or CIDR`);
  };
  if (text.includes('/')) {
    const cidr = parseCidr(text);
    return cidr ? { kind: 'cidr', cidr, port: null } : fail();
  }
  // [v6]:port, [v6], bare v6, v4:port, v4, name:port, name
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed?.[1]) {
    const bytes = parseIp(bracketed[1]);
    if (bytes?.length !== 16) return fail();
    return { kind: 'cidr', cidr: { bytes, prefix: 128 }, port: port(bracketed[2], fail) };
  }
  const bare = parseIp(text);
  if (bare) return { kind: 'cidr', cidr: { bytes: bare, prefix: bare.length * 8 }, port: null };
  const [host = '', p, extra] = text.split(':');
  if (extra !== undefined) fail();
  const portNumber = port(p, fail);
  const ip = parseIp(host);
  if (ip) return { kind: 'cidr', cidr: { bytes: ip, prefix: 32 }, port: portNumber };
  const name = normalizeHost(host);
  if (!HOST.test(name)) fail();
  return { kind: 'host', host: name, port: portNumber };
}

function port(text: string | undefined, fail: () => never): number | null {
  if (text === undefined) return null;
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) fail();
  return Number(text);
}

/** The comma-separated list; empty entries are ignored. */
export function parseAllowList(raw: string | null): AllowEntry[] {
  if (!raw) return [];
  return raw
    .split(',')
    .filter((s) => s.trim() !== '')
    .map(parseAllowEntry);
}

const portMatches = (entry: AllowEntry, port: number) => entry.port === null || entry.port === port;

/** Whether a name entry lets `host` (normalized) on `port` through. */
export function hostAllowed(list: AllowEntry[], host: string, port: number): boolean {
  return list.some((e) => e.kind === 'host' && e.host === host && portMatches(e, port));
}

/** Whether an IP or CIDR entry lets `address` on `port` through. */
export function addressAllowed(list: AllowEntry[], address: Uint8Array, port: number): boolean {
  return list.some((e) => e.kind === 'cidr' && inCidr(address, e.cidr) && portMatches(e, port));
}
