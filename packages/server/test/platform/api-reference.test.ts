import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDES } from '../../src/platform/http/docs-guides.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The API reference as a reader meets it (docs/decisions/0029-api-reference.md): samples name the
 * configured host, `docs/…` mentions open the guide, and the page allows nothing from outside.
 * api-reference-browser.test.ts shows the same in Chromium.
 */
const DOCS = join(import.meta.dirname, '../../../../docs');
const PUBLIC_BASE_URL = 'https://atrium.example.com';

let t: TestApp;
let doc: { servers: { url: string }[] };
beforeAll(async () => {
  // with a trailing slash, as an operator may write it
  t = await createTestApp({ env: { PUBLIC_BASE_URL: `${PUBLIC_BASE_URL}/` } });
  doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
});
afterAll(async () => t?.close());

/** Every string value of the document, with where it is. */
function strings(value: unknown, where = '#'): { where: string; text: string }[] {
  if (typeof value === 'string') return [{ where, text: value }];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => strings(v, `${where}/${k}`));
}

const LINK = /\[docs\/([\w.-]+)\]\((\/api\/docs\/guides\/[\w.-]+)\)/g;
/** `docs/` starting a name, not inside a path such as /api/docs/guides */
const MENTION = /(?<![\w/])docs\//;

/** The text of the guide page's <pre>, unescaped. */
function preText(html: string): string {
  const inner = /<pre>([\s\S]*)<\/pre>/.exec(html)?.[1] ?? '';
  const entities: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
  return inner.replace(/&(lt|gt|quot|#39|amp);/g, (e) => entities[e] ?? e);
}

describe('servers', () => {
  it('is PUBLIC_BASE_URL without its trailing slash, so a sample reads https://host/api/…', () => {
    expect(doc.servers.map((s) => s.url)).toEqual([PUBLIC_BASE_URL]);
  });
});

describe('links to docs/… guides', () => {
  const links = () =>
    strings(doc).flatMap(({ where, text }) => [...text.matchAll(LINK)].map((m) => ({ where, name: m[1], href: m[2] })));

  it('writes every docs/… mention in the document as a Markdown link to its guide', () => {
    const bare = strings(doc).filter(({ text }) => MENTION.test(text.replace(LINK, '')));
    expect(bare).toEqual([]);
    expect(links().length).toBeGreaterThanOrEqual(4);
    for (const link of links()) expect(link.href, link.where).toBe(`/api/docs/guides/${link.name}`);
  });

  it('every link answers 200 with the file’s content, in a page that runs nothing', async () => {
    const names = new Set(links().map((l) => l.name));
    expect([...names].sort()).toEqual([...GUIDES].sort());
    for (const name of names) {
      const res = await call(t.app, 'GET', `/api/docs/guides/${name}`);
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[\w+/=]+'/);
      expect(res.body).not.toMatch(/<script/i);
      expect(preText(res.body)).toBe(readFileSync(join(DOCS, name as string), 'utf8'));
    }
  });

  it('escapes the Markdown: markup in a guide is shown, not parsed', async () => {
    const res = await call(t.app, 'GET', '/api/docs/guides/api-conventions.md');
    const pre = /<pre>([\s\S]*)<\/pre>/.exec(res.body)?.[1] ?? '';
    expect(pre).not.toMatch(/[<>]/);
  });

  it.each([
    '..%2Fpackage.json',
    '..%2F..%2F..%2F..%2Fpackage.json',
    '%2e%2e%2fREADME.md',
    '..%5C..%5Cpackage.json',
    '%2Fetc%2Fpasswd',
    'operations.md', // in docs/, but not a guide the reference links to
    'decisions%2F0001-http-contract.md',
    'API-CONVENTIONS.md',
    'api-conventions',
    'nope.md',
  ])('answers 404 for %s', async (name) => {
    const res = await call(t.app, 'GET', `/api/docs/guides/${name}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('docs.guide_not_found');
  });

  it('refuses a NUL byte in the name before the route (the kernel’s check of path parameters)', async () => {
    const res = await call(t.app, 'GET', '/api/docs/guides/api-conventions.md%00.txt');
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain('# API conventions');
  });

  it('answers 404 for a dot-dot path (normalized away before routing)', async () => {
    const res = await call(t.app, 'GET', '/api/docs/guides/../../package.json');
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('"workspaces"');
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
