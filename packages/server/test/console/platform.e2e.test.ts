import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, call, login } from '../helpers/app.ts';
import { type ConsoleSite, hasChromium, startConsoleSite, toastShown } from './console-browser.ts';

const BOSS_PASSWORD = 'Boss#Pass2026';

describe.skipIf(!hasChromium)('platform pages in Chromium', () => {
  let site: ConsoleSite;

  beforeAll(async () => {
    site = await startConsoleSite();
  }, 240_000);

  afterAll(async () => {
    await site?.close();
  });

  /** Signs in through the sign-in page; an empty tenant code is the platform. */
  async function signIn(page: Page, tenantCode: string, username = 'admin', password = ADMIN_PASSWORD) {
    await page.goto(`${site.base}/login`);
    await page.locator('#tenantCode').fill(tenantCode);
    await page.locator('#username').fill(username);
    await page.locator('#password').fill(password);
    await page.locator('button[type=submit]').click();
    await page.waitForURL((u) => u.pathname === '/');
  }
  /** The first screen only: the menu tree is many screens long. */
  const row = (page: Page, text: string) => page.locator('.ant-table-row').filter({ hasText: text });
  const platformGet = (url: string) => call(site.t.app, 'GET', url, { token: site.t.adminToken });

  it('a platform administrator creates a tenant, its administrator signs in, disabling it signs them out', async () => {
    const page = await site.page({ language: 'en' });
    await signIn(page, '');
    await page.goto(`${site.base}/platform/tenants`);
    await row(page, 'demo').waitFor();

    // the code is checked as typed, then by the server (a taken code lands on its field)
    await page.getByRole('button', { name: 'New tenant' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Tenant code').fill('Acme!');
    await dialog.getByLabel('Name', { exact: true }).fill('Acme Ltd');
    await dialog.getByLabel('Administrator username').fill('boss');
    await dialog.getByLabel('Administrator password').fill(BOSS_PASSWORD);
    const expires = new Date(Date.now() + 10 * 86_400_000);
    const day = `${expires.getFullYear()}-${String(expires.getMonth() + 1).padStart(2, '0')}-${String(expires.getDate()).padStart(2, '0')}`;
    await dialog.getByLabel('Expires').click();
    await dialog.getByLabel('Expires').fill(day);
    await dialog.getByLabel('Expires').press('Enter');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('2–32 lower-case letters, digits or hyphens, starting with a letter or digit.').waitFor();
    await dialog.getByLabel('Tenant code').fill('demo');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Already exists.', { exact: true }).waitFor();
    expect(await dialog.getByRole('alert').first().textContent()).toMatch(/Request id: \S+/);
    await dialog.getByLabel('Tenant code').fill('acme');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('its administrator boss signs in with the tenant code acme').waitFor();
    await row(page, 'acme').getByText('Expires in 10 days').waitFor();

    const listed = await platformGet('/api/tenants?page=1&pageSize=20&keyword=acme');
    const acme = listed.json().data.list[0];
    expect(acme).toMatchObject({ code: 'acme', name: 'Acme Ltd', status: 'active' });
    // the end of the chosen day, where the browser is
    expect(new Date(acme.expiresAt).getDate()).toBe(expires.getDate());

    // its administrator signs in to it, in the browser and by the API
    const boss = await site.page({ language: 'en' });
    await signIn(boss, 'acme', 'boss', BOSS_PASSWORD);
    await boss.getByRole('navigation', { name: 'Home' }).waitFor();
    const bossToken = await login(site.t.app, 'boss', BOSS_PASSWORD, 'acme');
    expect((await call(site.t.app, 'GET', '/api/auth/me', { token: bossToken })).json().data.tenant.code).toBe('acme');

    // the list's filters are in the URL
    await page.getByLabel('Search by name or code').fill('acme');
    await page.getByLabel('Search by name or code').press('Enter');
    await page.waitForURL(/keyword=acme/);
    await expect.poll(() => page.locator('.ant-table-row').count()).toBe(1);

    // an edit: the form loads the tenant, the code stays
    await row(page, 'acme').getByRole('button', { name: 'Edit' }).click();
    await expect.poll(() => dialog.getByLabel('Name', { exact: true }).inputValue()).toBe('Acme Ltd');
    expect(await dialog.getByLabel('Tenant code').getAttribute('readonly')).not.toBeNull();
    await dialog.getByLabel('Name', { exact: true }).fill('Acme Group');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row(page, 'Acme Group').waitFor();

    // disabling asks first, then ends the administrator's sessions and keeps them out
    await row(page, 'acme').getByRole('button', { name: 'Disable' }).click();
    await page.locator('.ant-modal-confirm').getByRole('button', { name: 'Disable' }).click();
    await toastShown(page, '“Acme Group” is disabled: its people were signed out.');
    await row(page, 'acme').getByText('Disabled').waitFor();
    expect((await call(site.t.app, 'GET', '/api/auth/me', { token: bossToken })).statusCode).toBe(401);
    const refused = await call(site.t.app, 'POST', '/api/auth/login', {
      body: { tenantCode: 'acme', username: 'boss', password: BOSS_PASSWORD },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe('auth.tenant_unavailable');
    await boss.reload();
    await boss.waitForURL((u) => u.pathname === '/login');
    await boss.context().close();

    // and enabling lets them back in
    await row(page, 'acme').getByRole('button', { name: 'Enable' }).click();
    await row(page, 'acme').getByText('Active').waitFor();
    await login(site.t.app, 'boss', BOSS_PASSWORD, 'acme');
    await page.context().close();
  }, 240_000);

  it('a platform administrator adds a menu node; a tenant administrator sees the tree read-only', async () => {
    const page = await site.page({ language: 'en' });
    await signIn(page, '');
    await page.goto(`${site.base}/system/menus`);
    await row(page, 'Users').first().waitFor();
    expect(await page.getByText('here you can look, not change').count()).toBe(0);

    // a page under System: a bad permission code comes back on its field
    await row(page, '/system').first().getByRole('button', { name: 'Add below' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.locator('.ant-radio-wrapper-checked').first().textContent()).toBe('Page');
    await dialog.getByLabel('Stored name').fill('Audit trail');
    await dialog.getByLabel('Path').fill('/system/audit-trail');
    await dialog.getByLabel('Permission code').fill('Not A Code');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.locator('.ant-form-item-has-error').filter({ hasText: 'Permission code' }).waitFor();
    await dialog.getByLabel('Permission code').fill('system:audit:list');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row(page, 'Audit trail').waitFor();
    const tree = (await platformGet('/api/menus')).json().data as { path: string; children: object[] }[];
    const system = tree.find((n) => n.path === '/system');
    expect(system?.children).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'Audit trail', type: 'menu', permission: 'system:audit:list' }),
      ]),
    );

    // the demo tenant's administrator: the same tree less the platform's part, and no way to change it
    const tenant = await site.page({ language: 'en' });
    await signIn(tenant, 'demo');
    await tenant.goto(`${site.base}/system/menus`);
    await row(tenant, 'Audit trail').waitFor();
    await tenant.getByText('here you can look, not change').waitFor();
    await tenant.getByRole('button', { name: 'Expand all' }).click();
    await row(tenant, 'system:user:create').first().waitFor();
    expect(await row(tenant, 'platform:tenant:list').count()).toBe(0);
    for (const name of ['New menu', 'Add below', 'Edit', 'Delete'])
      expect(await tenant.getByRole('button', { name }).count(), name).toBe(0);
    await tenant.context().close();

    // a node with children cannot be deleted; a leaf can
    expect(await row(page, '/system').first().getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true);
    await row(page, 'Audit trail').getByRole('button', { name: 'Delete' }).click();
    await page.locator('.ant-modal-confirm').getByRole('button', { name: 'Delete' }).click();
    await row(page, 'Audit trail').waitFor({ state: 'detached' });
    await page.context().close();
  }, 240_000);
});
