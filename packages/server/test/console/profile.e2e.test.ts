import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, call, login } from '../helpers/app.ts';
import { type ConsoleSite, hasChromium, shot, startConsoleSite } from './console-browser.ts';

const NEW_PASSWORD = 'a fresh horse 9';

describe.skipIf(!hasChromium)('the profile page in Chromium', () => {
  let site: ConsoleSite;

  beforeAll(async () => {
    site = await startConsoleSite();
    // enough sign-ins for a second page of records at 10 a page
    for (let i = 0; i < 12; i++) await login(site.t.app, 'admin', ADMIN_PASSWORD, 'demo');
    // and an operation of theirs, so the operation records are not empty whatever ran before
    const written = await call(site.t.app, 'POST', '/api/dict-types', {
      token: site.t.demoAdminToken,
      body: { code: 'profile_e2e', name: 'Profile e2e' },
    });
    if (written.statusCode !== 201) throw new Error(`POST /api/dict-types: ${written.statusCode} ${written.body}`);
  }, 240_000);

  afterAll(async () => {
    await site?.close();
  });

  async function signIn(page: Page, password = ADMIN_PASSWORD) {
    await page.goto(`${site.base}/login`);
    await page.locator('#tenantCode').fill('demo');
    await page.locator('input[autocomplete=username]').fill('admin');
    await page.locator('input[autocomplete=current-password]').fill(password);
    await page.locator('button[type=submit]').click();
    await page.waitForURL((u) => u.pathname === '/');
  }

  it('is reached from the user menu and shows who is signed in', async () => {
    const page = await site.page({ language: 'en' });
    await signIn(page);
    await page.getByRole('button', { name: 'admin' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).click();
    await page.waitForURL((u) => u.pathname === '/profile');
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    const details = page.getByRole('tabpanel');
    await details.getByText('Username').waitFor();
    expect(await details.textContent()).toContain('admin');
    expect(await details.textContent()).toContain('(demo)');
    await page.context().close();
  }, 180_000);

  it('pages the sign-in records on the server, the page in the URL', async () => {
    const page = await site.page({ language: 'en' });
    await signIn(page);
    await page.goto(`${site.base}/profile?tab=logins&page=2&pageSize=10`);
    await page.locator('.ant-table-row').first().waitFor();
    expect(await page.locator('.ant-pagination-item-active').textContent()).toBe('2');
    await page.getByText(/^1\d records$/).waitFor(); // 12 here, 1 at start, 1 by this page
    await page.locator('.ant-pagination-item-1').click();
    await page.waitForURL(/page=1/);
    await expect.poll(() => page.locator('.ant-table-row').count()).toBe(10);
    await page.getByRole('tab', { name: 'Operation records' }).click();
    await page.waitForURL((u) => u.searchParams.get('tab') === 'operations' && !u.searchParams.has('page'));
    await page.locator('.ant-table-row').first().waitFor();
    await page.context().close();
  }, 180_000);

  it('changes the password: refusals on their fields, then this sign-in stays and the others end', async () => {
    const other = await login(site.t.app, 'admin', ADMIN_PASSWORD, 'demo');
    const page = await site.page({ language: 'en' });
    await signIn(page);
    await page.goto(`${site.base}/profile?tab=password`);
    const current = page.getByLabel('Current password');
    const fresh = page.getByLabel('New password', { exact: true });
    const again = page.getByLabel('New password again');

    // the two new ones differ: said before anything is sent
    await current.fill(ADMIN_PASSWORD);
    await fresh.fill(NEW_PASSWORD);
    await again.fill('something else');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('The two new passwords differ.').waitFor();

    // the server's refusals, each under its own field, with the request id above
    await current.fill('not my password');
    await again.fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    const oldItem = page.locator('.ant-form-item').filter({ has: current });
    await oldItem.getByText('This is not your current password.').waitFor();
    expect(await page.getByRole('alert').first().textContent()).toMatch(/Request id: \S+/);

    await current.fill(ADMIN_PASSWORD);
    await fresh.fill('short');
    await again.fill('short');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page
      .locator('.ant-form-item')
      .filter({ has: fresh })
      .getByText(/^At least \d+ characters\.$/)
      .waitFor();
    await shot(page, 'profile-password-errors-en-light');

    await fresh.fill(NEW_PASSWORD);
    await again.fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').getByText('You stay signed in here.', { exact: false }).waitFor();
    expect(await current.inputValue()).toBe('');
    await shot(page, 'profile-password-changed-en-light');

    // still signed in here, after a reload too (the refresh cookie); the other sign-in has ended
    await page.reload();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/profile');
    expect((await call(site.t.app, 'GET', '/api/auth/me', { token: other })).statusCode).toBe(401);
    await login(site.t.app, 'admin', NEW_PASSWORD, 'demo');
    await page.context().close();
  }, 180_000);
});
