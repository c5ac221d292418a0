// End to end: the bell and the notification center of the built console, served by the service
// itself, in real Chromium. An administrator sends in-app messages through the API; the signed-in
// person's console shows them live, and after its socket was cut, what was sent meanwhile.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions, USER_PASSWORD } from '../helpers/fixtures.ts';

import { assertConsoleBuilt, CHROMIUM, recordToasts, shot, toastShown } from './console-browser.ts';

describe.skipIf(!existsSync(CHROMIUM))('the notification bell and center in Chromium', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let user: { userId: number; username: string; token: string };
  let context: BrowserContext;
  let page: Page;

  const send = async (title: string, link?: string) => {
    const res = await call(t.app, 'POST', '/api/in-app-messages/send', {
      token: t.demoAdminToken,
      body: { userIds: [user.userId], title, content: `${title}: body`, ...(link ? { link } : {}) },
    });
    if (res.statusCode >= 300) throw new Error(`send: ${res.statusCode} ${res.body}`);
  };
  /** The person's own view through the API (what the page stored, not what it shows). */
  const mine = async (method: 'GET' | 'POST', url: string, body?: object) => {
    const res = await call(t.app, method, url, { token: user.token, ...(body ? { body } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  const connected = () => t.app.ctx.realtime.connectedUserIds(t.demoTenantId).has(user.userId);
  const bell = (count: number) => page.getByRole('button', { name: `Notifications: ${count} unread` });

  beforeAll(async () => {
    // not built here: a build empties dist/ under the other browser test files running beside
    assertConsoleBuilt();
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    user = await createUserWithPermissions(t, []);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
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
    await context.addInitScript(recordToasts);
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
    await shot(page, 'bell-en-light');

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
    await shot(page, 'inbox-en-dark');
    await page.getByRole('button', { name: 'Mark “Unread one” read' }).click();
    await bell(0).waitFor();
    await page.getByRole('tab', { name: 'Preferences' }).click();
    await page.waitForURL(/tab=preferences/);
    await page.getByRole('heading', { name: 'Delivery' }).waitFor();
    await shot(page, 'preferences-en-dark');
    await context.close();
  }, 180_000);

  /**
   * Picks an option of an antd Select by its text. The list is virtual (only what is in view is in
   * the DOM): it is scrolled until the option is rendered. `search` types it first (showSearch).
   */
  async function choose(label: string, option: string, search = false) {
    await page.getByLabel(label, { exact: true }).click();
    if (search) await page.keyboard.type(option);
    const list = page.locator('.ant-select-dropdown').filter({ visible: true });
    const options = list.locator('.ant-select-item-option');
    const item = list.locator(`.ant-select-item-option[title="${option}"]`);
    await options.first().waitFor();
    while ((await item.count()) === 0) {
      const first = await options.first().getAttribute('title');
      await list.hover();
      await page.mouse.wheel(0, 160);
      // the list moved on (at its end it would not: the poll fails, the option is not there)
      await expect.poll(() => options.first().getAttribute('title'), { timeout: 10_000 }).not.toBe(first);
    }
    await item.click();
    await list.waitFor({ state: 'hidden' });
  }
  /** The text a form field shows (a Select's chosen value), found by its label. */
  const field = (label: string) =>
    page.locator('.ant-form-item').filter({ has: page.getByLabel(label, { exact: true }) });

  it('saves a channel of the matrix, quiet hours in a time zone and a daily digest; a reload and the API show them', async () => {
    await signIn('en', 'light');
    await page.goto(`${origin}/notifications?tab=preferences`);
    await page.getByRole('heading', { name: 'Delivery' }).waitFor();

    // one cell of the matrix: saved as it is switched
    const cell = page.getByRole('switch', { name: 'File shared with me by Email' });
    expect(await cell.getAttribute('aria-checked')).toBe('false');
    const matrixSaved = page.waitForResponse(
      (r) => r.url().endsWith('/api/notification-preferences/matrix') && r.request().method() === 'PUT',
    );
    await cell.click();
    expect((await matrixSaved).status()).toBe(200);

    // the defaults first: what the choices below change
    await field('Time zone').getByText('Asia/Shanghai', { exact: true }).waitFor();
    await field('Digest').getByText('Send each at once', { exact: true }).waitFor();
    await choose('Time zone', 'America/New_York', true);
    await choose('Quiet from', '22:00');
    await choose('Quiet until', '07:00');
    await choose('Digest', 'Daily digest');
    await choose('Daily digest at', '07:00');
    const settingsSaved = page.waitForResponse(
      (r) => r.url().endsWith('/api/notification-preferences/settings') && r.request().method() === 'PUT',
    );
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await settingsSaved).status()).toBe(200);
    await toastShown(page, 'Saved');

    // a reload asks the server again: the page shows what was stored
    await page.reload();
    await page.getByRole('heading', { name: 'Delivery' }).waitFor();
    await page.getByRole('switch', { name: 'File shared with me by Email', checked: true }).waitFor();
    await field('Time zone').getByText('America/New_York', { exact: true }).waitFor();
    await field('Quiet from').getByText('22:00', { exact: true }).waitFor();
    await field('Quiet until').getByText('07:00', { exact: true }).waitFor();
    await field('Digest').getByText('Daily digest', { exact: true }).waitFor();
    await field('Daily digest at').getByText('07:00', { exact: true }).waitFor();
    await shot(page, 'preferences-saved-en-light');

    const stored = {
      timezone: 'America/New_York',
      quietStart: '22:00',
      quietEnd: '07:00',
      digestMode: 'daily',
      digestHour: 7,
      globalMuted: false,
    };
    expect(await mine('GET', '/api/notification-preferences/settings')).toEqual(stored);
    const matrix = (await mine('GET', '/api/notification-preferences/matrix')) as {
      eventKey: string;
      channels: { channel: string; enabled: boolean }[];
    }[];
    const row = matrix.find((r) => r.eventKey === 'drive.node.shared');
    expect(row?.channels.find((c) => c.channel === 'email')?.enabled).toBe(true);

    // quiet hours half set: the server's reason on the field, the request id above, nothing stored
    await field('Quiet until').hover();
    await field('Quiet until').locator('.ant-select-clear').click();
    await expect.poll(() => field('Quiet until').getByText('07:00', { exact: true }).count()).toBe(0);
    const refused = page.waitForResponse(
      (r) => r.url().endsWith('/api/notification-preferences/settings') && r.request().method() === 'PUT',
    );
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await refused).status()).toBe(400);
    await field('Quiet until').getByText('set both quietStart and quietEnd, or neither').waitFor();
    const alert = page.getByRole('alert').filter({ hasText: 'Some fields are not valid.' });
    expect(await alert.textContent()).toMatch(/Request id: \S+/);
    await shot(page, 'preferences-refused-en-light');
    expect(await mine('GET', '/api/notification-preferences/settings')).toEqual(stored);
    await context.close();
  }, 180_000);

  it('marks several selected messages read and deletes several at once; the API and the bell follow', async () => {
    await mine('POST', '/api/in-app-messages/read-all');
    for (const name of ['Batch A', 'Batch B', 'Batch C', 'Batch D']) await send(name);
    await signIn('en', 'light');
    await bell(4).waitFor();
    const row = (title: string) => page.locator('tr.ant-table-row').filter({ hasText: title });
    await page.goto(`${origin}/notifications?keyword=Batch`);
    await row('Batch D').waitFor();
    expect(await page.locator('tr.ant-table-row').count()).toBe(4);

    // two selected, marked read in one call
    await row('Batch A').getByRole('checkbox').check();
    await row('Batch B').getByRole('checkbox').check();
    await page.getByText('2 selected').waitFor();
    const read = page.waitForResponse((r) => r.url().endsWith('/api/in-app-messages/batch-read'));
    await page.getByRole('button', { name: 'Mark selected read' }).click();
    expect((await read).status()).toBe(200);
    await page.getByText('Marked read: 2').waitFor();
    await bell(2).waitFor();
    await row('Batch A').getByText('Batch A (unread)').waitFor({ state: 'detached' });
    await row('Batch C').getByText('Batch C (unread)').waitFor();
    expect(await page.getByText('2 selected').count()).toBe(0); // the selection is cleared

    // one read and one unread selected, deleted after the confirmation in place
    await row('Batch A').getByRole('checkbox').check();
    await row('Batch C').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    const confirm = page.getByRole('group', { name: 'Delete these messages? This cannot be undone.' });
    await shot(page, 'inbox-confirm-delete-en-light');
    const removed = page.waitForResponse(
      (r) => r.url().endsWith('/api/in-app-messages/batch') && r.request().method() === 'DELETE',
    );
    await confirm.getByRole('button', { name: 'Delete' }).click();
    expect((await removed).status()).toBe(200);
    await toastShown(page, 'Deleted: 2');
    await row('Batch C').waitFor({ state: 'detached' });
    await bell(1).waitFor();
    expect((await page.locator('tr.ant-table-row').allTextContents()).join('|')).not.toContain('Batch A');
    await page.getByText('2 in all').waitFor();

    const left = (await mine('GET', '/api/in-app-messages?keyword=Batch')) as {
      list: { title: string; isRead: boolean }[];
    };
    expect(left.list.map((m) => [m.title, m.isRead]).sort()).toEqual([
      ['Batch B', true],
      ['Batch D', false],
    ]);
    expect((await mine('GET', '/api/in-app-messages/unread-count')).count).toBe(1);
    await context.close();
  }, 180_000);
});
