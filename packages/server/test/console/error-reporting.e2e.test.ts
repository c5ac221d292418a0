// End to end: the built console reports its own errors into the service's monitor (docs/decisions/0037).
// Real Chromium on the real service; the errors are real ones — a throw in the page, a rejection, a
// server answer of 500 (the database refuses), a page chunk that cannot load — and the test reads
// what arrived through the monitor's own API, as the platform administrator would.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONSOLE_DIR } from '../../src/platform/http/console.ts';
import { ADMIN_PASSWORD, call, type TestApp } from '../helpers/app.ts';
import { type ConsoleSite, hasChromium, type Language, shot, startConsoleSite, type Theme } from './console-browser.ts';

type StoredEvent = {
  id: number;
  type: string;
  message: string;
  pageUrl: string;
  release: string;
  environment: string;
  identity: string | null;
  context: Record<string, unknown>;
  http: { method: string; url: string; status: number } | null;
  breadcrumbs: unknown[];
};

describe.skipIf(!hasChromium)('the console reports its own errors', () => {
  let site: ConsoleSite;
  let t: TestApp;
  let release: string;
  let usersChunk: string;
  let signInChunk: string;

  beforeAll(async () => {
    site = await startConsoleSite();
    t = site.t;
    // what the build says it is, and where the users page's code is
    release = readFileSync(join(DEFAULT_CONSOLE_DIR, '.vite', 'release.txt'), 'utf8').trim();
    const manifest = JSON.parse(readFileSync(join(DEFAULT_CONSOLE_DIR, '.vite', 'manifest.json'), 'utf8'));
    usersChunk = manifest['src/pages/identity/users/index.tsx'].file;
    signInChunk = manifest['src/pages/auth/sign-in.tsx'].file;
  }, 120_000);

  afterAll(async () => {
    await site?.close();
  });

  /** The platform's events (where the console's land), newest first. */
  const platformEvents = async (token = t.adminToken): Promise<StoredEvent[]> => {
    const res = await call(t.app, 'GET', '/api/frontend-errors/events?pageSize=100', { token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.list;
  };
  /** Waits for the event the console sends (the reporter loads after the first paint). */
  async function arrived(match: (e: StoredEvent) => boolean): Promise<StoredEvent> {
    const end = Date.now() + 60_000;
    for (;;) {
      const found = (await platformEvents()).find(match);
      if (found) return found;
      if (Date.now() > end) throw new Error('the console’s report did not arrive');
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  async function signIn(page: Page) {
    await page.goto(`${site.base}/login`);
    await page.locator('#tenantCode').fill('demo');
    await page.locator('input[autocomplete=username]').fill('admin');
    await page.locator('input[autocomplete=current-password]').fill(ADMIN_PASSWORD);
    await page.locator('button[type=submit]').click();
    await page.waitForURL((u) => u.pathname === '/');
  }
  const secretFree = (e: StoredEvent, ...secrets: string[]) => {
    const all = JSON.stringify(e);
    for (const s of secrets) expect(all, `the report holds ${s}`).not.toContain(s);
  };

  it('an uncaught error on the sign-in page arrives with the build’s release, its URL without the query', async () => {
    expect(release).toMatch(/^console@\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
    const page = await site.page();
    await page.goto(`${site.base}/login?next=%2Foauth2%2Fauthorize%3Fstate%3Dsecret-state&tenant=demo#fragment-x`);
    await page.locator('h1').waitFor();
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('e2e: thrown on the sign-in page');
      });
    });
    const event = await arrived((e) => e.message.includes('e2e: thrown on the sign-in page'));
    await page.context().close();
    expect(event).toMatchObject({
      type: 'js_error',
      release,
      environment: 'production',
      pageUrl: `${site.base}/login`,
    });
    // an anonymous tab session, nobody's token
    expect(event.identity).toMatch(/^a:[0-9a-f-]{36}$/);
    secretFree(event, 'secret-state', 'fragment-x', 'tenant=demo');
  }, 180_000);

  it('an unhandled rejection on a share link’s page: the link’s token never leaves the page', async () => {
    const token = 'e2eSecretShareToken123';
    const page = await site.page({ language: 'zh-CN' });
    await page.goto(`${site.base}/s/${token}?download=1`);
    await page.locator('h1').waitFor();
    await page.evaluate(() => {
      void Promise.reject(new Error(`e2e: rejected at ${location.href}`));
    });
    const event = await arrived((e) => e.message.startsWith('e2e: rejected at'));
    await page.context().close();
    expect(event.message).toBe(`e2e: rejected at ${site.base}/s/:token`);
    expect(event.pageUrl).toBe(`${site.base}/s/:token`);
    expect(event.release).toBe(release);
    // the page's own call for the link (its 404 is not reported) is among the breadcrumbs, scrubbed too
    expect(JSON.stringify(event.breadcrumbs)).toContain('/api/drive/public/shares/:token');
    secretFree(event, token, 'download=1');
  }, 180_000);

  it('an answer of 500: the toast shows its request id, and the monitor has the failed call with the same id', async () => {
    const role = (
      await call(t.app, 'POST', '/api/roles', {
        token: t.demoAdminToken,
        body: { name: 'E2E doomed role', code: 'e2e-doomed', permissions: [] },
      })
    ).json().data as { id: number };
    // the database refuses to delete it: a real failure of the real route, answered 500
    await t.database.exec(`
      CREATE FUNCTION e2e_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'e2e: the disk is on fire' USING ERRCODE = 'XX000'; END $$;
      CREATE TRIGGER e2e_refuse_delete BEFORE DELETE ON roles
        FOR EACH ROW WHEN (OLD.code = 'e2e-doomed') EXECUTE FUNCTION e2e_refuse_delete();`);

    const page = await site.page();
    await signIn(page);
    await page.goto(`${site.base}/system/roles`);
    const row = page.locator('.ant-table-row').filter({ hasText: 'E2E doomed role' });
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.locator('.ant-modal-confirm').getByRole('button', { name: 'Delete' }).click();
    const toast = page.locator('.ant-message-error');
    await toast.waitFor();
    const text = (await toast.textContent()) ?? '';
    const shown = /\(request id: ([^)]+)\)/.exec(text)?.[1];
    // translated (not the server's English words), then the id
    expect(text).toMatch(/^Something went wrong on the service\..* \(request id: [^)]+\)$/);
    expect(shown).toBeTruthy();
    await shot(page, 'toast-request-id-en');
    await page.context().close();

    const event = await arrived((e) => e.type === 'http_error' && e.context.requestId === shown);
    expect(event.http).toEqual({ method: 'DELETE', url: `${site.base}/api/roles/${role.id}`, status: 500 });
    expect(event.release).toBe(release);
    // a signed-in tenant user's error lands in the platform's console site, with their ids only
    expect(event.context.user).toEqual({ id: expect.any(Number), tenantId: t.demoTenantId });
    expect((await platformEvents(t.demoAdminToken)).some((e) => e.id === event.id)).toBe(false);
    // the request id is the server's: its log line can be found by it
    expect(shown).toMatch(/^[\w-]{8,}$/);
  }, 180_000);

  it('a page whose code cannot load: its error boundary says so with the event id, the menu stays, a retry loads it', async () => {
    const page = await site.page();
    await signIn(page);
    // the console was updated under an open tab: the page's old chunk is gone
    await page.route(`**/${usersChunk}`, (route) => route.abort());
    await page.goto(`${site.base}/system/users`);
    const alert = page.getByRole('alert').filter({ hasText: 'This page ran into a problem' });
    await alert.getByText(/error number: \d+/).waitFor();
    await page.getByRole('navigation', { name: 'Home' }).waitFor();
    const eventId = Number(/error number: (\d+)/.exec((await alert.textContent()) ?? '')?.[1]);

    const event = await arrived((e) => e.id === eventId);
    expect(event.type).toBe('js_error');
    expect(event.message).toMatch(/dynamically imported module/);
    expect(event.release).toBe(release);
    expect(event.pageUrl).toBe(`${site.base}/system/users`);
    expect(String(event.context.componentStack)).not.toBe('');

    await shot(page, 'page-error-en-light');
    await noSeriousViolation(page, 'en', 'light');
    await page.unroute(`**/${usersChunk}`);
    await alert.getByRole('button', { name: 'Try again' }).click();
    await page.locator('.ant-table-row').first().waitFor();
    await page.context().close();
  }, 180_000);

  it('the same in Chinese and the dark theme, without a blank screen', async () => {
    const page = await site.page({ language: 'zh-CN', theme: 'dark' });
    await signIn(page);
    await page.route(`**/${usersChunk}`, (route) => route.abort());
    await page.goto(`${site.base}/system/users`);
    const alert = page.getByRole('alert').filter({ hasText: '页面出了点问题' });
    await alert.getByText(/请把错误编号告诉管理员：\d+/).waitFor();
    await alert
      .getByRole('button', { name: '重 试' })
      .or(alert.getByRole('button', { name: '重试' }))
      .waitFor();
    await shot(page, 'page-error-zh-dark');
    await noSeriousViolation(page, 'zh-CN', 'dark');
    await page.context().close();
  }, 180_000);

  it('the sign-in page’s code cannot load: the console-wide fallback, without antd, in both languages', async () => {
    for (const [language, theme, title, retry] of [
      ['en', 'light', 'This page ran into a problem', 'Try again'],
      ['zh-CN', 'dark', '页面出了点问题', '重试'],
    ] as const) {
      const page = await site.page({ language, theme });
      await page.route(`**/${signInChunk}`, (route) => route.abort());
      await page.goto(`${site.base}/login`);
      const alert = page.getByRole('alert').filter({ hasText: title });
      await alert.getByText(/\d+$/).waitFor();
      const eventId = Number(/(\d+)$/.exec((await alert.textContent()) ?? '')?.[1]);
      expect((await arrived((e) => e.id === eventId)).pageUrl).toBe(`${site.base}/login`);
      await shot(page, `app-error-${language}-${theme}`);
      await noSeriousViolation(page, language, theme);
      await page.unroute(`**/${signInChunk}`);
      await page.getByRole('button', { name: retry }).click();
      await page.locator('input[autocomplete=username]').waitFor();
      await page.context().close();
    }
  }, 180_000);

  async function noSeriousViolation(page: Page, language: Language, theme: Theme) {
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const found = result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n) => `${v.id} [${language}, ${theme}]: ${n.target.join(' ')}`));
    expect(found, found.join('\n')).toEqual([]);
  }
});
