// End to end: the identity pages of the built console in real Chromium, served by the service
// itself (packages/console/dist). A tenant administrator makes a role that shows one page, gives it
// to a new user; that user then sees only that page in the navigation.
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/platform/net/free-port.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_PASSWORD } from '../helpers/config.ts';

import { assertConsoleBuilt, CHROMIUM, shot } from './console-browser.ts';

const VIEWER_PASSWORD = 'Viewer#Pass2026';

describe.skipIf(!existsSync(CHROMIUM))('identity pages in Chromium', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    // not built here: a build empties dist/ under the other browser test files running beside
    assertConsoleBuilt();
    const port = await freeLoopbackPort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { PUBLIC_BASE_URL: origin } });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(path: string, language: 'en' | 'zh-CN' = 'en', theme: 'light' | 'dark' = 'light') {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await context.addInitScript(
      ([l, th]) => {
        localStorage.setItem('atrium.language', l);
        localStorage.setItem('atrium.theme', th);
      },
      [language, theme],
    );
    const page = await context.newPage();
    await page.goto(`${origin}${path}`);
    return page;
  }
  async function signIn(page: Page, username: string, password: string) {
    await page.getByLabel('Tenant code').fill('demo');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Home' }).waitFor();
  }
  /** A node's checkbox in the open tab's tree. */
  const check = (dialog: Locator, title: string) =>
    dialog
      .getByRole('tabpanel')
      .locator('.ant-tree-treenode')
      .filter({ has: dialog.page().getByText(title, { exact: true }) })
      .locator('.ant-tree-checkbox');
  /** The labels of the navigation's entries, every directory opened. */
  async function navigation(page: Page) {
    const nav = page.getByRole('navigation', { name: 'Home' });
    const closed = nav.locator('.ant-menu-submenu:not(.ant-menu-submenu-open) > .ant-menu-submenu-title');
    while ((await closed.count()) > 0) {
      await closed.first().click();
      await page.waitForTimeout(100);
    }
    await page.waitForTimeout(300);
    return (await nav.locator('.ant-menu-title-content').allTextContents()).map((s) => s.trim());
  }

  it('an administrator gives a new user a role with one page; that user sees only it', async () => {
    const page = await open('/login');
    await signIn(page, 'admin', ADMIN_PASSWORD);

    // a role that shows the users page and may list users
    await page.goto(`${origin}/system/roles`);
    await page.getByRole('button', { name: 'New role' }).click();
    const roleDialog = page.getByRole('dialog');
    await roleDialog.getByLabel('Name').fill('User viewer');
    await roleDialog.getByLabel('Code').fill('user-viewer');
    await roleDialog.getByRole('tab', { name: 'Menus' }).click();
    await check(roleDialog, 'Users').click();
    await roleDialog.getByRole('tab', { name: 'Permissions' }).click();
    await roleDialog
      .getByRole('tabpanel')
      .locator('.ant-tree-treenode')
      .filter({ has: page.getByText('system', { exact: true }) })
      .locator('.ant-tree-switcher')
      .click();
    await check(roleDialog, 'system:user:list').click();
    await roleDialog.getByRole('button', { name: 'Save' }).click();
    await roleDialog.waitFor({ state: 'hidden' });
    await page.getByRole('cell', { name: 'user-viewer' }).waitFor();

    // a user: a taken username comes back as an error on its field, with the request id above
    await page.goto(`${origin}/system/users`);
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Username').fill('admin');
    await dialog.getByLabel('Password', { exact: true }).fill(VIEWER_PASSWORD);
    await dialog.getByLabel('Nickname').fill('Vera Viewer');
    await dialog.getByLabel('Roles').click();
    await page.keyboard.type('User viewer');
    await page.locator('.ant-select-item-option').filter({ hasText: 'User viewer' }).click();
    await page.keyboard.press('Escape');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Already exists.', { exact: true }).waitFor(); // the field's own message
    expect(await dialog.getByRole('alert').first().textContent()).toMatch(/Request id: \S+/);
    await shot(page, 'user-form-error-en-light');
    await dialog.getByLabel('Username').fill('vera');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('cell', { name: 'vera', exact: true }).waitFor();

    // the list's state is in the URL
    await page.getByLabel('Username, nickname, email or phone').fill('vera');
    await page.getByLabel('Username, nickname, email or phone').press('Enter');
    await page.waitForURL(/keyword=vera/);
    await page.reload();
    await page.getByRole('cell', { name: 'vera', exact: true }).waitFor();
    expect(await page.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(1);

    // the administrator sees the whole System directory
    expect(await navigation(page)).toEqual(expect.arrayContaining(['System', 'Users', 'Roles', 'Departments']));

    // sign out, sign in as the new user
    await page.getByRole('button', { name: 'admin' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await signIn(page, 'vera', VIEWER_PASSWORD);
    expect(await navigation(page)).toEqual(['System', 'Users']);
    await page.goto(`${origin}/system/users`);
    await page.getByRole('cell', { name: 'vera', exact: true }).waitFor();
    // listing only: no button for what the role does not grant
    expect(await page.getByRole('button', { name: 'New user' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    await page.context().close();
  }, 240_000);
});
