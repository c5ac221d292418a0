// Accessibility as a test (CONSOLE.md): every page the console has, in both languages and both
// themes, checked by axe-core (WCAG 2.1 A and AA rules) in Chromium against the service serving the
// built console. A serious or critical violation fails the test, named by rule, element, page,
// language and theme. axe runs from the installed axe-core package: nothing is fetched.
//
// Two pairings, not all four: what axe finds depends on the theme (colours, contrast) or on the
// language (the lang attribute, names and labels in the translated text), never on the two
// together, so each page in zh-CN/light and en/dark meets every rule in both themes and both
// languages, in half the time of the four.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncTasks } from '../../src/modules/tasks/tables.ts';
import { postFile } from '../drive/uploads-helpers.ts';
import { ADMIN_PASSWORD, call } from '../helpers/app.ts';
import { type ConsoleSite, hasChromium, type Language, startConsoleSite, type Theme } from './console-browser.ts';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const COMBINATIONS: [Language, Theme][] = [
  ['zh-CN', 'light'],
  ['en', 'dark'],
];

type Target = {
  name: string;
  /** a path of the service (or a full URL) */
  path: string;
  /** signed in as the demo administrator */
  signedIn: boolean;
  /** signed in as the platform administrator instead (pages of platform:* codes) */
  platform?: true;
  /** what shows that the page has loaded */
  ready: (page: Page) => Promise<unknown>;
};

