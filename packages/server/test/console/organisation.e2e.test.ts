import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, call } from '../helpers/app.ts';
import { type ConsoleSite, hasChromium, shot, startConsoleSite, toastShown } from './console-browser.ts';

const MEMBER_PASSWORD = 'Member#Pass2026';
const VIEWER_PASSWORD = 'Viewer#Pass2026';

describe.skipIf(!hasChromium)('the organisation pages in Chromium', () => {
  let site: ConsoleSite;
  let admin: string;

  /** The demo administrator's API call, which must succeed; its data. */
  const api = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: object) => {
    const res = await call(site.t.app, method, url, { token: admin, ...(body ? { body } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  type Node = { id: number; name: string; parentId: number | null; headUserId: number | null; children: Node[] };
  const findIn = (nodes: Node[], name: string): Node | undefined =>
    nodes.find((n) => n.name === name) ?? nodes.map((n) => findIn(n.children, name)).find(Boolean);
  const department = async (name: string) => findIn(await api('GET', '/api/departments'), name);

  beforeAll(async () => {
    site = await startConsoleSite();
    admin = site.t.demoAdminToken;
  }, 240_000);

  afterAll(async () => {
    await site?.close();
  });

  async function signIn(page: Page, username = 'admin', password = ADMIN_PASSWORD) {
    await page.goto(`${site.base}/login`);
    await page.locator('#tenantCode').fill('demo');
    await page.locator('input[autocomplete=username]').fill(username);
    await page.locator('input[autocomplete=current-password]').fill(password);
    await page.locator('button[type=submit]').click();
    await page.waitForURL((u) => u.pathname === '/');
  }
  const treeNode = (page: Page, name: string) =>
    page.locator('.ant-tree-node-content-wrapper').filter({ has: page.getByText(name, { exact: true }) });
  /**
   * Picks a user in an open user picker by typing part of their name (the server searches). A
   * multiple picker stays open: Escape closes it (a single one closes by itself, and Escape would
   * close the dialog).
   */
  async function pickUser(page: Page, typed: string, label: string, multiple = false) {
    await page.keyboard.type(typed);
    // the search's answer redraws the options: click once it has come (the spinner is gone)
    await page.locator('.ant-select-open.ant-select-loading').waitFor({ state: 'detached' });
    await page.locator('.ant-select-item-option').filter({ hasText: label }).click();
    // the choice is shown in the field it was made in
    await page
      .locator('.ant-select-focused')
      .locator('.ant-select-content-has-value, .ant-select-selection-item')
      .filter({ hasText: label })
      .first()
      .waitFor();
    if (multiple) await page.keyboard.press('Escape');
  }

  it('an administrator builds departments, a position and a user group with a member; the API confirms each', async () => {
    const me = await api('GET', '/api/auth/me');
    const page = await site.page({ language: 'en' });
    await signIn(page);

    // a top-level department, then one under it through the selected department's button
    await page.goto(`${site.base}/system/departments`);
    await page.getByRole('heading', { name: 'Departments', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New department' }).click();
    let dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Head office');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // the new department is selected: its details are beside the tree
    await page.getByRole('heading', { name: 'Head office', level: 2 }).waitFor();
    const office = await department('Head office');
    expect(office?.parentId).toBeNull();
    expect(page.url()).toContain(`id=${office?.id}`);

    await page.getByRole('button', { name: 'New sub-department' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Research');
    // the parent is the selected department already; the leader is searched on the server
    await dialog.getByText('Head office', { exact: true }).waitFor();
    await dialog.getByLabel('Leader').click();
    await pickUser(page, 'admi', 'admin');
    await dialog.getByLabel('Order').fill('3');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Research', level: 2 }).waitFor();
    const research = await department('Research');
    expect(research).toMatchObject({ parentId: office?.id, headUserId: me.user.id, sort: 3 });
    expect(await page.getByText('Head office / Research', { exact: true }).count()).toBe(1);

    // moving: the parent picker offers neither the department itself nor anything below it
    await treeNode(page, 'Head office').click();
    await page.getByRole('heading', { name: 'Head office', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByLabel('Name').inputValue()).toBe('Head office');
    await dialog.getByLabel('Parent department').click();
    const options = page.locator('.ant-select-tree-treenode');
    await options.filter({ hasText: 'Research' }).waitFor();
    for (const name of ['Head office', 'Research'])
      expect(await options.filter({ hasText: name }).getAttribute('class')).toContain('treenode-disabled');
    // the title takes the focus, closing the picker; then the dialog is left unchanged
    await dialog.getByText('Edit department').click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });

    // a position
    await page.goto(`${site.base}/system/positions`);
    await page.getByRole('button', { name: 'New position' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Engineer');
    await dialog.getByLabel('Code').fill('bad code');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Use letters, digits and _ . - only', { exact: false }).waitFor();
    await dialog.getByLabel('Code').fill('eng');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('cell', { name: 'Engineer', exact: true }).waitFor();
    const positions = await api('GET', '/api/positions?keyword=eng');
    expect(positions.list).toEqual([expect.objectContaining({ code: 'eng', name: 'Engineer', status: 'active' })]);

    // a user group, and a member added through its dialog (a user of Research, made by the API)
    const dora = await api('POST', '/api/users', {
      username: 'dora',
      password: MEMBER_PASSWORD,
      nickname: 'Dora Duty',
      departmentId: research?.id,
    });
    await page.goto(`${site.base}/system/user-groups`);
    await page.getByRole('button', { name: 'New user group' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('On call');
    await dialog.getByLabel('Remark').fill('Nights and weekends');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.locator('.ant-table-row').filter({ hasText: 'On call' });
    await row.waitFor();
    const groups = await api('GET', '/api/user-groups?keyword=On%20call');
    expect(groups.list).toEqual([expect.objectContaining({ name: 'On call', remark: 'Nights and weekends' })]);
    const groupId = groups.list[0].id;

    await row.getByRole('button', { name: 'Members' }).click();
    dialog = page.getByRole('dialog', { name: 'Members of “On call”' });
    await dialog.getByText('No members yet.').waitFor();
    await dialog.getByLabel('Add members').click();
    await pickUser(page, 'dora', 'Dora Duty (dora)', true);
    await dialog.getByText('On saving: 1 to add, 0 to remove.').waitFor();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await toastShown(page, 'Members updated.');
    await row.getByRole('cell', { name: '1', exact: true }).waitFor();
    const members = await api('GET', `/api/user-groups/${groupId}/members`);
    expect(members.list).toEqual([{ id: dora.id, username: 'dora', nickname: 'Dora Duty' }]);

    // the department's users, paged on the server
    await page.goto(`${site.base}/system/departments?id=${office?.id}`);
    await page.getByRole('heading', { name: 'Head office', level: 2 }).waitFor();
    expect(await page.getByRole('cell', { name: 'dora', exact: true }).count()).toBe(0);
    // the box follows the URL, which changes a moment after the click: no check() that asserts at once
    await page.getByLabel('Include users of sub-departments').click();
    await page.waitForURL(/sub=1/);
    await page.getByRole('cell', { name: 'dora', exact: true }).waitFor();
    await page.context().close();
  }, 240_000);

  it('a refused delete says why in words, with the request id; nothing is deleted', async () => {
    const holding = await api('POST', '/api/departments', { name: 'Warehouse' });
    await api('POST', '/api/users', {
      username: 'walt',
      password: MEMBER_PASSWORD,
      nickname: 'Walt',
      departmentId: holding.id,
    });
    const page = await site.page({ language: 'en' });
    await signIn(page);
    await page.goto(`${site.base}/system/departments?id=${holding.id}`);
    await page.getByRole('heading', { name: 'Warehouse', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Users belong to the department' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      /Users belong to the department: move them to another department first\.\s*Request id: \S+/,
    );
    await shot(page, 'departments-delete-refused-en');
    expect(await department('Warehouse')).toMatchObject({ id: holding.id });

    // the same in Chinese
    const zh = await site.page({ language: 'zh-CN' });
    await signIn(zh);
    await zh.goto(`${site.base}/system/departments?id=${holding.id}`);
    await zh.getByRole('heading', { name: 'Warehouse', level: 2 }).waitFor();
    // antd spaces out a two-character Chinese label: 删 除
    await zh.getByRole('button', { name: /^删\s?除$/ }).click();
    await zh.getByRole('dialog').getByRole('button').last().click();
    await zh
      .getByRole('alert')
      .filter({ hasText: '该部门下还有用户' })
      .getByText(/请求编号：\S+/)
      .waitFor();
    await page.context().close();
    await zh.context().close();
  }, 240_000);

  it('a person who may only look sees no button that writes', async () => {
    const role = await api('POST', '/api/roles', {
      code: 'org-viewer',
      name: 'Organisation viewer',
      permissions: ['system:dept:list', 'system:position:list', 'system:user-group:list'],
    });
    await api('POST', '/api/users', {
      username: 'olive',
      password: VIEWER_PASSWORD,
      nickname: 'Olive',
      roleIds: [role.id],
    });
    const dept = await api('POST', '/api/departments', { name: 'Archive' });
    const group = await api('POST', '/api/user-groups', { name: 'Readers' });
    await api('POST', '/api/positions', { code: 'clerk', name: 'Clerk' });
    const page = await site.page({ language: 'en' });
    await signIn(page, 'olive', VIEWER_PASSWORD);

    await page.goto(`${site.base}/system/departments?id=${dept.id}`);
    await page.getByRole('heading', { name: 'Archive', level: 2 }).waitFor();
    for (const name of ['New department', 'New sub-department', 'Edit', 'Delete'])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);

    await page.goto(`${site.base}/system/positions`);
    await page.getByRole('cell', { name: 'Clerk', exact: true }).waitFor();
    for (const name of ['New position', 'Edit', 'Delete', 'Delete selected'])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    expect(await page.locator('.ant-table-selection-column').count()).toBe(0);

    await page.goto(`${site.base}/system/user-groups`);
    const row = page.locator('.ant-table-row').filter({ hasText: 'Readers' });
    await row.waitFor();
    for (const name of ['New user group', 'Edit', 'Delete'])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    // members can be read, not changed
    await row.getByRole('button', { name: 'Members' }).click();
    const dialog = page.getByRole('dialog', { name: `Members of “${group.name}”` });
    await dialog.getByText('No members yet.').waitFor();
    expect(await dialog.getByLabel('Add members').count()).toBe(0);
    expect(await dialog.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await page.context().close();
  }, 240_000);
});
