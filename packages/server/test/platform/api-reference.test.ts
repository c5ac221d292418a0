import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The API reference as a reader meets it (docs/decisions/0029-api-reference.md): samples name the
 * configured host, and the page allows nothing from outside.
 * api-reference-browser.test.ts shows the same in Chromium.
 */
const PUBLIC_BASE_URL = 'https://atrium.example.com';

let t: TestApp;
let doc: { servers: { url: string }[] };
beforeAll(async () => {
  // with a trailing slash, as an operator may write it
  t = await createTestApp({ env: { PUBLIC_BASE_URL: `${PUBLIC_BASE_URL}/` } });
  doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
});
afterAll(async () => t?.close());

describe('servers', () => {
  it('is PUBLIC_BASE_URL without its trailing slash, so a sample reads https://host/api/…', () => {
    expect(doc.servers.map((s) => s.url)).toEqual([PUBLIC_BASE_URL]);
  });
});

describe('GET /api/docs', () => {
  it('serves a page that loads its scripts from the service and nothing inline', async () => {
    const res = await call(t.app, 'GET', '/api/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const scripts = [...res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => /src="([^"]+)"/.exec(m[1] ?? '')?.[1])).toEqual([
      '/api/docs/assets/js/scalar.js',
      '/api/docs/assets/js/reference.js',
    ]);
    expect(scripts.map((m) => m[2])).toEqual(['', '']);
    for (const src of ['/api/docs/assets/js/scalar.js', '/api/docs/assets/js/reference.js']) {
      const script = await call(t.app, 'GET', src);
      expect(script.statusCode, src).toBe(200);
      expect(script.headers['content-type']).toBe('application/javascript; charset=utf-8');
    }
  });

  it('mounts Scalar on the document with its outside fetches turned off', async () => {
    const res = await call(t.app, 'GET', '/api/docs/assets/js/reference.js');
    const config = JSON.parse(/createApiReference\('#app', (\{.*\})\);/.exec(res.body)?.[1] ?? '{}');
    expect(config).toMatchObject({
      url: '/api/openapi.json',
      withDefaultFonts: false,
      showDeveloperTools: 'never',
      hideClientButton: true,
      agent: { disabled: true },
      mcp: { disabled: true },
      telemetry: false,
    });
  });

  it('sends a Content-Security-Policy allowing only the service (and the server the samples call)', async () => {
    const res = await call(t.app, 'GET', '/api/docs');
    const policy = new Map(
      String(res.headers['content-security-policy'])
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:']);
    expect(policy.get('connect-src')).toEqual(["'self'", PUBLIC_BASE_URL]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
  });
});
