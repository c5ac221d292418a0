import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowList } from '../../src/platform/egress/allow-list.ts';
import { createEgress, type Resolver } from '../../src/platform/egress/client.ts';
import { describeEgressFailure, EgressError } from '../../src/platform/egress/errors.ts';
import { type Receiver, startReceiver } from './egress-receiver.ts';

/**
 * Whether a failed call may have reached its destination (`EgressError.neverSent`), over real
 * loopback connections: true only when no connection was ever made (the guard refused it, DNS
 * failed, the connection was refused, TLS never completed, the deadline passed before
 * connecting); false as soon as a request could have been written. And the sentence an
 * administrator reads (`describeEgressFailure`).
 */
async function failed(call: Promise<unknown>): Promise<EgressError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EgressError);
  return err as EgressError;
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('egress: was anything sent?', () => {
  let receiver: Receiver;
  let dead: number;
  const allowed = () =>
    createEgress({ allow: parseAllowList(`127.0.0.1:${receiver.port},127.0.0.1:${dead},10.255.255.1`) });

  beforeAll(async () => {
    receiver = await startReceiver();
    dead = await closedPort();
  });
  afterAll(async () => receiver?.close());

  it('a loopback address the allow-list does not name: never sent; the text names host:port, range and variable', async () => {
    const before = receiver.hits.length;
    const err = await failed(createEgress().request(`${receiver.origin}/ok`, { method: 'POST', body: 'x' }));
    expect(err).toMatchObject({ code: 'egress.blocked_address', neverSent: true, range: 'loopback (RFC 6890)' });
    expect(receiver.hits.length).toBe(before);
    expect(describeEgressFailure(err)).toBe(
      `the egress guard refused 127.0.0.1:${receiver.port}: loopback (RFC 6890) addresses are not called unless listed; allow it with EGRESS_ALLOW_HOSTS=127.0.0.1:${receiver.port}`,
    );
  });

  it('a name resolving to a blocked address: never sent; the text names the name, not the address it resolved to', async () => {
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const err = await failed(createEgress({ resolve }).request(`http://sim.internal:${receiver.port}/ok`));
    expect(err).toMatchObject({ code: 'egress.blocked_address', neverSent: true, range: undefined });
    const text = describeEgressFailure(err);
    expect(text).toContain(`EGRESS_ALLOW_HOSTS=sim.internal:${receiver.port}`);
    expect(text).not.toContain('127.0.0.1');
    expect(err.detail).toContain('127.0.0.1'); // the log has it
  });

  it('a name that does not resolve: never sent', async () => {
    const resolve: Resolver = async (host) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    };
    const err = await failed(createEgress({ resolve }).request('https://gateway.invalid/pay'));
    expect(err).toMatchObject({ code: 'egress.dns_failed', neverSent: true });
    expect(describeEgressFailure(err)).toBe('gateway.invalid:443: the host name could not be resolved (DNS)');
  });

  it('the deadline passing while DNS still resolves: never sent', async () => {
    const resolve: Resolver = () => new Promise(() => {});
    const err = await failed(createEgress({ resolve }).request('https://slow.example/pay', { timeoutMs: 200 }));
    expect(err).toMatchObject({ code: 'egress.timeout', neverSent: true });
  });

  it('a refused connection: never sent', async () => {
    const err = await failed(allowed().request(`http://127.0.0.1:${dead}/pay`, { method: 'POST', body: 'x' }));
    expect(err).toMatchObject({ code: 'egress.network_error', neverSent: true, detail: 'ECONNREFUSED' });
    expect(describeEgressFailure(err)).toBe(`127.0.0.1:${dead}: the connection failed (ECONNREFUSED)`);
  });

  it('a TLS handshake that fails (https to a plain HTTP server): never sent, nothing reached the server', async () => {
    const before = receiver.hits.length;
    const err = await failed(allowed().request(`https://127.0.0.1:${receiver.port}/ok`, { method: 'POST', body: 'x' }));
    expect(err.neverSent).toBe(true);
    expect(receiver.hits.length).toBe(before);
  });

  it('no answer after the request was written: a timeout that may have been delivered', async () => {
    const before = receiver.hits.length;
    const err = await failed(
      allowed().request(`${receiver.origin}/hang`, { method: 'POST', body: 'x', timeoutMs: 300 }),
    );
    expect(err).toMatchObject({ code: 'egress.timeout', neverSent: false });
    expect(receiver.hits.length).toBe(before + 1);
    expect(describeEgressFailure(err)).toBe(`127.0.0.1:${receiver.port}: no complete answer within the deadline`);
  });

  it('a connection dropped after the request was read: may have been delivered', async () => {
    const err = await failed(allowed().request(`${receiver.origin}/drop`, { method: 'POST', body: 'x' }));
    expect(err).toMatchObject({ code: 'egress.network_error', neverSent: false });
    expect(receiver.hits.at(-1)?.path).toBe('/drop');
  });

  it('a refusal after a redirect: the first hop was delivered', async () => {
    const url = `${receiver.origin}/redirect?to=${encodeURIComponent('http://127.0.0.1:1/next')}`;
    const err = await failed(allowed().request(url));
    expect(err).toMatchObject({ code: 'egress.blocked_address', neverSent: false });
  });

  it('check() refusals are never sent', async () => {
    const err = await failed(createEgress().check('http://10.0.0.1/hook'));
    expect(err).toMatchObject({ code: 'egress.blocked_address', neverSent: true, range: 'private (RFC 1918)' });
  });
});
