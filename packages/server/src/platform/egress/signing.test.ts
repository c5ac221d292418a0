import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature } from './signing.ts';

const secret = 'whsec_test';
const body = '{"id":1}';
const at = new Date('2023-11-14T22:13:20.000Z'); // 1700000000
const later = (seconds: number) => new Date(at.getTime() + seconds * 1000);

describe('signPayload', () => {
  it('writes t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">', () => {
    // vector computed independently: python hmac.new(b'whsec_test', b'1700000000.{"id":1}', sha256)
    expect(signPayload(secret, body, at)).toBe(
      't=1700000000,v1=2f441ba4b3b2d50d28a9ab9d9fd8880376ecd1eb5d0435401553f5d8d0a5dcf8',
    );
  });

  it('signs bytes and the same text alike', () => {
    expect(signPayload(secret, Buffer.from(body), at)).toBe(signPayload(secret, body, at));
  });
});

describe('verifySignature', () => {
  const header = signPayload(secret, body, at);

  it('accepts its own signature within the tolerance, before and after', () => {
    expect(verifySignature(secret, header, body, at)).toBe(true);
    expect(verifySignature(secret, header, body, later(300))).toBe(true);
    expect(verifySignature(secret, header, body, later(-300))).toBe(true);
    expect(verifySignature(secret, header, Buffer.from(body), at)).toBe(true);
  });

  it('refuses a timestamp outside the tolerance (replay)', () => {
    expect(verifySignature(secret, header, body, later(301))).toBe(false);
    expect(verifySignature(secret, header, body, later(-301))).toBe(false);
    expect(verifySignature(secret, header, body, later(60), 30)).toBe(false);
  });

  it('refuses a changed body, another secret or a changed timestamp', () => {
    expect(verifySignature(secret, header, '{"id":2}', at)).toBe(false);
    expect(verifySignature('other', header, body, at)).toBe(false);
    expect(verifySignature(secret, header.replace('t=1700000000', 't=1700000001'), body, at)).toBe(false);
  });

  it('accepts any one of several v1 values (secret rotation)', () => {
    const old = signPayload('old-secret', body, at).split(',')[1];
    expect(verifySignature(secret, `${header},${old}`, body, at)).toBe(true);
    expect(verifySignature('old-secret', `${header},${old}`, body, at)).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['no timestamp', header.split(',')[1]],
    ['no signature', 't=1700000000'],
    ['short hex', 't=1700000000,v1=abcd'],
    ['upper-case hex', header.toUpperCase()],
    ['other scheme only', header.replace('v1=', 'v0=')],
    ['garbage', 'nonsense'],
  ])('refuses a malformed header: %s', (_name, value) => {
    expect(verifySignature(secret, value, body, at)).toBe(false);
  });
});

describe('signPayload with several secrets', () => {
  it('writes one t and one v1 per secret, in order, each verifying with its own secret', () => {
    const header = signPayload(['whsec_new', secret], body, at);
    const [t, first, second] = header.split(',');
    expect(t).toBe('t=1700000000');
    expect(`${t},${second}`).toBe(signPayload(secret, body, at));
    expect(`${t},${first}`).toBe(signPayload('whsec_new', body, at));
    expect(verifySignature('whsec_new', header, body, at)).toBe(true);
    expect(verifySignature(secret, header, body, at)).toBe(true);
    expect(verifySignature('whsec_other', header, body, at)).toBe(false);
  });

  it('refuses to sign with no secret at all', () => {
    expect(() => signPayload([], body, at)).toThrow();
  });
});
