import { describe, expect, it } from 'vitest';
import { blockedReason, inCidr, parseCidr, parseIp } from './address.ts';

/** Every range the egress guard refuses, in the forms an attacker would try. */
const blocked: [string, RegExp][] = [
  // IPv4 (RFC 6890, RFC 1918, RFC 6598, RFC 3927, RFC 5771)
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['10.0.0.1', /private/],
  ['10.255.255.255', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.255', /private/],
  ['192.168.0.1', /private/],
  ['192.168.255.255', /private/],
  ['169.254.169.254', /link-local/],
  ['169.254.0.1', /link-local/],
  ['100.64.0.1', /CGNAT/],
  ['100.127.255.255', /CGNAT/],
  ['100.100.100.200', /CGNAT/], // Alibaba Cloud metadata
  ['0.0.0.0', /this network/],
  ['0.1.2.3', /this network/],
  ['224.0.0.1', /multicast/],
  ['239.255.255.250', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /reserved/],
  ['192.0.0.170', /IETF/],
  ['192.0.2.1', /documentation/],
  ['198.18.0.1', /benchmarking/],
  ['198.51.100.7', /documentation/],
  ['203.0.113.9', /documentation/],
  // IPv6 (RFC 4291, RFC 4193)
  ['::1', /loopback/],
  ['[::1]', /loopback/],
  ['0:0:0:0:0:0:0:1', /loopback/],
  ['::', /unspecified/],
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['febf:ffff::1', /link-local/],
  ['fec0::1', /site-local/],
  ['fc00::1', /unique local/],
  ['fd12:3456:789a::1', /unique local/],
  ['fd00:ec2::254', /unique local/], // AWS IPv6 metadata
  ['ff02::1', /multicast/],
  ['ff05::1:3', /multicast/],
  ['100::1', /discard/],
  ['2001:db8::1', /documentation/],
  ['2001::1', /Teredo/],
  ['5f00::1', /not global unicast/],
  // IPv4-mapped (::ffff:0:0/96): the embedded IPv4 decides
  ['::ffff:127.0.0.1', /IPv4-mapped.*loopback/],
  ['::ffff:7f00:1', /IPv4-mapped.*loopback/],
  ['[::ffff:7f00:1]', /IPv4-mapped.*loopback/],
  ['0:0:0:0:0:ffff:7f00:0001', /IPv4-mapped.*loopback/],
  ['::ffff:10.1.2.3', /IPv4-mapped.*private/],
  ['::ffff:a9fe:a9fe', /IPv4-mapped.*link-local/],
  ['::ffff:0.0.0.0', /IPv4-mapped.*this network/],
  // IPv4-compatible (deprecated, ::/96)
  ['::127.0.0.1', /IPv4-compatible/],
  ['::7f00:1', /IPv4-compatible/],
  ['::8.8.8.8', /IPv4-compatible/],
  // NAT64 64:ff9b::/96 (RFC 6052) and local-use NAT64 (RFC 8215)
  ['64:ff9b::127.0.0.1', /NAT64.*loopback/],
  ['64:ff9b::a00:1', /NAT64.*private/],
  ['64:ff9b::a9fe:a9fe', /NAT64.*link-local/],
  ['64:ff9b:1::808:808', /local-use NAT64/],
  // 6to4 2002::/16 (RFC 3056): bits 16..47 are the IPv4 address
  ['2002:7f00:1::', /6to4.*loopback/],
  ['2002:a00:1::1', /6to4.*private/],
  ['2002:c0a8:101::1', /6to4.*private/],
  ['2002:a9fe:a9fe::', /6to4.*link-local/],
];

const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '11.0.0.1',
  '172.15.255.255',
  '172.32.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '169.253.255.255',
  '169.255.0.1',
  '192.167.255.255',
  '192.169.0.1',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

describe('blockedReason', () => {
  it.each(blocked)('refuses %s', (address, reason) => {
    expect(blockedReason(address)).toMatch(reason);
  });

  it.each(allowed)('lets %s through', (address) => {
    expect(blockedReason(address)).toBeNull();
  });

  it('refuses what is not an IP address', () => {
    expect(blockedReason('localhost')).toBe('not an IP address');
    expect(blockedReason('1.2.3')).toBe('not an IP address');
  });
});

describe('parseIp and CIDR matching', () => {
  it('decodes the IPv6 forms to the same 16 bytes', () => {
    const a = parseIp('::ffff:127.0.0.1');
    expect(a).toEqual(parseIp('::ffff:7f00:1'));
    expect(a).toEqual(parseIp('0:0:0:0:0:ffff:7f00:1'));
    expect(Array.from(a ?? [])).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 1]);
    expect(Array.from(parseIp('1:2::') ?? []).slice(0, 4)).toEqual([0, 1, 0, 2]);
  });

  it('rejects what is not an address', () => {
    for (const text of ['', 'example.com', '256.0.0.1', '1.2.3.4.5', ':::', '12345::', '0x7f.1']) {
      expect(parseIp(text), text).toBeNull();
    }
  });

  it('matches prefixes on bit boundaries', () => {
    const net = parseCidr('172.16.0.0/12');
    expect(net).not.toBeNull();
    if (!net) return;
    expect(inCidr(parseIp('172.31.255.255') as Uint8Array, net)).toBe(true);
    expect(inCidr(parseIp('172.32.0.0') as Uint8Array, net)).toBe(false);
    expect(inCidr(parseIp('::ffff:172.16.0.1') as Uint8Array, net)).toBe(false); // other family
    expect(inCidr(parseIp('10.9.8.7') as Uint8Array, parseCidr('0.0.0.0/0') as NonNullable<typeof net>)).toBe(true);
  });

  it('rejects bad CIDRs', () => {
    for (const text of ['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/8/1', 'host/8', '10.0.0.0/-1']) {
      expect(parseCidr(text), text).toBeNull();
    }
  });
});
