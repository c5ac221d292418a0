import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, call } from '../helpers/app.ts';
import { type ConsoleSite, hasChromium, shot, startConsoleSite } from './console-browser.ts';

describe.skipIf(!hasChromium)('the user detail page in Chromium', () => {
  let site: ConsoleSite;
  let userId: number;

  const api = async (method: 'GET' | 'POST', url: string, body?: object) => {
    const res = await call(site.t.app, method, url, { token: site.t.demoAdminToken, ...(body ? { body } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };

  beforeAll(async () => {
    site = await startConsoleSite();
    const department = await api('POST', '/api/departments', { name: 'Audit office' });
    const position = await api('POST', '/api/positions', { code: 'auditor', name: 'Internal auditor' });
    // the role shows one page: the users list
    const menus: { id: number; path: string; children: unknown[] }[] = await api('GET', '/api/menus');
    const usersPage = menus.flatMap((m) => m.children as typeof menus).find((m) => m.path === '/system/users');
    const auditor = await api('POST', '/api/roles', {
      code: 'auditor',
      name: 'Auditor',
      permissions: ['system:user:list', 'monitor:login-log:list'],
      menuIds: [usersPage?.id],
    });
    const retired = await api('POST', '/api/roles', {
      code: 'retired-admin',
      name: 'Retired admin',
      permissions: ['system:user:delete', 'system:user:list'],
      status: 'disabled',
    });
    const user = await api('POST', '/api/users', {
      username: 'ada',
      password: 'Ada#Pass2026',
      nickname: 'Ada Auditor',
      departmentId: department.id,
      positionIds: [position.id],
      roleIds: [auditor.id, retired.id],
    });
    userId = user.id;
  }, 240_000);

  afterAll(async () => {
    await site?.close();
  });

  async function signIn(page: Page, tenantCode = 'demo') {
    await page.goto(`${site.base}/login`);
    await page.locator('#tenantCode').fill(tenantCode);
    await page.locator('input[autocomplete=username]').fill('admin');
    await page.locator('input[autocomplete=current-password]').fill(ADMIN_PASSWORD);
    await page.locator('button[type=submit]').click();
    await page.waitForURL((u) => u.pathname === '/');
  }
  /** The row of a permission code in the open tab. */
  const codeRow = (page: Page, code: string) =>
    page
      .getByRole('tabpanel')
      .locator('li')
      .filter({ has: page.getByText(code, { exact: true }) });

  it('opens from the users list and shows a code with the role that grants it', async () => {
    const page = await site.page({ language: 'en' });
    await signIn(page);
    await page.goto(`${site.base}/system/users?keyword=ada`);
    await page.getByRole('link', { name: 'ada', exact: true }).click();
    await page.waitForURL((u) => u.pathname === `/system/users/${userId}`);
    await page.getByRole('heading', { name: 'User: ada', level: 1 }).waitFor();
    // the breadcrumb and the menu show where the page sits: under Users, which links back
    const crumbs = page.locator('.ant-breadcrumb');
    expect(await crumbs.getByRole('link', { name: 'Users' }).getAttribute('href')).toBe('/system/users');
    expect(await page.locator('.ant-menu-item-selected').textContent()).toBe('Users');

    // details: department, position and roles by name
    const details = page.getByRole('tabpanel');
    await details.getByText('Audit office').waitFor();
    await details.getByText('Internal auditor').waitFor();
    expect(await details.textContent()).toContain('Auditor');
    expect(await details.textContent()).toContain('Retired admin');

    // what this person can do: the tab goes into the URL
    await page.getByRole('tab', { name: 'What this person can do' }).click();
    await page.waitForURL(/tab=permissions/);
    const listed = codeRow(page, 'system:user:list');
    await listed.waitFor();
    expect(await listed.getByText('Auditor', { exact: true }).count()).toBe(1);
    expect(await listed.textContent()).toContain('Retired admin · disabled, grants nothing');
    // only the disabled role holds it: listed, not granted
    const deleting = codeRow(page, 'system:user:delete');
    expect(await deleting.textContent()).toContain('not granted');
    expect(await codeRow(page, 'monitor:login-log:list').getByText('Auditor', { exact: true }).count()).toBe(1);
    await shot(page, 'permissions-en-light');

    // the filter finds a code
    await page.getByLabel('Find a permission code or role').fill('login-log');
    await codeRow(page, 'system:user:list').waitFor({ state: 'detached' });
    expect(await codeRow(page, 'monitor:login-log:list').count()).toBe(1);

    // reloaded, the same tab; back to the list as it was left
    await page.reload();
    await codeRow(page, 'system:user:list').waitFor();
    await page.getByRole('tab', { name: 'Menus they see' }).click();
    // the page the role shows, under its directory (the navigation's names)
    await page.getByRole('tabpanel').getByText('Users', { exact: true }).waitFor();
    expect(await page.getByRole('tabpanel').getByText('System', { exact: true }).count()).toBe(1);
    await page.goto(`${site.base}/system/users?keyword=ada`);
    await page.getByRole('link', { name: 'ada', exact: true }).click();
    await page.getByRole('link', { name: 'Back to users' }).click();
    await page.waitForURL((u) => u.pathname === '/system/users' && u.search === '?keyword=ada');
    await page.context().close();
  }, 240_000);

  it('says plainly that there is no such user', async () => {
    const page = await site.page({ language: 'en' });
    await signIn(page);
    for (const id of ['999999999', 'abc']) {
      await page.goto(`${site.base}/system/users/${id}`);
      await page.getByRole('heading', { name: 'There is no such user.' }).waitFor();
    }
    await page.context().close();
  }, 180_000);
});
