import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { blockedReason, parseIp } from '../../../platform/egress/address.ts';
import { type AllowEntry, addressAllowed, hostAllowed, normalizeHost } from '../../../platform/egress/allow-list.ts';

/**
 * The egress rules (platform/egress) for the S3 SDK's own HTTP connections: a DNS lookup that
 * refuses loopback, private, link-local, metadata… addresses unless the operator's allow-list
 * names them. The connection uses the addresses this lookup checked, so a rebinding answer is
 * never connected to. IP-literal endpoints never reach a lookup: `endpointRefusal` checks them.
 */
export class StorageEgressRefused extends Error {}

export function endpointRefusal(endpoint: string, allow: AllowEntry[]): string | null {
  const url = new URL(endpoint);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const literal = parseIp(url.hostname);
  if (!literal || addressAllowed(allow, literal, port)) return null;
  return blockedReason(literal) ? 'The storage endpoint address is not allowed' : null;
}

export function guardedLookup(allow: AllowEntry[], port: number): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const host = normalizeHost(hostname);
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      if (!hostAllowed(allow, host, port)) {
        for (const a of addresses) {
          const bytes = parseIp(a.address);
          if (bytes && addressAllowed(allow, bytes, port)) continue;
          if (!bytes || blockedReason(bytes)) {
            return callback(
              new StorageEgressRefused(`The storage endpoint ${hostname} resolves to an address that is not allowed`),
            );
          }
        }
      }
      if (options?.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new StorageEgressRefused(`The storage endpoint ${hostname} has no address`));
      return callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}
