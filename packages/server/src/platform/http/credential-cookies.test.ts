import type { FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { cookieValue, createCredentialCookies, readCredentialCookie } from './credential-cookies.ts';
import { AppError } from './errors.ts';

const cookie = { name: 'c', maxAgeSeconds: 60 };

function setCookieOf(publicBaseUrl: string, protocol: 'http' | 'https', value = 'tok', path = '/p') {
  const headers: string[] = [];
  const reply = { header: (_name: string, v: string) => headers.push(v) } as unknown as FastifyReply;
  createCredentialCookies({ publicBaseUrl }).set({ protocol, headers: {}, method: 'POST' }, reply, cookie, path, value);
  return headers[0];
}

describe('credential cookies', () => {
  it('writes HttpOnly and SameSite=Strict always, Secure over HTTPS or when published over HTTPS', () => {
    expect(setCookieOf('http://127.0.0.1:3000', 'http')).toBe('c=tok; Path=/p; Max-Age=60; HttpOnly; SameSite=Strict');
    expect(setCookieOf('http://127.0.0.1:3000', 'https')).toMatch(/; Secure$/);
    expect(setCookieOf('https://office.example.com', 'http')).toMatch(/; Secure$/);
  });

  it('puts the path under PUBLIC_BASE_URL’s own path, where the browser sees the service', () => {
    expect(setCookieOf('https://host.example/office/', 'https')).toMatch(/^c=tok; Path=\/office\/p;/);
    expect(setCookieOf('https://host.example/', 'https')).toMatch(/^c=tok; Path=\/p;/);
  });

  it('refuses a value or a path that would break out of the header', () => {
    expect(() => setCookieOf('http://x', 'http', 'a; Domain=evil.example')).toThrow(/cookie value/);
    expect(() => setCookieOf('http://x', 'http', 'tok', '/p; Domain=evil.example')).toThrow(/cookie path/);
    expect(() => setCookieOf('http://x', 'http', 'tok', 'relative')).toThrow(/cookie path/);
  });

  it('reads the first pair of its name, nothing for a name that only starts the same', () => {
    expect(cookieValue('a=1; c=tok; c=old', 'c')).toBe('tok');
    expect(cookieValue('cc=1;c2=2', 'c')).toBeNull();
    expect(cookieValue(' c = spaced ', 'c')).toBe('spaced');
    expect(cookieValue('c=', 'c')).toBeNull();
    expect(cookieValue(undefined, 'c')).toBeNull();
  });

  it('needs X-Requested-With for a cookie on a state-changing request, not on a read', () => {
    const req = (method: string, headers: Record<string, string>) => ({
      method,
      headers: { cookie: 'c=tok', ...headers },
    });
    expect(readCredentialCookie(req('GET', {}), 'c')).toBe('tok');
    expect(readCredentialCookie(req('POST', { 'x-requested-with': 'fetch' }), 'c')).toBe('tok');
    expect(() => readCredentialCookie(req('POST', {}), 'c')).toThrow(AppError);
    // no cookie: nothing to guard
    expect(readCredentialCookie({ method: 'POST', headers: {} }, 'c')).toBeNull();
  });
});
