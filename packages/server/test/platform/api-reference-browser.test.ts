// The API reference in real Chromium, on a real port: it renders, fetches nothing outside the
// service (fonts, CDNs, telemetry), breaks none of its Content-Security-Policy, and its curl
// samples name the configured host.
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/platform/net/free-port.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))('the API reference in Chromium', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const violations: string[] = [];

  beforeAll(async () => {
    const port = await freeLoopbackPort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { PUBLIC_BASE_URL: origin } });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('request', (r) => requests.push(r.url()));
    // a blocked load never becomes a request: the policy's reports show what was attempted
    await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
    await page.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { reportViolation(v: string): void }).reportViolation(
          `${e.effectiveDirective} ${e.blockedURI}`,
        ),
      ),
    );
    await page.goto(`${origin}/api/docs#tag/auth/POST/api/auth/login`);
    await page.getByText('Sign in: returns a short-lived access token').first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('requests only the service’s own URLs', () => {
    expect(requests).toContain(`${origin}/api/openapi.json`);
    expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
  });

  it('breaks none of the page’s Content-Security-Policy', () => {
    // Scalar's bundled zod probes `Function('')` to choose its compiled validators, and takes
    // the interpreted ones when refused: the one report allowed.
    expect(violations.filter((v) => v !== 'script-src eval')).toEqual([]);
  });

  it('shows curl samples on the configured server URL', async () => {
    const samples = await page.locator('pre, code').allInnerTexts();
    expect(samples.some((s) => s.startsWith(`curl ${origin}/api/auth/login`))).toBe(true);
    expect(samples.filter((s) => /^curl \/api/.test(s))).toEqual([]);
  });

  it('links docs/… mentions to the guides the service serves', async () => {
    const link = page.locator('a[href="/api/docs/guides/api-conventions.md"]').first();
    await expect(link.textContent()).resolves.toBe('docs/api-conventions.md');
  });
});
