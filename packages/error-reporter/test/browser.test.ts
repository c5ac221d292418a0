// Real-browser test: the built IIFE runs in Chromium against a local page and a local receiver.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReporter } from '../build.mjs';
import type { ReportBody } from '../src/types';

const CHROMIUM = '/usr/bin/chromium';
const pkgDir = join(import.meta.dirname, '..');
const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version as string;

interface Received {
  headers: IncomingHttpHeaders;
  /** a report, or the test's own witness (see `settled`) */
  body: ReportBody & { witness?: true };
}

const page = (cfg: object, body: string) => `<!doctype html><html><head>
<script src="/reporter.js"></script>
<script>AtriumErrorReporter.init(${JSON.stringify(cfg)});</script>
</head><body style="margin:0">${body}</body></html>`;

describe.skipIf(!existsSync(CHROMIUM))('error reporter in Chromium', () => {
  let server: Server;
  let base: string;
  let browser: Browser;
  const received: Received[] = [];
  let reporterJs = '';

  beforeAll(async () => {
    await buildReporter({ quiet: true });
    reporterJs = readFileSync(join(pkgDir, 'dist/error-reporter.min.js'), 'utf8');
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST' && url.pathname === '/api/answering-errors') {
        // an ingest that answers like Atrium's: the event id the page may show
        req.resume();
        req.on('end', () =>
          res
            .writeHead(202, { 'content-type': 'application/json' })
            .end(JSON.stringify({ code: 0, message: 'ok', data: { accepted: true, groupId: 4, eventId: 77 } })),
        );
        return;
      }
      if (req.method === 'POST' && url.pathname === '/api/frontend-errors') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          // Answer 500 on purpose: if the reporter watched its own requests this would loop into http_error.
          res.writeHead(500).end();
        });
        return;
      }
      const html = (s: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(s);
      switch (url.pathname) {
        case '/reporter.js':
          return res.writeHead(200, { 'content-type': 'text/javascript' }).end(reporterJs);
        case '/app':
          return html(
            page(
              {
                endpoint: '/api/frontend-errors',
                siteKey: 'site-123',
                release: 'web@9.9.9',
                environment: 'staging',
                sessionId: 'sess-1',
                whiteScreen: { delay: 200 },
              },
              '<div id="app"><button id="save" class="primary big">Save</button><div style="height:100vh;background:#eee">content</div></div><script src="/app.js"></script>',
            ),
          );
        case '/blank':
          return html(page({ endpoint: '/api/frontend-errors', whiteScreen: { delay: 200 } }, '<div id="app"></div>'));
        case '/app.js':
          // A real script file, so the js_error carries its URL, line and column.
          return res
            .writeHead(200, { 'content-type': 'text/javascript' })
            .end(
              'window.throwLater = function () {\n  setTimeout(function () { throw new TypeError("kaboom"); });\n};\n',
            );
        case '/plain':
          return html(
            '<!doctype html><html><head><script src="/reporter.js"></script></head><body><p>x</p></body></html>',
          );
        case '/api/ok':
          return res.writeHead(200).end('ok');
        case '/api/boom':
          return res.writeHead(500, { 'x-request-id': 'req-boom' }).end('no');
        case '/api/xhr-boom':
          return res.writeHead(503, { 'x-request-id': 'req-xhr' }).end('no');
        case '/api/drop':
          req.socket.destroy();
          return;
        case '/api/slow':
          setTimeout(() => res.writeHead(500).end(), 2000);
          return;
        default:
          return res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => server?.close(r));
  });

  async function waitFor(pred: () => boolean, ms = 10_000) {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`timed out; received ${JSON.stringify(received.map((r) => r.body.type))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Waits until the page has reported all it was going to: a witness posted by the page itself
   * after the white-screen check (200 ms after load) and after every report started so far has
   * reached the server. Not a pause followed by "nothing more came", which passes when it is early.
   */
  async function settled(p: Page) {
    await p.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const send = () =>
            setTimeout(() => {
              fetch('/api/frontend-errors', { method: 'POST', body: '{"witness":true}' }).then(
                () => resolve(),
                () => resolve(),
              );
            }, 250);
          if (document.readyState === 'complete') send();
          else addEventListener('load', send, { once: true });
        }),
    );
    await waitFor(() => received.some((r) => r.body.witness));
    received.splice(
      received.findIndex((r) => r.body.witness),
      1,
    );
  }

  it('reports each error type once with the right fields, and never its own requests', async () => {
    received.length = 0;
    const p: Page = await browser.newPage();
    await p.goto(`${base}/app`);

    // Behaviour trail first: navigation, click, network, console.
    await p.evaluate(() => history.pushState({}, '', '/app/orders?tab=1'));
    await p.click('#save');
    await p.evaluate(() => fetch('/api/ok').then((r) => r.text()));
    await p.evaluate(() => console.warn('low disk'));

    // js_error, twice: the second is within 10 s and must be dropped.
    await p.evaluate(() => {
      const w = window as unknown as { throwLater(): void };
      w.throwLater();
      w.throwLater();
    });
    // promise_rejection: one real, four expected ones that must not be reported.
    await p.evaluate(() => {
      Promise.reject(new Error('unhandled thing'));
      Promise.reject({ isBusinessError: true, message: 'quota exceeded' });
      const be = new Error('insufficient balance');
      be.name = 'BusinessError';
      Promise.reject(be);
      Promise.reject('SUBMIT_ABORTED');
      Promise.reject({ code: 'SUBMIT_ABORTED' });
    });
    // resource_error
    await p.evaluate(() => {
      const img = document.createElement('img');
      img.src = '/missing.png';
      document.body.appendChild(img);
    });
    // console_error, twice (deduped)
    await p.evaluate(() => {
      console.error('render failed', new Error('inner'));
      console.error('render failed', new Error('inner'));
    });
    // http_error: fetch 500, XHR 503, fetch network failure; an aborted fetch and a 200 are not errors.
    await p.evaluate(async () => {
      await fetch('/api/boom?token=secret');
      await new Promise<void>((resolve) => {
        const x = new XMLHttpRequest();
        x.open('POST', '/api/xhr-boom');
        x.onloadend = () => resolve();
        x.send('{}');
      });
      await fetch('/api/drop').catch(() => undefined);
      const ac = new AbortController();
      const slow = fetch('/api/slow', { signal: ac.signal }).catch(() => undefined);
      ac.abort();
      await slow;
      // The app itself calling the reporter's endpoint must not be reported either.
      await fetch('/api/frontend-errors', { method: 'POST', body: '{"type":"crash","message":"app-made"}' });
    });
    // crash via the API
    await p.evaluate(() =>
      (window as unknown as { AtriumErrorReporter: { crash(r: string, e: object): void } }).AtriumErrorReporter.crash(
        'checkout froze',
        { step: 3 },
      ),
    );

    const types = () => received.map((r) => r.body.type).filter((t) => t !== undefined);
    await waitFor(() => types().includes('crash') && types().filter((t) => t === 'http_error').length >= 3);
    // stragglers (duplicates, a white_screen at 200 ms) would have come by now
    await settled(p);
    await p.close();

    const reports = received.map((r) => r.body).filter((b) => b.message !== 'app-made');
    const byType = (t: string) => reports.filter((r) => r.type === t);
    expect(byType('js_error')).toHaveLength(1);
    expect(byType('promise_rejection')).toHaveLength(1);
    expect(byType('resource_error')).toHaveLength(1);
    expect(byType('console_error')).toHaveLength(1);
    expect(byType('http_error')).toHaveLength(3);
    expect(byType('crash')).toHaveLength(1);
    expect(byType('white_screen')).toHaveLength(0);
    expect(reports).toHaveLength(8);

    // Sent with fetch keepalive because a site key is configured.
    for (const r of received.filter((x) => x.body.message !== 'app-made')) {
      expect(r.headers['x-analytics-site-key']).toBe('site-123');
      expect(r.headers['content-type']).toBe('application/json');
    }
    for (const r of reports) {
      expect(r).toMatchObject({ release: 'web@9.9.9', environment: 'staging', sessionId: 'sess-1' });
      expect(r.pageUrl).toBe(`${base}/app/orders?tab=1`);
      expect(JSON.stringify(r)).not.toContain('/api/frontend-errors');
    }

    const js = byType('js_error')[0];
    expect(js.message).toContain('kaboom');
    expect(js.stack).toContain('TypeError: kaboom');
    expect(js).toMatchObject({ sourceUrl: `${base}/app.js`, line: 2, level: 'error' });
    expect(js.column).toBeGreaterThan(0);
    const crumbTypes = js.breadcrumbs.map((b) => b.type);
    expect(crumbTypes).toEqual(expect.arrayContaining(['navigation', 'click', 'network', 'console']));
    expect(js.breadcrumbs.find((b) => b.type === 'click')?.message).toBe('div#app > button#save.primary.big');
    expect(js.breadcrumbs.find((b) => b.type === 'navigation')?.data).toMatchObject({ to: `${base}/app/orders?tab=1` });
    expect(js.breadcrumbs.find((b) => b.type === 'network')).toMatchObject({
      data: { method: 'GET', url: `${base}/api/ok`, status: 200 },
    });
    expect(js.breadcrumbs.find((b) => b.type === 'console')).toMatchObject({
      message: 'low disk',
      data: { level: 'warn' },
    });
    for (const b of js.breadcrumbs) expect(typeof b.timestamp).toBe('number');

    expect(byType('promise_rejection')[0]).toMatchObject({ message: 'unhandled thing', level: 'error' });
    expect(byType('promise_rejection')[0].stack).toContain('unhandled thing');

    const res = byType('resource_error')[0];
    expect(res.sourceUrl).toBe(`${base}/missing.png`);
    expect(res.message).toContain('img');

    expect(byType('console_error')[0].message).toBe('render failed inner');
    expect(byType('console_error')[0].stack).toContain('inner');

    const https = byType('http_error').map((r) => r.http);
    expect(https).toEqual([
      { method: 'GET', url: `${base}/api/boom`, status: 500 },
      { method: 'POST', url: `${base}/api/xhr-boom`, status: 503 },
      { method: 'GET', url: `${base}/api/drop`, status: 0 },
    ]);
    expect(byType('http_error').map((r) => r.context?.requestId)).toEqual(['req-boom', 'req-xhr', undefined]);
    expect(byType('http_error')[0].message).toBe(`GET ${base}/api/boom failed with 500`);
    expect(byType('http_error')[2].message).toBe(`GET ${base}/api/drop network error`);
    // Query strings (tokens) never leave the page.
    expect(JSON.stringify(reports)).not.toContain('secret');
    // Later reports carry the earlier network crumbs, but never one for the reporter's endpoint.
    const lastCrumbs = byType('crash')[0].breadcrumbs;
    expect(lastCrumbs.length).toBeLessThanOrEqual(30);
    expect(lastCrumbs.some((b) => b.type === 'network' && b.data?.status === 500)).toBe(true);

    expect(byType('crash')[0]).toMatchObject({ message: 'checkout froze', level: 'fatal', context: { step: 3 } });
  });

  it('reports a white screen once on a page that renders nothing, sent by sendBeacon without a site key', async () => {
    received.length = 0;
    const p = await browser.newPage();
    // Count sendBeacon calls made by the page, to prove which transport carried the report.
    await p.addInitScript(() => {
      const w = window as unknown as { __beacons: number };
      w.__beacons = 0;
      const orig = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, data) => {
        w.__beacons++;
        return orig(url, data);
      };
    });
    await p.goto(`${base}/blank`);
    await waitFor(() => received.length >= 1);
    await settled(p);
    const beacons = await p.evaluate(() => (window as unknown as { __beacons: number }).__beacons);
    await p.close();
    expect(beacons).toBe(1);
    expect(received).toHaveLength(1);
    const [{ headers, body }] = received;
    expect(headers['x-analytics-site-key']).toBeUndefined();
    expect(headers['content-type']).toBe('application/json');
    expect(body).toMatchObject({ type: 'white_screen', level: 'fatal', release: version, pageUrl: `${base}/blank` });
    expect(body.context).toMatchObject({ wrappers: ['html', 'body', '#app', '#root'] });
  });

  it('applies ignore and beforeSend, and destroy() restores every patched global and stops reporting', async () => {
    received.length = 0;
    const p = await browser.newPage();
    await p.goto(`${base}/plain`);
    const result = await p.evaluate(async (endpoint) => {
      type R = {
        init(o: object): void;
        destroy(): void;
        flush(): Promise<void>;
        crash(r: string): void;
        setContext(c: object): void;
      };
      const R = (window as unknown as { AtriumErrorReporter: R }).AtriumErrorReporter;
      const before = [
        window.fetch,
        XMLHttpRequest.prototype.open,
        XMLHttpRequest.prototype.send,
        console.error,
        console.warn,
        history.pushState,
      ];
      R.init({
        endpoint,
        siteKey: 'k',
        whiteScreen: false,
        ignore: ['ResizeObserver loop', /^noise \d+$/],
        beforeSend: (b: { message: string; context?: object }) =>
          b.message === 'drop me' ? null : { ...b, context: { ...b.context, edited: true } },
      });
      R.setContext({ requestId: 'req-9' });
      const patched = before.map(
        (f, i) =>
          f !==
          [
            window.fetch,
            XMLHttpRequest.prototype.open,
            XMLHttpRequest.prototype.send,
            console.error,
            console.warn,
            history.pushState,
          ][i],
      );
      console.error('ResizeObserver loop limit exceeded');
      console.error('noise 42');
      R.crash('drop me');
      R.crash('kept');
      await R.flush();
      R.destroy();
      const after = [
        window.fetch,
        XMLHttpRequest.prototype.open,
        XMLHttpRequest.prototype.send,
        console.error,
        console.warn,
        history.pushState,
      ];
      R.crash('after destroy');
      console.error('after destroy');
      await fetch('/api/boom');
      return { patched, restored: after.every((f, i) => f === before[i]) };
    }, '/api/frontend-errors');
    await settled(p);
    await p.close();
    expect(result.patched).toEqual([true, true, true, true, true, true]);
    expect(result.restored).toBe(true);
    expect(received.map((r) => r.body)).toEqual([
      expect.objectContaining({ type: 'crash', message: 'kept', context: { requestId: 'req-9', edited: true } }),
    ]);
  });

  it('resolves captureException and crash with the server’s answer (fetch), undefined when nothing was sent', async () => {
    const p = await browser.newPage();
    await p.goto(`${base}/plain`);
    const answers = await p.evaluate(async () => {
      type R = {
        init(o: object): void;
        destroy(): void;
        captureException(e: unknown): Promise<unknown>;
        crash(r: string): Promise<unknown>;
      };
      const R = (window as unknown as { AtriumErrorReporter: R }).AtriumErrorReporter;
      const before = await R.captureException(new Error('before init'));
      R.init({ endpoint: '/api/answering-errors', siteKey: 'k', whiteScreen: false });
      const first = await R.captureException(new Error('answered'));
      const repeat = await R.captureException(new Error('answered'));
      const crashed = await R.crash('stalled');
      R.destroy();
      return { before, first, repeat, crashed };
    });
    await p.close();
    const answer = { code: 0, message: 'ok', data: { accepted: true, groupId: 4, eventId: 77 } };
    expect(answers).toEqual({ before: undefined, first: answer, repeat: undefined, crashed: answer });
  });
});
