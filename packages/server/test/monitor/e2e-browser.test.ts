// End to end: an esbuild-minified app with a source map, the built reporter, real Chromium, and the
// Atrium server on a real port; the issue detail must show the original file and line.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/platform/net/free-port.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { buildApp, uploadMap } from './sourcemaps-helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(import.meta.dirname, '../../../..');
const REPORTER = join(ROOT, 'packages/error-reporter/dist/error-reporter.min.js');
const RELEASE = 'e2e@1.0.0';
const TYPES = [
  'js_error',
  'promise_rejection',
  'resource_error',
  'console_error',
  'http_error',
  'crash',
  'white_screen',
] as const;

describe.skipIf(!existsSync(CHROMIUM))('front-end errors end to end in Chromium', () => {
  let t: TestApp;
  let api: string;
  let page: Server;
  let pageOrigin: string;
  let browser: Browser;
  let dir: string;
  let siteKey = '';

  beforeAll(async () => {
    if (!existsSync(REPORTER)) execFileSync('node', [join(ROOT, 'packages/error-reporter/build.mjs')], { cwd: ROOT });
    const reporterJs = readFileSync(REPORTER, 'utf8');

    const port = await freeLoopbackPort();
    api = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { PUBLIC_BASE_URL: api } });
    await t.app.listen({ port, host: '127.0.0.1' });

    dir = await mkdtemp(join(tmpdir(), 'atrium-e2e-'));
    const app = await buildApp(dir);
    const uploaded = await uploadMap(t, t.demoAdminToken, { release: RELEASE, fileName: 'app.min.js', data: app.map });
    expect(uploaded.statusCode, uploaded.body).toBe(201);

    page = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/reporter.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(reporterJs);
      if (path === '/assets/app.min.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(app.js);
      if (path === '/api/boom') return res.writeHead(500).end('no');
      if (path === '/') {
        const cfg = { endpoint: `${api}/api/frontend-errors`, siteKey, release: RELEASE, whiteScreen: false };
        return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head>
<script src="/reporter.js"></script>
<script>AtriumErrorReporter.init(${JSON.stringify(cfg)});</script>
</head><body><p>shop</p><script src="/assets/app.min.js"></script></body></html>`);
      }
      if (path === '/blank') {
        // the app never renders into #app: the reporter's white-screen check reports it
        const cfg = { endpoint: `${api}/api/frontend-errors`, siteKey, release: RELEASE, whiteScreen: { delay: 300 } };
        return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head>
<script src="/reporter.js"></script>
<script>AtriumErrorReporter.init(${JSON.stringify(cfg)});</script>
</head><body><div id="app"></div></body></html>`);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;

    const site = await call(t.app, 'POST', '/api/frontend-errors/sites', {
      token: t.demoAdminToken,
      body: { name: 'E2E shop', allowedOrigins: [pageOrigin] },
    });
    expect(site.statusCode, site.body).toBe(201);
    siteKey = site.json().data.siteKey;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (page) await new Promise((r) => page.close(r));
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function groupsByType(): Promise<Map<string, number>> {
    const res = await call(t.app, 'GET', '/api/frontend-errors/groups?pageSize=50', { token: t.demoAdminToken });
    return new Map((res.json().data.list as { id: number; type: string }[]).map((g) => [g.type, g.id]));
  }

  it('reports every error type (white screen included) to the server and restores the js_error stack to the original source', async () => {
    const p = await browser.newPage();
    await p.goto(`${pageOrigin}/`);
    // js_error: thrown inside the minified bundle, uncaught
    await p.evaluate(() => {
      setTimeout(() => (window as unknown as { boom(): void }).boom());
    });
    await p.evaluate(() => {
      Promise.reject(new Error('unhandled thing'));
    });
    await p.evaluate(() => {
      const img = document.createElement('img');
      img.src = '/missing.png';
      document.body.appendChild(img);
    });
    await p.evaluate(() => console.error('render failed', new Error('inner')));
    await p.evaluate(async () => {
      await fetch('/api/boom');
    });
    await p.evaluate(() =>
      (window as unknown as { AtriumErrorReporter: { crash(r: string, e: object): void } }).AtriumErrorReporter.crash(
        'checkout froze',
        { step: 3 },
      ),
    );

    // white_screen: a page whose app never renders
    const blank = await browser.newPage();
    await blank.goto(`${pageOrigin}/blank`);

    let groups = new Map<string, number>();
    const end = Date.now() + 15_000;
    while (TYPES.some((type) => !groups.has(type))) {
      if (Date.now() > end) throw new Error(`timed out; issues of types ${[...groups.keys()].join(', ')}`);
      await new Promise((r) => setTimeout(r, 200));
      groups = await groupsByType();
    }
    await p.close();
    await blank.close();

    const jsError = groups.get('js_error');
    const res = await call(t.app, 'GET', `/api/frontend-errors/groups/${jsError}`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json().data;
    expect(d.latestEvent).toMatchObject({ release: RELEASE });
    expect(d.latestEvent.stack).toContain(`${pageOrigin}/assets/app.min.js:1:`);
    const [top] = d.restoredStack;
    expect(top, JSON.stringify(d.restoredStack)).toMatchObject({ restored: true, line: 3 });
    expect(top.file).toMatch(/src\/util\.ts$/);
    expect(top.context.lines).toContain('  throw new TypeError(message);');
  }, 60_000);
});
