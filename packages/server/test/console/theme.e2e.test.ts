// The theme without a flash (issue 25): a person who chose dark while their system is light gets
// the dark background before anything paints. Checked at the moment the HTML is parsed and before
// the deferred module scripts run (readyState "interactive"): a theme applied by the app's modules
// would not be there yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleSite, hasChromium, startConsoleSite } from './console-browser.ts';

describe.skipIf(!hasChromium)('the theme is applied before the first paint', () => {
  let site: ConsoleSite;
  beforeAll(async () => {
    site = await startConsoleSite();
  }, 120_000);
  afterAll(async () => {
    await site?.close();
  });

  for (const [chosen, system] of [
    ['dark', 'light'],
    ['light', 'dark'],
  ] as const) {
    it(`a ${chosen} choice on a ${system} system is on <html> when parsing ends`, async () => {
      const page = await site.page({ theme: chosen, colorScheme: system });
      await page.addInitScript(() => {
        document.addEventListener('readystatechange', () => {
          if (document.readyState !== 'interactive') return;
          const root = document.documentElement;
          (window as unknown as { atParse: object }).atParse = {
            theme: root.dataset.theme,
            background: root.style.background,
            appStarted: (document.getElementById('root')?.childElementCount ?? 0) > 0,
          };
        });
      });
      await page.goto(`${site.base}/login`);
      await page.locator('h1').first().waitFor();
      const atParse = await page.evaluate(() => (window as unknown as { atParse: object }).atParse);
      expect(atParse).toEqual({
        theme: chosen,
        background: chosen === 'dark' ? 'rgb(20, 20, 20)' : 'rgb(255, 255, 255)',
        appStarted: false,
      });
      await page.context().close();
    }, 180_000);
  }
});
