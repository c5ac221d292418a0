import { createHmac } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { accessTokens } from './access-token.ts';

const SECRET = 'test-secret-test-secret-test-secret-0123456789';
const tokens = accessTokens(SECRET, 900);
const now = new Date('2026-11-24T04:00:00Z');
const claims = { userId: 7, sessionId: 42, tenantId: 3 };

/** A token signed with SECRET from any header and payload, as an attacker holding the key could not, but a test can. */
function forge(header: object, payload: object, secret = SECRET): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${enc(header)}.${enc(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
const seconds = Math.floor(now.getTime() / 1000);
const good = { sub: '7', sid: 42, tid: 3, iss: 'atrium', aud: 'atrium-api', iat: seconds, exp: seconds + 900 };

describe('access tokens', () => {
  it('verifies what it signs, platform scope (tid null) included', async () => {
    expect(tokens.verify(await tokens.sign(claims, now), now)).toEqual(claims);
    const platform = await tokens.sign({ ...claims, tenantId: null }, now);
    expect(tokens.verify(platform, now)).toEqual({ ...claims, tenantId: null });
    expect(tokens.verify(forge({ alg: 'HS256', typ: 'JWT' }, good), now)).toEqual(claims);
  });

  it('refuses a changed payload or signature, another key, and malformed tokens', async () => {
    const t = await tokens.sign(claims, now);
    const [h, p, s] = t.split('.') as [string, string, string];
    const other = Buffer.from(JSON.stringify({ ...good, sub: '1' })).toString('base64url');
    expect(tokens.verify(`${h}.${other}.${s}`, now)).toBeNull();
    expect(tokens.verify(`${h}.${p}.${s.slice(0, -2)}AA`, now)).toBeNull();
    expect(tokens.verify(`${h}.${p}.`, now)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS256' }, good, `${SECRET}x`), now)).toBeNull();
    for (const bad of ['', 'a.b', 'a.b.c.d', `${h}.${p}`, '...', `${h}.%%%.${s}`])
      expect(tokens.verify(bad, now)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS256' }, ['not', 'an', 'object']), now)).toBeNull();
  });

  it('accepts only HS256 without critical extensions: "none" and other algorithms are refused', () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    expect(tokens.verify(`${enc({ alg: 'none' })}.${enc(good)}.`, now)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS512' }, good), now)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS256', crit: ['exp'] }, good), now)).toBeNull();
  });

  it('checks issuer, audience, expiry and not-before', async () => {
    expect(tokens.verify(forge({ alg: 'HS256' }, { ...good, iss: 'someone' }), now)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS256' }, { ...good, aud: 'other-api' }), now)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS256' }, { ...good, aud: ['other-api', 'atrium-api'] }), now)).toEqual(claims);
    expect(tokens.verify(forge({ alg: 'HS256' }, { ...good, exp: seconds }), now)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS256' }, { ...good, exp: undefined }), now)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS256' }, { ...good, nbf: seconds + 60 }), now)).toBeNull();
    const later = new Date(now.getTime() + 901_000);
    expect(tokens.verify(await tokens.sign(claims, now), later)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS256' }, { ...good, sub: 'x' }), now)).toBeNull();
    expect(tokens.verify(forge({ alg: 'HS256' }, { ...good, sid: '42' }), now)).toBeNull();
  });

  it('interoperates with a standard JWT library: a jose-signed token of the same shape verifies', async () => {
    const t = await new SignJWT({ sid: 42, tid: 3 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('7')
      .setIssuer('atrium')
      .setAudience('atrium-api')
      .setExpirationTime(seconds + 60)
      .sign(new TextEncoder().encode(SECRET));
    expect(tokens.verify(t, now)).toEqual(claims);
  });
});
