import { describe, expect, it } from 'vitest';
import { parseIp } from './address.ts';
import { addressAllowed, hostAllowed, parseAllowList } from './allow-list.ts';

const ip = (text: string) => parseIp(text) as Uint8Array;

describe('EGRESS_ALLOW_HOSTS entries', () => {
  const list = parseAllowList(
    ' hooks.internal , Receiver.Example.:8443, 127.0.0.1:4010, [::1]:4011, 10.20.0.0/16, fd00::/8, 192.168.1.5, ::2',
  );

  it('lets a named host through on any port, or only on its port', () => {
    expect(hostAllowed(list, 'hooks.internal', 80)).toBe(true);
    expect(hostAllowed(list, 'hooks.internal', 9999)).toBe(true);
    expect(hostAllowed(list, 'receiver.example', 8443)).toBe(true);
    expect(hostAllowed(list, 'receiver.example', 443)).toBe(false);
    expect(hostAllowed(list, 'sub.hooks.internal', 80)).toBe(false);
    expect(hostAllowed(list, 'other.example', 80)).toBe(false);
  });

  it('lets addresses in an IP or CIDR entry through, with the port when given', () => {
    expect(addressAllowed(list, ip('127.0.0.1'), 4010)).toBe(true);
    expect(addressAllowed(list, ip('127.0.0.1'), 4012)).toBe(false);
    expect(addressAllowed(list, ip('127.0.0.2'), 4010)).toBe(false);
    expect(addressAllowed(list, ip('::1'), 4011)).toBe(true);
    expect(addressAllowed(list, ip('::1'), 4010)).toBe(false);
    expect(addressAllowed(list, ip('10.20.3.4'), 1)).toBe(true);
    expect(addressAllowed(list, ip('10.21.0.1'), 1)).toBe(false);
    expect(addressAllowed(list, ip('fd12::1'), 80)).toBe(true);
    expect(addressAllowed(list, ip('192.168.1.5'), 80)).toBe(true);
    expect(addressAllowed(list, ip('::2'), 80)).toBe(true);
    // a name entry does not allow addresses, an address entry does not allow names
    expect(addressAllowed(list, ip('10.0.0.1'), 80)).toBe(false);
    expect(hostAllowed(list, '127.0.0.1', 4010)).toBe(false);
  });

  it('treats an empty or missing value as no exceptions', () => {
    expect(parseAllowList(null)).toEqual([]);
    expect(parseAllowList('')).toEqual([]);
    expect(parseAllowList(' , ')).toEqual([]);
  });

  it.each([
    'http://x.example',
    'x.example:0',
    'x.example:70000',
    'a b',
    '10.0.0.0/40',
    '[::1',
    '[1.2.3.4]:80',
    'x:1:2',
    '-bad.example',
  ])('rejects the entry %s, naming it', (entry) => {
    expect(() => parseAllowList(`ok.example,${entry}`)).toThrow(entry.trim());
  });
});
