import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginLogs } from '../../src/modules/identity/tables.ts';
import { trendWindow } from '../../src/modules/ops/status-service.ts';
import { operationLogs } from '../../src/modules/system/tables.ts';
import { ADMIN_PASSWORD } from '../helpers/app.ts';
import { type ConsoleSite, hasChromium, type Language, shot, startConsoleSite, type Theme } from './console-browser.ts';

const DAY = 86_400_000;

describe.skipIf(!hasChromium)('the dashboard charts in Chromium', () => {
  let site: ConsoleSite;
  /** the UTC date three days ago, which the fixtures fill */
  let busyDate: string;

  beforeAll(async () => {
    site = await startConsoleSite();
    const t = site.t;
    const midnight = trendWindow(t.app.ctx.clock()).to.getTime() - DAY;
    busyDate = new Date(midnight - 3 * DAY).toISOString().slice(0, 10);
    // a fortnight of varied records in the demo tenant, 3 days ago the busiest
    const logins = [];
    const operations = [];
    for (let ago = 1; ago < 14; ago++) {
      const at = new Date(midnight - ago * DAY + 10 * 3600_000);
      const n = ago === 3 ? 9 : (ago * 7) % 5;
      for (let i = 0; i < n; i++)
        logins.push({
          tenantId: t.demoTenantId,
          username: 'admin',
          ip: '10.0.0.1',
          success: i % 4 !== 3,
          reason: 'x',
          createdAt: at,
        });
      for (let i = 0; i < (ago === 3 ? 25 : (ago * 11) % 13); i++)
        operations.push({
          tenantId: t.demoTenantId,
          username: 'admin',
          module: 'system',
          operation: 'system.dict.create',
          method: 'POST',
          path: '/api/dict-types',
          statusCode: 200,
          ip: '10.0.0.1',
          durationMs: 3,
          requestId: `dash-${ago}-${i}`,
          createdAt: at,
        });
    }
    await t.database.db.insert(loginLogs).values(logins);
    await t.database.db.insert(operationLogs).values(operations);
  }, 240_000);

  afterAll(async () => {
    await site?.close();
  });

  async function signIn(page: Page) {
    await page.goto(`${site.base}/login`);
    await page.locator('#tenantCode').fill('demo');
    await page.locator('input[autocomplete=username]').fill('admin');
    await page.locator('input[autocomplete=current-password]').fill(ADMIN_PASSWORD);
    await page.locator('button[type=submit]').click();
    await page.waitForURL((u) => u.pathname === '/');
  }

  it('draws the 14 days, named and tabulated for screen readers', async () => {
    const page = await site.page({ language: 'en', viewport: { width: 1280, height: 900 } });
    await signIn(page);
    const signIns = page.getByRole('img', {
      name: /^Sign-ins per day\. Over the last 14 days, \d+ sign-ins succeeded/,
    });
    await signIns.waitFor();
    const label = (await signIns.getAttribute('aria-label')) ?? '';
    const busy = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
      new Date(`${busyDate}T00:00:00Z`),
    );
    expect(label).toContain(`the busiest day was ${busy} with 9.`);
    await page
      .getByRole('img', { name: new RegExp(`^Operations per day\\. .*busiest day was ${busy} with 25\\.`) })
      .waitFor();
    // the drawing itself: ECharts' SVG inside each named box
    expect(await signIns.locator('svg').count()).toBe(1);

    const table = page.getByRole('table', { name: 'Sign-ins per day (Last 14 days (UTC))' });
    expect(await table.locator('tbody tr').count()).toBe(14);
    const row = table.getByRole('row', { name: new RegExp(`^${busy} `) });
    expect(await row.locator('td').allTextContents()).toEqual(['7', '2']);
    await shot(page, 'dashboard-en-light-wide');
    await page.context().close();
  }, 180_000);

  it('follows the theme and the language (screenshots)', async () => {
    const combos: [Language, Theme][] = [
      ['zh-CN', 'light'],
      ['zh-CN', 'dark'],
      ['en', 'light'],
      ['en', 'dark'],
    ];
    const fills: Record<string, string> = {};
    for (const [language, theme] of combos) {
      const page = await site.page({ language, theme });
      await signIn(page);
      const chart = page.getByTestId('trend-sign-ins').getByRole('img');
      await chart.locator('svg text').first().waitFor();
      fills[`${language} ${theme}`] = (await chart.locator('svg text').first().getAttribute('fill')) ?? '';
      const labels = await page.getByTestId('trend-operations').locator('svg text').allTextContents();
      expect(labels.some((l) => (language === 'en' ? /^[A-Z][a-z]{2} \d+$/ : /^\d+月\d+日$/).test(l))).toBe(true);
      await page.waitForTimeout(300);
      await shot(page, `dashboard-${language}-${theme}`);
      await page.context().close();
    }
    // the text of the charts is dark on light and light on dark
    const lightness = (fill: string) => {
      const [r = 0, g = 0, b = 0] = (fill.match(/\d+(\.\d+)?/g) ?? []).map(Number);
      return (r + g + b) / 3;
    };
    for (const language of ['zh-CN', 'en']) {
      expect(lightness(fills[`${language} light`] ?? ''), JSON.stringify(fills)).toBeLessThan(100);
      expect(lightness(fills[`${language} dark`] ?? ''), JSON.stringify(fills)).toBeGreaterThan(150);
    }
  }, 240_000);
});