describe.skipIf(!hasChromium)('accessibility of every console page (axe, WCAG 2.1 A/AA)', () => {
  let site: ConsoleSite;
  const targets: Target[] = [];

  const api = async (method: 'GET' | 'POST', url: string, body?: object) => {
    const res = await call(site.t.app, method, url, { token: site.t.demoAdminToken, ...(body ? { body } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  const h1 = (page: Page) => page.locator('h1').first().waitFor();

  beforeAll(async () => {
    site = await startConsoleSite();
    const t = site.t;

    // a real OAuth client for the consent page
    const redirectUri = 'http://127.0.0.1:9/cb';
    const app = await api('POST', '/api/open-platform/apps', {
      name: 'Calendar sync',
      homepageUrl: 'https://calendar.example/',
      clientType: 'confidential',
      grantTypes: ['authorization_code'],
      redirectUris: [redirectUri],
      allowedScopes: ['openid', 'profile', 'email', 'drive:read'],
    });
    const consent = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid profile email drive:read',
      state: 'axe-state',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });

    // share links: a folder behind a password, a file, a collection
    const spaceId = (await api('POST', '/api/drive/spaces', { type: 'team', name: 'Axe' })).id;
    const folder = await api('POST', '/api/drive/nodes/folder', { spaceId, name: 'Reports' });
    const inbox = await api('POST', '/api/drive/nodes/folder', { spaceId, name: 'Inbox' });
    const uploaded = await postFile(t, t.demoAdminToken, `/api/drive/nodes/upload?spaceId=${spaceId}`, {
      name: 'notes.txt',
      data: Buffer.from('Quarterly notes\n'),
      contentType: 'text/plain',
    });
    if (uploaded.statusCode !== 201) throw new Error(`upload: ${uploaded.statusCode} ${uploaded.body}`);
    const fileId = uploaded.json().data.id;
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const link = (body: object) => api('POST', '/api/drive/share-links', { expiresAt, ...body });
    const locked = await link({ nodeId: folder.id, password: 'correct horse 7' });
    const file = await link({ nodeId: fileId, capabilities: ['preview', 'download'] });
    const collect = await link({ nodeId: inbox.id, kind: 'collect', collect: { requireName: true, maxFiles: 5 } });

    // the task drawer's states: a finished export (download) and one in progress (progress bar, cancel),
    // the latter written directly so that it stays running
    const exported = await api('POST', '/api/export-jobs/operation-logs', {});
    const me = await api('GET', '/api/auth/me');
    await t.database.db.insert(asyncTasks).values({
      tenantId: t.demoTenantId,
      ownerUserId: me.user.id,
      kind: 'export.operation_logs',
      status: 'running',
      progress: 35,
      startedAt: new Date(),
    });
    // a user holding an active and a disabled role, for the user detail page
    const grants = await api('POST', '/api/roles', {
      code: 'axe-grants',
      name: 'Axe grants',
      permissions: ['system:user:list', 'system:role:list'],
    });
    const retired = await api('POST', '/api/roles', {
      code: 'axe-retired',
      name: 'Axe retired',
      permissions: ['system:user:delete'],
      status: 'disabled',
    });
    const person = await api('POST', '/api/users', {
      username: 'axe-person',
      password: 'Axe#Person2026',
      nickname: 'Axe person',
      roleIds: [grants.id, retired.id],
    });
    // the organisation pages with something in them: a department with a sub-department and a
    // user (the detail pane and its users table), a position, a user group with that user
    const office = await api('POST', '/api/departments', { name: 'Head office' });
    await api('POST', '/api/departments', { name: 'Research', parentId: office.id });
    await api('POST', '/api/departments', { name: 'Sales', parentId: office.id, status: 'disabled' });
    const member = await api('POST', '/api/users', {
      username: 'axe-member',
      password: 'Member#Pass2026',
      nickname: 'Axe Member',
      departmentId: office.id,
    });
    await api('POST', '/api/positions', { code: 'eng', name: 'Engineer' });
    const group = await api('POST', '/api/user-groups', { name: 'On call' });
    const members = await call(t.app, 'PUT', `/api/user-groups/${group.id}/members`, {
      token: t.demoAdminToken,
      body: { userIds: [member.id] },
    });
    if (members.statusCode !== 200) throw new Error(`PUT members: ${members.statusCode} ${members.body}`);

    targets.push(
      { name: 'sign-in', path: '/login', signedIn: false, ready: h1 },
      {
        name: 'dashboard with charts',
        path: '/',
        signedIn: true,
        ready: (p) => p.locator('[data-testid=trend-operations] svg').waitFor(),
      },
      {
        name: 'task drawer (open)',
        // on a light page: the drawer is the shell's, the same on every page
        path: '/profile?tab=password',
        signedIn: true,
        ready: async (p) => {
          // the page first, so the click lands on a settled shell
          await h1(p);
          await p.getByTestId('tasks-button').click();
          await p.locator('[data-testid=task-item][data-status=running]').waitFor();
          await p
            .locator('[data-testid=task-item][data-status=succeeded]')
            .filter({ hasText: `#${exported.id}` })
            .waitFor();
        },
      },
      {
        name: 'unbuilt menu page',
        path: '/system/dictionaries',
        signedIn: true,
        ready: (p) => p.locator('.ant-result-title').waitFor(),
      },
      {
        name: 'users',
        path: '/system/users',
        signedIn: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
      {
        name: 'roles',
        path: '/system/roles',
        signedIn: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
      {
        // a search keeps the tree to a few rows of each kind: axe on all ~150 costs seconds a view
        name: 'menus (read-only for a tenant)',
        path: '/system/menus?keyword=system%3Arole',
        signedIn: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
      {
        name: 'departments',
        path: `/system/departments?id=${office.id}`,
        signedIn: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
      {
        name: 'user detail: details',
        path: `/system/users/${person.id}`,
        signedIn: true,
        ready: (p) => p.locator('.ant-descriptions').waitFor(),
      },
      {
        name: 'user detail: what this person can do',
        path: `/system/users/${person.id}?tab=permissions`,
        signedIn: true,
        ready: (p) => p.getByRole('tabpanel').locator('li').first().waitFor(),
      },
      {
        name: 'user detail: menus they see',
        path: `/system/users/${person.id}?tab=menus`,
        signedIn: true,
        ready: (p) => p.getByRole('tabpanel').waitFor(),
      },
      {
        name: 'positions',
        path: '/system/positions',
        signedIn: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
      {
        name: 'user groups',
        path: '/system/user-groups',
        signedIn: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
      { name: 'notification inbox', path: '/notifications', signedIn: true, ready: h1 },
      { name: 'notification preferences', path: '/notifications?tab=preferences', signedIn: true, ready: h1 },
      {
        name: 'OAuth consent',
        path: `/oauth2/authorize?${consent}`,
        signedIn: true,
        ready: (p) => p.locator('[data-testid=redirect-host]').waitFor(),
      },
      { name: 'profile: details', path: '/profile', signedIn: true, ready: h1 },
      {
        name: 'profile: password',
        path: '/profile?tab=password',
        signedIn: true,
        ready: (p) => p.locator('input[autocomplete=new-password]').first().waitFor(),
      },
      {
        name: 'profile: sign-in records',
        path: '/profile?tab=logins',
        signedIn: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
      {
        name: 'profile: operation records',
        path: '/profile?tab=operations',
        signedIn: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
      { name: 'share: password prompt', path: new URL(locked.url).pathname, signedIn: false, ready: h1 },
      {
        name: 'share: a file',
        path: new URL(file.url).pathname,
        signedIn: false,
        ready: (p) => p.getByRole('heading', { name: 'notes.txt', level: 1 }).waitFor(),
      },
      { name: 'share: collection', path: new URL(collect.url).pathname, signedIn: false, ready: h1 },
      // last: the platform administrator's pages, in a context signed in as them
      {
        name: 'tenants',
        path: '/platform/tenants',
        signedIn: true,
        platform: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
      {
        name: 'menus (platform administrator)',
        path: '/system/menus?keyword=system%3Arole',
        signedIn: true,
        platform: true,
        ready: (p) => p.locator('.ant-table-row').first().waitFor(),
      },
    );
  }, 240_000);

  afterAll(async () => {
    await site?.close();
  });

  it('has no serious or critical violation on any page, language or theme', async () => {
    const started = performance.now();
    const found: string[] = [];
    const checked: string[] = [];
    let axeMs = 0;
    // one context per language and theme, side by side in the one browser, each signed in once
    // through the sign-in page and then reused for every page
    const run = async ([language, theme]: [Language, Theme]) => {
      let page = await site.page({ language, theme });
      let signedIn: 'demo' | 'platform' | null = null;
      for (const target of targets) {
        const as = target.platform ? 'platform' : target.signedIn ? 'demo' : null;
        if (as && as !== signedIn) {
          // another person: a fresh context, nothing kept from the first
          if (signedIn) {
            await page.context().close();
            page = await site.page({ language, theme });
          }
          await page.goto(`${site.base}/login`);
          // an empty tenant code signs in to the platform
          await page.locator('#tenantCode').fill(as === 'demo' ? 'demo' : '');
          await page.locator('input[autocomplete=username]').fill('admin');
          await page.locator('input[autocomplete=current-password]').fill(ADMIN_PASSWORD);
          await page.locator('button[type=submit]').click();
          await page.waitForURL((u) => u.pathname === '/');
          signedIn = as;
        }
        await page.goto(`${site.base}${target.path}`);
        await target.ready(page);
        // antd's loading fades and colour transitions done: axe reads the colours as they stay
        await page.waitForFunction(() => document.querySelectorAll('.ant-spin-spinning').length === 0);
        await page.waitForTimeout(400);
        expect(await page.evaluate(() => document.documentElement.lang)).toBe(language);
        // only violations are read: axe skips gathering every passing node (its advice for large pages)
        const a0 = performance.now();
        const result = await new AxeBuilder({ page })
          .withTags(TAGS)
          .options({ resultTypes: ['violations'] })
          .analyze();
        axeMs += performance.now() - a0;
        checked.push(`${target.name} ${language} ${theme}`);
        for (const v of result.violations) {
          if (v.impact !== 'serious' && v.impact !== 'critical') continue;
          for (const node of v.nodes)
            found.push(
              `${v.id} (${v.impact}) on ${target.name} [${language}, ${theme}]: ${node.target.join(' ')} — ${node.failureSummary?.split('\n').slice(1).join(' ').trim()}`,
            );
        }
      }
      await page.context().close();
    };
    await Promise.all(COMBINATIONS.map(run));
    console.log(
      `axe: ${(axeMs / 1000).toFixed(1)} s in axe, ${checked.length} page views in ${((performance.now() - started) / 1000).toFixed(1)} s, ${found.length} serious or critical`,
    );
    found.sort();
    expect(found, found.join('\n')).toEqual([]);
    // 2 contexts side by side over ~25 pages: minutes when other tests share the 2 cores
  }, 600_000);
});
