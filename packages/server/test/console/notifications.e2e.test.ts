// End to end: the bell and the notification center of the built console, served by the service
// itself, in real Chromium. An administrator sends in-app messages through the API; the signed-in
// person's console shows them live, and after its socket was cut, what was sent meanwhile.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions, USER_PASSWORD } from '../helpers/fixtures.ts';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(import.meta.dirname, '../../../..');
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/atrium-notification-shots';

describe.skipIf(!existsSync(CHROMIUM))('the notification bell and center in Chromium', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let user: { userId: number; username: string };
  let context: BrowserContext;
  let page: Page;

  const send = async (title: string, link?: string) => {
    const res = await call(t.app, 'POST', '/api/in-app-messages/send', {
      token: t.demoAdminToken,
      body: { userIds: [user.userId], title, content: `${title}: body`, ...(link ? { link } : {}) },
    });
    if (res.statusCode >= 300) throw new Error(`send: ${res.statusCode} ${res.body}`);
  };
  const connected = () => t.app.ctx.realtime.connectedUserIds(t.demoTenantId).has(user.userId);
  const bell = (count: number) => page.getByRole('button', { name: `Notifications: ${count} unread` });

  beforeAll(async () => {
    // built for this run: a dist left from an earlier source would test the wrong pages
    execFileSync('npm', ['run', 'build', '-w', '@atrium/console'], {
      cwd: ROOT,
      stdio: 'ignore',
      env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` },
    });
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    user = await createUserWithPermissions(t, []);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    await mkdir(SHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signIn(language: 'en' | 'zh-CN', theme: 'light' | 'dark') {
    context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.addInitScript(
      ([l, th]) => {
        localStorage.setItem('atrium.language', l);
        localStorage.setItem('atrium.theme', th);
      },
      [language, theme],
    );
    page = await context.newPage();
    page.setDefaultTimeout(90_000); // slow under the other test worker, not stuck
    await page.goto(`${origin}/login`);
    await page.locator('#tenantCode').fill('demo');
    await page.locator('#username').fill(user.username);
    await page.locator('#password').fill(USER_PASSWORD);
    await page.locator('button[type=submit]').click();
    await page.getByTestId('notification-bell').waitFor();
    await expect.poll(connected, { timeout: 10_000 }).toBe(true);
  }
  async function shot(name: string) {
    await page.waitForFunction(() => document.querySelectorAll('.ant-spin-spinning').length === 0);
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  }

  it('shows a message live in the bell, and what was sent while the socket was cut after it reconnects', async () => {
    await signIn('en', 'light');
    await bell(0).waitFor();
    await bell(0).click();
    await page.getByText('Nothing new').waitFor();

    // live: sent through the API, shown without a reload (count and item)
    await send('Quarterly report ready', '/notifications?tab=preferences');
    await bell(1).waitFor();
    await page.getByTestId('bell-item').getByText('Quarterly report ready (unread)').waitFor();

    // the server drops every socket (a restart): the console comes back by itself
    t.app.ctx.realtime.closeAll();
    await send('Sent around the restart');
    await bell(2).waitFor({ timeout: 15_000 });
    await expect.poll(connected, { timeout: 10_000 }).toBe(true);

    // the network goes away: the socket is closed, a message is sent meanwhile, and it arrives
    // after the network is back through the resume from the last event id
    await context.setOffline(true);
    await expect.poll(connected, { timeout: 10_000 }).toBe(false);
    await send('Sent while offline');
    await page.waitForTimeout(1500);
    expect(await bell(2).count()).toBe(1);
    await context.setOffline(false);
    await bell(3).waitFor({ timeout: 15_000 });
    await page.getByTestId('bell-item').getByText('Sent while offline (unread)').waitFor();
    await shot('bell-en-light');

    // the deep link opens the console route
    await page.getByTestId('bell-item').getByText('Quarterly report ready (unread)').click();
    await page.waitForURL(/\/notifications\?tab=preferences$/);
    await page.getByRole('heading', { name: 'Notification center', level: 1 }).waitFor();
    await bell(2).waitFor();

    // mark all read from the bell
    await bell(2).click();
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await bell(0).waitFor();
    await context.close();
  }, 180_000);

  it('lists the messages in the center, filters in the URL, and reads them', async () => {
    await send('Unread one');
    await signIn('en', 'dark');
    await page.goto(`${origin}/notifications?state=unread`);
    await page.getByRole('heading', { name: 'Notification center', level: 1 }).waitFor();
    await page.getByText('Unread one (unread)').waitFor();
    expect(await page.getByText('Quarterly report ready').count()).toBe(0);
    await shot('inbox-en-dark');
    await page.getByRole('button', { name: 'Mark “Unread one” read' }).click();
    await bell(0).waitFor();
    await page.getByRole('tab', { name: 'Preferences' }).click();
    await page.waitForURL(/tab=preferences/);
    await page.getByRole('heading', { name: 'Delivery' }).waitFor();
    await shot('preferences-en-dark');
    await context.close();
  }, 180_000);

  it('in Chinese, light and dark', async () => {
    await send('季度报告已生成');
    for (const theme of ['light', 'dark'] as const) {
      await signIn('zh-CN', theme);
      await page.getByRole('button', { name: /^通知：\d+ 条未读$/ }).click();
      await page.getByTestId('bell-item').first().waitFor();
      await shot(`bell-zh-${theme}`);
      await page.goto(`${origin}/notifications`);
      await page.getByRole('heading', { name: '通知中心', level: 1 }).waitFor();
      await page.getByText('季度报告已生成（未读）').waitFor();
      await shot(`inbox-zh-${theme}`);
      await context.close();
    }
  }, 180_000);
});
