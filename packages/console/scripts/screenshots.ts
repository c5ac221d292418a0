// Screenshots of the console, taken from a running service with Debian's Chromium, after
// `npm start`. It signs in as the demo tenant's administrator, so the service needs
// CAPTCHA_ENABLED=false and the password is given as SEED_ADMIN_PASSWORD (the one the first start
// took). ATRIUM_URL names another service.
// - `npm run screenshots`: the README's pages (docs/screenshots/), in both languages.
// - `npm run screenshots -- --review`: every page of the console in both languages and both
//   themes, with the user form open, into screenshots-review/ (not committed), to look at a
//   change with your own eyes. The test suite takes no screenshots: it asserts behaviour.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

const base = process.env.ATRIUM_URL ?? 'http://127.0.0.1:3000';
const password = process.env.SEED_ADMIN_PASSWORD;
const review = process.argv.includes('--review');
const root = join(import.meta.dirname, '..', '..', '..');
const out = review ? join(root, 'screenshots-review') : join(root, 'docs', 'screenshots');
if (!password) {
  console.error('screenshots: set SEED_ADMIN_PASSWORD to the demo administrator’s password');
  process.exit(64);
}

type Shot = { path: string; name: string; ready: string; afterReady?: (page: Page) => Promise<void> };

/** The pages a newcomer sees first (the README). */
const README: Shot[] = [
  { path: '/', name: 'dashboard', ready: 'h1' },
  { path: '/system/users', name: 'users', ready: '.ant-table-row' },
  { path: '/system/roles', name: 'roles', ready: '.ant-table-row' },
  { path: '/system/departments', name: 'departments', ready: 'h1' },
  { path: '/notifications', name: 'notifications', ready: 'h1' },
];

/** Every page, for review; the user form is opened from the first row of the list. */
const EVERY: Shot[] = [
  ...README,
  {
    path: '/system/users',
    name: 'user-form',
    ready: '.ant-table-row',
    afterReady: async (page) => {
      await page.locator('.ant-table-row').first().getByRole('button').first().click();
      await page.getByRole('dialog').locator('#nickname').waitFor();
    },
  },
  {
    path: '/system/users',
    name: 'user-detail',
    ready: '.ant-table-row',
    afterReady: async (page) => {
      await page.locator('.ant-table-row a').first().click();
      await page.waitForURL((u) => /^\/system\/users\/\d+$/.test(u.pathname));
      await settle(page, '.ant-descriptions');
    },
  },
  { path: '/system/menus', name: 'menus', ready: 'h1' },
  { path: '/system/positions', name: 'positions', ready: 'h1' },
  { path: '/system/user-groups', name: 'user-groups', ready: 'h1' },
  { path: '/notifications?tab=preferences', name: 'preferences', ready: 'h1' },
  { path: '/profile', name: 'profile', ready: 'h1' },
  { path: '/profile?tab=logins', name: 'profile-logins', ready: '.ant-table' },
  { path: '/profile?tab=operations', name: 'profile-operations', ready: '.ant-table' },
  {
    path: '/',
    name: 'task-drawer',
    ready: 'h1',
    afterReady: async (page) => {
      await page.getByTestId('tasks-button').click();
      await page.getByRole('dialog').waitFor();
    },
  },
];

async function settle(page: Page, selector: string) {
  await page.locator(selector).first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.ant-spin-spinning').length === 0);
  await page.waitForTimeout(500); // antd's fades end
}

async function signedIn(context: BrowserContext, language: string, theme: string | null): Promise<Page> {
  await context.addInitScript(
    ([l, t]) => {
      localStorage.setItem('atrium.language', l as string);
      if (t) localStorage.setItem('atrium.theme', t);
    },
    [language, theme],
  );
  const page = await context.newPage();
  page.setDefaultTimeout(90_000); // a busy machine is slow, not stuck
  await page.goto(`${base}/login`);
  await settle(page, 'h1');
  const tag = review ? `-${language}-${theme}` : '';
  if (review || language === 'en') await page.screenshot({ path: join(out, `sign-in${tag}.png`) });
  await page.locator('#tenantCode').fill('demo');
  await page.locator('input[autocomplete=username]').fill('admin');
  await page.locator('input[autocomplete=current-password]').fill(password as string);
  await page.locator('button[type=submit]').click();
  await page.waitForURL((u) => u.pathname === '/');
  return page;
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
mkdirSync(out, { recursive: true });
try {
  const pairs = review
    ? (['zh-CN', 'en'] as const).flatMap((l) => (['light', 'dark'] as const).map((t) => [l, t] as const))
    : (['zh-CN', 'en'] as const).map((l) => [l, null] as const);
  for (const [language, theme] of pairs) {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 760 },
      locale: language,
      colorScheme: theme ?? 'light',
    });
    const page = await signedIn(context, language, theme);
    for (const p of review ? EVERY : README) {
      await page.goto(`${base}${p.path}`);
      await settle(page, p.ready);
      if (p.afterReady) {
        await p.afterReady(page);
        await page.waitForTimeout(500); // a drawer's or dialog's slide ends
      }
      await page.screenshot({ path: join(out, `${p.name}-${language}${theme ? `-${theme}` : ''}.png`) });
    }
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(`screenshots: written to ${out}`);
