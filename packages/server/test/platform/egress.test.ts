import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { parseAllowList } from '../../src/platform/egress/allow-list.ts';
import { createEgress, type Egress, type ResolvedAddress, type Resolver } from '../../src/platform/egress/client.ts';
import { EgressError, type EgressErrorCode } from '../../src/platform/egress/errors.ts';
import { type Receiver, startReceiver } from './egress-receiver.ts';

/**
 * The egress guard over real loopback connections: what it refuses (every blocked range, names
 * that resolve there, metadata names, other schemes), what the allow-list opens, and that the
 * connection goes to the address that was checked.
 */
async function refusal(call: Promise<unknown>): Promise<EgressError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EgressError);
  return err as EgressError;
}

/** A scripted resolver (DNS rebinding cannot be staged with real DNS here): each name answers its queued lists in turn (the last one repeats); calls are counted. */
function scriptedResolver(answers: Record<string, string[][]>) {
  const calls: string[] = [];
  const resolve: Resolver = async (host) => {
    calls.push(host);
    const queue = answers[host];
    if (!queue) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const next = queue.length > 1 ? queue.shift() : queue[0];
    return (next ?? []).map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls };
}

describe('egress guard', () => {
  let receiver: Receiver;
  let strict: Egress;
  let open: Egress;

  beforeAll(async () => {
    receiver = await startReceiver();
    strict = createEgress();
    open = createEgress({ allow: parseAllowList(`127.0.0.1:${receiver.port}`) });
  });
  afterAll(async () => receiver?.close());

  const blockedUrls = (port: () => number): [string, () => string][] => [
    ['IPv4 loopback', () => `http://127.0.0.1:${port()}/ok`],
    ['IPv4 loopback, other address', () => `http://127.0.0.2:${port()}/ok`],
    ['short form 127.1', () => `http://127.1:${port()}/ok`],
    ['hex form 0x7f.1', () => `http://0x7f.1:${port()}/ok`],
    ['hex form 0x7f000001', () => `http://0x7f000001:${port()}/ok`],
    ['decimal form 2130706433', () => `http://2130706433:${port()}/ok`],
    ['octal form 0177.0.0.1', () => `http://0177.0.0.1:${port()}/ok`],
    ['IPv6 loopback [::1]', () => `http://[::1]:${port()}/ok`],
    ['IPv4-mapped ::ffff:127.0.0.1', () => `http://[::ffff:127.0.0.1]:${port()}/ok`],
    ['IPv4-mapped ::ffff:7f00:1', () => `http://[::ffff:7f00:1]:${port()}/ok`],
    ['IPv4-compatible ::127.0.0.1', () => `http://[::127.0.0.1]:${port()}/ok`],
    ['NAT64 of loopback', () => `http://[64:ff9b::127.0.0.1]:${port()}/ok`],
    ['6to4 of loopback', () => `http://[2002:7f00:1::1]:${port()}/ok`],
    ['unspecified 0.0.0.0', () => `http://0.0.0.0:${port()}/ok`],
    ['unspecified [::]', () => `http://[::]:${port()}/ok`],
    ['private 10/8', () => 'http://10.0.0.1/'],
    ['private 172.16/12', () => 'http://172.31.255.254/'],
    ['private 192.168/16', () => 'https://192.168.1.1/'],
    ['cloud metadata 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
    ['link-local 169.254/16', () => 'http://169.254.1.1/'],
    ['CGNAT 100.64/10', () => 'http://100.64.0.1/'],
    ['multicast 224/4', () => 'http://224.0.0.1/'],
    ['reserved 240/4', () => 'http://240.0.0.1/'],
    ['broadcast', () => 'http://255.255.255.255/'],
    ['IPv6 link-local fe80::/10', () => 'http://[fe80::1]/'],
    ['IPv6 unique-local fc00::/7', () => 'http://[fd00:ec2::254]/'],
    ['IPv6 multicast ff00::/8', () => 'http://[ff02::1]/'],
    ['IPv4-mapped metadata', () => 'http://[::ffff:169.254.169.254]/'],
    ['NAT64 of private', () => 'http://[64:ff9b::10.0.0.1]/'],
    ['6to4 of private', () => 'http://[2002:c0a8:101::1]/'],
  ];

  describe('without an allow-list', () => {
    it.each(blockedUrls(() => receiver.port))('refuses %s before connecting', async (_name, url) => {
      const before = receiver.hits.length;
      const err = await refusal(strict.request(url(), { timeoutMs: 2000 }));
      expect(err.code).toBe('egress.blocked_address');
      expect(err.status).toBe(400);
      expect(err.message).not.toMatch(/127|10\.|169|::/); // the client-facing text names no address
      expect(err.detail).toBeTruthy();
      expect(receiver.hits.length).toBe(before);
    });

    it('refuses a DNS name that resolves to 127.0.0.1 (localhost, system resolver)', async () => {
      const err = await refusal(strict.request(`http://localhost:${receiver.port}/ok`));
      expect(err.code).toBe('egress.blocked_address');
      expect(err.detail).toMatch(/localhost → .*loopback/);
      expect(receiver.hits).toHaveLength(0);
    });

    it('refuses a name when any one of its addresses is blocked', async () => {
      const dns = scriptedResolver({
        'mixed.example': [['93.184.216.34', '10.0.0.5']],
        'v6.example': [['2606:4700::1', 'fd00::1']],
      });
      const egress = createEgress({ resolve: dns.resolve });
      expect((await refusal(egress.request('https://mixed.example/hook'))).detail).toMatch(/10\.0\.0\.5: private/);
      expect((await refusal(egress.request('https://v6.example/hook'))).detail).toMatch(/fd00::1: unique local/);
    });

    it('refuses cloud metadata names without asking DNS', async () => {
      const dns = scriptedResolver({});
      const egress = createEgress({ resolve: dns.resolve });
      for (const url of [
        'http://metadata.google.internal/computeMetadata/v1/',
        'http://METADATA.google.internal./computeMetadata/v1/',
        'http://metadata/',
        'http://instance-data/latest/',
      ]) {
        expect((await refusal(egress.request(url))).code, url).toBe('egress.blocked_host');
      }
      expect(dns.calls).toEqual([]);
    });

    it.each<[string, EgressErrorCode]>([
      ['ftp://example.com/file', 'egress.bad_scheme'],
      ['file:///etc/passwd', 'egress.bad_scheme'],
      ['gopher://example.com:70/_', 'egress.bad_scheme'],
      ['ws://example.com/socket', 'egress.bad_scheme'],
      ['data:text/plain,hello', 'egress.bad_scheme'],
      ['not a url', 'egress.bad_url'],
      ['http://user:secret@example.com/', 'egress.bad_url'],
    ])('refuses %s', async (url, code) => {
      expect((await refusal(strict.request(url))).code).toBe(code);
    });

    it('reports a name that does not resolve as egress.dns_failed', async () => {
      const egress = createEgress({ resolve: scriptedResolver({ 'empty.example': [[]] }).resolve });
      expect((await refusal(egress.request('http://nowhere.example/'))).code).toBe('egress.dns_failed');
      expect((await refusal(egress.request('http://empty.example/'))).code).toBe('egress.dns_failed');
      expect((await refusal(strict.request('http://no-such-host.invalid/'))).code).toBe('egress.dns_failed');
    });

    it('check() applies the same rules without calling', async () => {
      await expect(strict.check('http://127.0.0.1/')).rejects.toMatchObject({ code: 'egress.blocked_address' });
      await expect(strict.check('ftp://example.com/')).rejects.toMatchObject({ code: 'egress.bad_scheme' });
      await expect(open.check(`${receiver.origin}/ok`)).resolves.toBeUndefined();
      expect(receiver.hits).toHaveLength(0);
    });
  });

  describe('with an allow-list', () => {
    it('reaches the allow-listed local receiver', async () => {
      const res = await open.request(`${receiver.origin}/ok`);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('ok');
      expect(res.headers['content-type']).toBe('text/plain');
      expect(res.headers['x-multi']).toBe('a, b');
      expect(receiver.hits.at(-1)).toMatchObject({ method: 'GET', path: '/ok', host: `127.0.0.1:${receiver.port}` });
    });

    it('opens only the listed address and port: other ports and other forms of the address stay blocked', async () => {
      const before = receiver.hits.length;
      for (const url of [
        'http://127.0.0.1:1/',
        `http://127.0.0.2:${receiver.port}/ok`,
        `http://[::ffff:127.0.0.1]:${receiver.port}/ok`,
        `http://[::1]:${receiver.port}/ok`,
        'http://10.0.0.1/',
      ]) {
        expect((await refusal(open.request(url, { timeoutMs: 2000 }))).code, url).toBe('egress.blocked_address');
      }
      expect(receiver.hits.length).toBe(before);
    });

    it('lets a listed name through, keeping it as the Host header', async () => {
      const dns = scriptedResolver({ 'hooks.internal': [['127.0.0.1']] });
      const egress = createEgress({ allow: parseAllowList(`hooks.internal:${receiver.port}`), resolve: dns.resolve });
      const res = await egress.request(`http://hooks.internal:${receiver.port}/echo`);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.toString()).headers.host).toBe(`hooks.internal:${receiver.port}`);
      // the name entry is bound to its port
      expect((await refusal(egress.request('http://hooks.internal:1/'))).code).toBe('egress.blocked_address');
    });
  });

  describe('connects to the address it checked (no DNS rebinding)', () => {
    it('uses the one answer it validated; a later, private answer refuses the next call', async () => {
      // The name is unknown to the system resolver, so reaching the receiver at all proves the
      // connection used the pinned answer; the scripted second answer (private) is never consulted.
      const dns = scriptedResolver({ 'rebind.example': [['127.0.0.1'], ['10.0.0.7']] });
      const egress = createEgress({ allow: parseAllowList(`127.0.0.1:${receiver.port}`), resolve: dns.resolve });
      const res = await egress.request(`http://rebind.example:${receiver.port}/echo`);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.toString()).headers.host).toBe(`rebind.example:${receiver.port}`);
      expect(dns.calls).toEqual(['rebind.example']);

      const before = receiver.hits.length;
      const err = await refusal(egress.request(`http://rebind.example:${receiver.port}/echo`, { timeoutMs: 2000 }));
      expect(err.code).toBe('egress.blocked_address');
      expect(err.detail).toMatch(/10\.0\.0\.7/);
      expect(dns.calls).toEqual(['rebind.example', 'rebind.example']);
      expect(receiver.hits.length).toBe(before);
    });

    it('connects to exactly the checked IP, not to another address of the same name', async () => {
      // Two receivers on one port: 127.0.0.1 and 127.0.0.2. The name first resolves to .2, then .1.
      const second = await startReceiver('127.0.0.2', receiver.port);
      try {
        const dns = scriptedResolver({ 'pinned.example': [['127.0.0.2'], ['127.0.0.1']] });
        const egress = createEgress({ allow: parseAllowList('127.0.0.0/8'), resolve: dns.resolve });
        const firstHits = receiver.hits.length;
        const res = await egress.request(`http://pinned.example:${receiver.port}/ok`);
        expect(res.status).toBe(200);
        expect(second.hits.map((h) => h.host)).toEqual([`pinned.example:${receiver.port}`]);
        expect(receiver.hits.length).toBe(firstHits);
        expect(dns.calls).toEqual(['pinned.example']);
      } finally {
        await second.close();
      }
    });
  });
});

describe('EGRESS_ALLOW_HOSTS', () => {
  it('is parsed into the configuration', () => {
    const config = loadConfig({ NODE_ENV: 'test', EGRESS_ALLOW_HOSTS: 'hooks.internal:8443,10.0.0.0/8' });
    expect(config.egressAllowHosts.map((e) => e.kind)).toEqual(['host', 'cidr']);
    expect(loadConfig({ NODE_ENV: 'test' }).egressAllowHosts).toEqual([]);
  });

  it('stops the start with a message naming the variable and the entry', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', EGRESS_ALLOW_HOSTS: 'ok.example,http://bad' })).toThrow(
      /EGRESS_ALLOW_HOSTS entry "http:\/\/bad"/,
    );
  });
});
