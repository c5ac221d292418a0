import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_COMMAND, consoleStatusLine } from '../../src/platform/http/console.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The console as the service serves it (docs/decisions/0031-console-serving.md), from a dist/ of
 * the test's own, shaped as `npm run build -w @atrium/console` leaves it: index.html, a hashed
 * asset with its .br and .gz, a file at the root, Vite's manifest under .vite/. Beside dist/ lies
 * a secret no URL may reach.
 */
const root = mkdtempSync(join(tmpdir(), 'atrium-console-'));
const dist = join(root, 'dist');
const SECRET = 'SECRET-OUTSIDE-DIST-7f3a';
const INDEX = `<!doctype html><html><head><title>Atrium</title>
<script type="module" crossorigin src="/assets/index-AbC123xy.js"></script></head>
<body><div id="root"></div></body></html>\n`;
const SCRIPT = Buffer.from(`export const rows = [${Array.from({ length: 400 }, (_, i) => `"row ${i}"`).join(',')}];\n`);
const ASSET = '/assets/index-AbC123xy.js';
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'; // a browser's navigation

function writeFixture() {
  mkdirSync(join(dist, 'assets'), { recursive: true });
  mkdirSync(join(dist, '.vite'), { recursive: true });
  writeFileSync(join(root, 'secret.txt'), SECRET);
  writeFileSync(join(dist, 'index.html'), INDEX);
  writeFileSync(join(dist, ASSET), SCRIPT);
  writeFileSync(join(dist, `${ASSET}.br`), brotliCompressSync(SCRIPT));
  writeFileSync(join(dist, `${ASSET}.gz`), gzipSync(SCRIPT));
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dist, '.vite', 'manifest.json'), JSON.stringify({ secret: SECRET }));
  // a build with CONSOLE_SOURCEMAPS=1 keeps the maps (the whole source) here: never served (decision 0037)
  mkdirSync(join(dist, '.vite', 'sourcemaps'), { recursive: true });
  writeFileSync(join(dist, '.vite', 'sourcemaps', 'index-AbC123xy.js.map'), JSON.stringify({ secret: SECRET }));
  symlinkSync(join(root, 'secret.txt'), join(dist, 'assets', 'linked-AbC123xy.js'));
}

