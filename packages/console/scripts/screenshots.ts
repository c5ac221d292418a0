// Screenshots of the console's main pages for the README (docs/screenshots/), taken from a running
// service with Debian's Chromium: `npm run screenshots` after `npm start`. It signs in as the demo
// tenant's administrator, so the service needs CAPTCHA_ENABLED=false and the password is given as
// SEED_ADMIN_PASSWORD (the one the first start took). ATRIUM_URL names another service.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

const base = process.env.ATRIUM_URL ?? 'http://127.0.0.1:3000';
const password = process.env.SEED_ADMIN_PASSWORD;
const out = join(import.meta.dirname, '..', '..', '..', 'docs', 'screenshots');
if (!password) {
  console.error('screenshots: set SEED_ADMIN_PASSWORD to the demo administrator’s password');
  process.exit(64);
}

/** The pages a newcomer sees first: path, file name, what shows that it has loaded. */
const PAGES: { path: string; name: string; ready: string }[] = [
  { path: '/', name: 'dashboard', ready: 'h1' },
  { path: '/system/users', name: 'users', ready: '.ant-table-row' },
  { path: '/system/roles', name: 'roles', ready: '.ant-table-row' },
  { path: '/system/departments', name: 'departments', ready: 'h1' },
  { path: '/notifications', name: 'notifications', ready: 'h1' },
];

async function settle(page: Page, selector: string) {
  await page.locator(selector).first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.ant-spin-spinning').length === 0);
  await page.waitForTimeout(500); // antd's fades end
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
mkdirSync(out, { recursive: true });
try {
  for (const language of ['zh-CN', 'en'] as const) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 760 }, locale: language });
    await context.addInitScript((l) => localStorage.setItem('atrium.language', l), language);
    const page = await context.newPage();
    page.setDefaultTimeout(90_000); // a busy machine is slow, not stuck
    await page.goto(`${base}/login`);
    await settle(page, 'h1');
    if (language === 'en') await page.screenshot({ path: join(out, 'sign-in.png') });
    await page.locator('#tenantCode').fill('demo');
    await page.locator('input[autocomplete=username]').fill('admin');
    await page.locator('input[autocomplete=current-password]').fill(password);
    await page.locator('button[type=submit]').click();
    await page.waitForURL((u) => u.pathname === '/');
    for (const p of PAGES) {
      await page.goto(`${base}${p.path}`);
      await settle(page, p.ready);
      await page.screenshot({ path: join(out, `${p.name}-${language}.png`) });
    }
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(`screenshots: written to ${out}`);
