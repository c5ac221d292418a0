import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowList } from '../../src/platform/egress/allow-list.ts';
import { createEgress, type Egress } from '../../src/platform/egress/client.ts';
import { EgressError } from '../../src/platform/egress/errors.ts';
import { SIGNATURE_HEADER, signPayload, verifySignature } from '../../src/platform/egress/signing.ts';
import { type Receiver, startReceiver } from './egress-receiver.ts';

/**
 * Redirects, deadlines, size caps and signed bodies, against real receivers on 127.0.0.1
 * reached through the allow-list.
 */
async function refusal(call: Promise<unknown>): Promise<EgressError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EgressError);
  return err as EgressError;
}

describe('egress transfers', () => {
  let a: Receiver;
  let b: Receiver;
  let egress: Egress;
  const redirect = (to: string, status = 302) => `${a.origin}/redirect?to=${encodeURIComponent(to)}&status=${status}`;

  beforeAll(async () => {
    a = await startReceiver();
    b = await startReceiver();
    egress = createEgress({ allow: parseAllowList(`127.0.0.1:${a.port},127.0.0.1:${b.port}`) });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  describe('redirects', () => {
    it.each([
      ['a private address', 'http://10.0.0.1/internal'],
      ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/iam/'],
      ['loopback on a port not listed', 'http://127.0.0.1:1/'],
      ['an IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]:80/'],
      ['IPv6 loopback', 'http://[::1]/'],
    ])('refuses a redirect from the allowed receiver to %s', async (_name, target) => {
      const err = await refusal(egress.request(redirect(target), { timeoutMs: 2000 }));
      expect(err.code).toBe('egress.blocked_address');
      expect(err.url).toBe(new URL(target).toString());
    });

    it('refuses a redirect to another scheme', async () => {
      expect((await refusal(egress.request(redirect('file:///etc/passwd')))).code).toBe('egress.bad_scheme');
    });

    it('follows a relative redirect and reports the final URL', async () => {
      const res = await egress.request(redirect('/ok', 301));
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('ok');
      expect(res.url).toBe(`${a.origin}/ok`);
    });

    it('stops after maxRedirects (default 5)', async () => {
      const before = a.hits.length;
      expect((await refusal(egress.request(`${a.origin}/loop`))).code).toBe('egress.too_many_redirects');
      expect(a.hits.length - before).toBe(6); // the call and five redirects
      const err = await refusal(egress.request(`${a.origin}/loop`, { maxRedirects: 2 }));
      expect(err).toMatchObject({ code: 'egress.too_many_redirects', status: 502 });
    });

    it('returns the 3xx itself when maxRedirects is 0', async () => {
      const res = await egress.request(redirect('http://10.0.0.1/'), { maxRedirects: 0 });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('http://10.0.0.1/');
    });

    it('turns POST into GET on 303 and keeps method and body on 307', async () => {
      const see = await egress.request(redirect('/echo', 303), {
        method: 'POST',
        body: 'payload',
        headers: { 'content-type': 'text/plain' },
      });
      expect(JSON.parse(see.body.toString())).toMatchObject({ method: 'GET', body: '' });
      const temp = await egress.request(redirect('/echo', 307), {
        method: 'POST',
        body: 'payload',
        headers: { 'content-type': 'text/plain' },
      });
      expect(JSON.parse(temp.body.toString())).toMatchObject({ method: 'POST', body: 'payload' });
    });

    it('drops credentials when a redirect changes origin, keeps them within one', async () => {
      const headers = { authorization: 'Bearer s3cret', 'x-trace': 'kept' };
      const same = await egress.request(redirect('/echo'), { headers });
      expect(JSON.parse(same.body.toString()).headers).toMatchObject({
        authorization: 'Bearer s3cret',
        'x-trace': 'kept',
      });
      const cross = await egress.request(redirect(`${b.origin}/echo`), { headers });
      const seen = JSON.parse(cross.body.toString()).headers;
      expect(seen.authorization).toBeUndefined();
      expect(seen['x-trace']).toBe('kept');
    });
  });

  describe('deadlines', () => {
    it('gives up on a receiver that never answers', async () => {
      const err = await refusal(egress.request(`${a.origin}/hang`, { timeoutMs: 300 }));
      expect(err).toMatchObject({ code: 'egress.timeout', status: 504 });
    });

    it('gives up on a body that stops mid-way', async () => {
      expect((await refusal(egress.request(`${a.origin}/drip`, { timeoutMs: 300 }))).code).toBe('egress.timeout');
    });

    it('counts redirects inside the same deadline', async () => {
      expect((await refusal(egress.request(redirect('/hang'), { timeoutMs: 300 }))).code).toBe('egress.timeout');
    });
  });

  describe('response size cap', () => {
    const MiB = 1024 * 1024;

    it('refuses a declared length over the cap without reading it', async () => {
      const err = await refusal(
        egress.request(`${a.origin}/big?bytes=${64 * MiB}&declared=1`, { maxResponseBytes: MiB }),
      );
      expect(err).toMatchObject({ code: 'egress.too_large', status: 502 });
      expect((await a.lastBig()).finished).toBe(false);
    });

    it('aborts an undeclared (chunked) body once it passes the cap', async () => {
      const err = await refusal(egress.request(`${a.origin}/big?bytes=${64 * MiB}`, { maxResponseBytes: MiB }));
      expect(err.code).toBe('egress.too_large');
      const sent = await a.lastBig();
      expect(sent.finished).toBe(false);
      expect(sent.sent).toBeLessThan(64 * MiB);
    });

    it('caps at 5 MiB by default and accepts a body of exactly the cap', async () => {
      expect((await refusal(egress.request(`${a.origin}/big?bytes=${5 * MiB + 1}`))).code).toBe('egress.too_large');
      const exact = await egress.request(`${a.origin}/big?bytes=${MiB}`, { maxResponseBytes: MiB });
      expect(exact.body.length).toBe(MiB);
    });
  });

  describe('signed deliveries', () => {
    it('sends a body the receiver verifies with the shared secret', async () => {
      const body = JSON.stringify({ event: 'drive.node.created', id: 7 });
      const now = new Date();
      const res = await egress.request(`${a.origin}/echo`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signPayload('hook-secret', body, now) },
      });
      const seen = JSON.parse(res.body.toString());
      expect(seen.body).toBe(body);
      expect(verifySignature('hook-secret', seen.headers[SIGNATURE_HEADER], seen.body, now)).toBe(true);
      expect(verifySignature('other-secret', seen.headers[SIGNATURE_HEADER], seen.body, now)).toBe(false);
    });

    it('sends its own User-Agent and no caller-chosen Host', async () => {
      const res = await egress.request(`${a.origin}/echo`, {
        headers: { host: 'evil.example', 'User-Agent': 'custom/1' },
      });
      const seen = JSON.parse(res.body.toString()).headers;
      expect(seen.host).toBe(`127.0.0.1:${a.port}`);
      expect(seen['user-agent']).toBe('custom/1');
      const plain = JSON.parse((await egress.request(`${a.origin}/echo`)).body.toString()).headers;
      expect(plain['user-agent']).toMatch(/^Atrium\//);
    });
  });
});