let t: TestApp;
let base: string;
beforeAll(async () => {
  writeFixture();
  t = await createTestApp({ consoleDir: dist });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  rmSync(root, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
  t.app.inject({ method, url, headers });

/** A request whose path goes out exactly as written: fetch and inject would resolve `..` first. */
function raw(path: string, accept: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/`, { path, headers: { accept } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject).end();
  });
}

describe('assets', () => {
  it('sends brotli when accepted, with its type, Vary and an immutable lifetime; the bytes decode to the file', async () => {
    const res = await get(ASSET, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'content-encoding': 'br',
      vary: 'Accept-Encoding',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    });
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(brotliDecompressSync(res.rawPayload).equals(SCRIPT)).toBe(true);
  });

  it('sends gzip when brotli is not accepted, and the file itself when neither is', async () => {
    for (const accept of ['gzip', 'br;q=0, gzip;q=0.5', 'br;q=0, *']) {
      const res = await get(ASSET, { 'accept-encoding': accept });
      expect(res.headers['content-encoding'], accept).toBe('gzip');
      expect(gunzipSync(res.rawPayload).equals(SCRIPT), accept).toBe(true);
    }
    for (const accept of [undefined, 'identity', 'br;q=0, gzip;q=0', '*;q=0, identity']) {
      const res = await get(ASSET, accept ? { 'accept-encoding': accept } : {});
      expect(res.headers['content-encoding'], accept).toBeUndefined();
      expect(res.headers.vary, accept).toBe('Accept-Encoding');
      expect(res.rawPayload.equals(SCRIPT), accept).toBe(true);
    }
  });

  it('answers 304 to its own ETag, one per encoding, and to If-Modified-Since', async () => {
    const br = await get(ASSET, { 'accept-encoding': 'br' });
    const plain = await get(ASSET);
    const etag = br.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(plain.headers.etag).not.toBe(etag);

    const again = await get(ASSET, { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers).toMatchObject({ etag, 'cache-control': 'public, max-age=31536000, immutable' });
    // another encoding's tag does not match this one
    expect((await get(ASSET, { 'if-none-match': etag })).statusCode).toBe(200);
    const since = await get(ASSET, { 'if-modified-since': plain.headers['last-modified'] as string });
    expect(since.statusCode).toBe(304);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const res = await get(ASSET, { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(Number(res.headers['content-length'])).toBe(gzipSync(SCRIPT).length);
    expect(res.rawPayload.length).toBe(0);
  });

  it('sends a file at the root of dist/ revalidated, not immutable (its name has no hash)', async () => {
    const res = await get('/favicon.svg', { accept: 'image/avif,image/webp,*/*' });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({ 'content-type': 'image/svg+xml', 'cache-control': 'no-cache' });
  });

  it('answers an unknown asset with the JSON 404, never the page', async () => {
    for (const accept of [HTML, '*/*']) {
      const res = await get('/assets/index-Missing0.js', { accept });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 404, error: 'route.not_found' });
    }
  });
});

describe('nothing outside dist/', () => {
  const attempts = [
    '/assets/../../secret.txt',
    '/assets/../../../../../../etc/passwd',
    '/../secret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/assets/%2E%2E%2F%2E%2E%2Fsecret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/..%5c..%5csecret.txt',
    '/assets\\..\\..\\secret.txt',
    '/assets/%252e%252e/%252e%252e/secret.txt',
    '/%2e%2e/secret.txt',
    '/assets/%00../secret.txt',
    `/${encodeURIComponent(join(root, 'secret.txt'))}`,
    '/.vite/manifest.json',
    '/.vite/sourcemaps/index-AbC123xy.js.map',
    '/%2evite/sourcemaps/index-AbC123xy.js.map',
    '/assets/linked-AbC123xy.js',
  ];

  // a NUL is refused before any handler (400, the kernel's text check); the rest find no file
  it.each(attempts)('%s: refused for a script, at most the page for a browser', async (path) => {
    const script = await raw(path, '*/*');
    expect(script.status).toBe(path.includes('%00') ? 400 : 404);
    expect(script.body).not.toContain(SECRET);
    const page = await raw(path, HTML);
    expect([200, 400, 404]).toContain(page.status);
    expect(page.body).not.toContain(SECRET);
    if (page.status === 200) expect(page.body).toBe(INDEX);
  });
});

describe('pages', () => {
  const routes = [
    '/',
    '/login',
    '/system/users',
    '/s/abc',
    '/oauth2/authorize?response_type=code&client_id=app_1&redirect_uri=https%3A%2F%2Fclient.example%2Fcb&state=x%20y',
  ];

  it.each(routes)('%s loads the app: index.html, revalidated, under the Content-Security-Policy', async (url) => {
    const res = await get(url, { accept: HTML });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
    });
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(res.body).toBe(INDEX);
  });

  it('allows scripts from the service only, none inline, and nothing from elsewhere', async () => {
    const res = await get('/login', { accept: HTML });
    const directives = new Map(
      String(res.headers['content-security-policy'])
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name = '', ...values]) => [name, values]),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(directives.get('img-src')).toEqual(["'self'", 'data:', 'blob:']);
    expect(directives.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:3000']);
    expect(directives.get('font-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'self'"]);
  });

  it('answers HEAD for a page with its headers and no body', async () => {
    const res = await get('/login', { accept: HTML }, 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(INDEX));
    expect(res.rawPayload.length).toBe(0);
  });

  it('answers 304 when index.html has not changed', async () => {
    const first = await get('/login', { accept: HTML });
    const again = await get('/system/users', { accept: HTML, 'if-none-match': first.headers.etag as string });
    expect(again.statusCode).toBe(304);
  });

  it('is the page for a request without Accept, and at / for any; a 404 for a script, fetch() or JSON elsewhere', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/login' })).statusCode).toBe(200);
    expect((await get('/', { accept: '*/*' })).body).toBe(INDEX);
    for (const accept of ['*/*', 'application/json', 'text/html;q=0, */*']) {
      const res = await get('/login', { accept });
      expect(res.statusCode, accept).toBe(404);
      expect(res.json(), accept).toMatchObject({ code: 404, error: 'route.not_found' });
    }
    const post = await t.app.inject({ method: 'POST', url: '/login', headers: { accept: HTML } });
    expect(post.statusCode).toBe(404);
  });
});

describe('what stays as it was', () => {
  it('/api/unknown is the JSON 404 of before, whatever the Accept', async () => {
    for (const url of ['/api/unknown', '/api', '/api/users/1/unknown']) {
      const res = await get(url, { accept: HTML });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toBe('application/json; charset=utf-8');
      expect(res.json(), url).toEqual({
        code: 404,
        error: 'route.not_found',
        message: `No route GET ${url}`,
        requestId: res.headers['x-request-id'],
      });
      expect(res.headers['content-security-policy'], url).toBeUndefined();
    }
  });

  it('/metrics and /.well-known answer as before; an unknown /.well-known path is a 404', async () => {
    const metrics = await get('/metrics', { accept: HTML });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    const discovery = await get('/.well-known/openid-configuration', { accept: HTML });
    expect(discovery.statusCode).toBe(200);
    expect(discovery.json()).toHaveProperty('issuer');
    expect((await get('/.well-known/security.txt', { accept: HTML })).statusCode).toBe(404);
  });

  it('counts console answers under their own operation, not as unmatched', async () => {
    await get('/login', { accept: HTML });
    await get(ASSET);
    const metrics = (await get('/metrics')).body;
    expect(metrics).toMatch(/atrium_http_requests_total\{[^}]*operation="console\.page\.get"[^}]*status="200"/);
    expect(metrics).toMatch(/atrium_http_requests_total\{[^}]*operation="console\.file\.get"/);
  });

  it('leaves the console out of the OpenAPI document', async () => {
    const doc = (await get('/api/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => !/^\/(api|\.well-known)\//.test(p))).toEqual([]);
  });
});

describe('over a real connection', () => {
  it('a browser gets the page at / and the asset it names, decoded to the same bytes', async () => {
    const page = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toBe(INDEX);
    const asset = await fetch(`${base}${ASSET}`, { headers: { 'accept-encoding': 'br' } });
    expect(asset.headers.get('content-encoding')).toBe('br');
    expect(Buffer.from(await asset.arrayBuffer()).equals(SCRIPT)).toBe(true);
  });
});

describe('a console that is not built', () => {
  it('answers pages with 503 and how to build it, then the app once built, without a restart', async () => {
    const aside = join(root, 'index.html.aside');
    renameSync(join(dist, 'index.html'), aside);
    try {
      const res = await get('/login', { accept: HTML });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      // its own policy: nothing but its one style block
      expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[^']+';/);
      expect(res.body).toContain(BUILD_COMMAND);
      expect(res.body).not.toMatch(/<script/i);
      expect((await get('/api/unknown', { accept: HTML })).statusCode).toBe(404);
    } finally {
      renameSync(aside, join(dist, 'index.html'));
    }
    expect((await get('/login', { accept: HTML })).statusCode).toBe(200);
  });

  it('says so in the start banner, with the command', () => {
    expect(consoleStatusLine(join(root, 'nowhere'), 'http://127.0.0.1:3000')).toContain(BUILD_COMMAND);
    expect(consoleStatusLine(dist, 'http://127.0.0.1:3000')).toBe('Console: http://127.0.0.1:3000/');
  });
});
