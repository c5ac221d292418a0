import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { BUILD_COMMAND, DEFAULT_CONSOLE_DIR } from '../../src/platform/http/console.ts';
import { freeLoopbackPort } from '../../src/platform/net/free-port.ts';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';

/**
 * "A service serving the console, and a Chromium page on it": the browser tests of the console.
 * The service serves packages/console/dist itself (docs/decisions/0031), on a real loopback port
 * that is also its PUBLIC_BASE_URL, so links, redirects and the discovery document name it.
 *
 * The console is not built here: several test files run at once, and a build empties dist/
 * first. Build it before (the command is in the failure), as `npm ci` does.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
// what a build reads: a change to any of them makes dist/ stale
const CONSOLE_SOURCES = ['src', 'public', 'index.html'].map((p) => join(DEFAULT_CONSOLE_DIR, '..', p));

/**
 * Waits until no antd spinner turns. With SHOTS_DIR set it also saves the page there as
 * `<name>.png`, to look at a change by eye; the suite itself asserts and takes no pictures
 * (`npm run screenshots -- --review` takes every page in both languages and themes).
 */
export async function shot(page: Page, name: string): Promise<void> {
  await page.waitForFunction(() => document.querySelectorAll('.ant-spin-blur, .ant-spin-spinning').length === 0);
  const dir = process.env.SHOTS_DIR;
  if (!dir) return;
  await page.waitForTimeout(400); // antd's fades end
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

export type Language = 'zh-CN' | 'en';
export type Theme = 'light' | 'dark';

export type ConsoleSite = {
  t: TestApp;
  /** the service's origin (PUBLIC_BASE_URL), which serves the console at / */
  base: string;
  browser: Browser;
  /** a new page in its own context (no cookies shared), language and theme stored as the console keeps them */
  page(opts?: { language?: Language; theme?: Theme } & BrowserContextOptions): Promise<Page>;
  close(): Promise<void>;
};

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  if (!statSync(path).isDirectory()) return statSync(path).mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Fails, saying how to build, when dist/ is missing or older than the console's sources. */
export function assertConsoleBuilt(): void {
  const index = join(DEFAULT_CONSOLE_DIR, 'index.html');
  if (!existsSync(index))
    throw new Error(`The console is not built (no ${index}). Run at the repository root: ${BUILD_COMMAND}`);
  if (Math.max(...CONSOLE_SOURCES.map(newest)) > statSync(index).mtimeMs)
    throw new Error(`The built console is older than its sources. Run at the repository root: ${BUILD_COMMAND}`);
}

/**
 * Keeps the text of every toast (antd message) the page shows in `window.__toasts`, because a
 * toast leaves after three seconds: a browser starved of CPU may take longer than that to be
 * polled, and a wait on the visible toast then times out although it was shown.
 */
export function recordToasts() {
  const shown: string[] = [];
  const seen = new WeakSet<Element>();
  (window as unknown as { __toasts: string[] }).__toasts = shown;
  new MutationObserver(() => {
    for (const notice of document.querySelectorAll('.ant-message-notice')) {
      const text = notice.textContent?.trim();
      if (text && !seen.has(notice)) {
        seen.add(notice);
        shown.push(text);
      }
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
}

/**
 * Waits until the page has shown a toast with this text, and takes it off the record, so a later
 * wait for the same text needs a toast of its own.
 */
export async function toastShown(page: Page, text: string): Promise<void> {
  await page.waitForFunction((wanted) => {
    const shown = (window as unknown as { __toasts: string[] }).__toasts;
    const at = shown.indexOf(wanted);
    if (at >= 0) shown.splice(at, 1);
    return at >= 0;
  }, text);
}

export async function startConsoleSite(opts: TestAppOptions = {}): Promise<ConsoleSite> {
  assertConsoleBuilt();
  // PUBLIC_BASE_URL must name the port before the app is built: pick a free one, then listen on it
  const port = await freeLoopbackPort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...opts, env: { PUBLIC_BASE_URL: base, ...opts.env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-dev-shm-usage',
      '--disable-extensions',
    ],
  });
  return {
    t,
    base,
    browser,
    async page({ language = 'en', theme = 'light', ...options } = {}) {
      // no animation frames to draw on a CPU two test workers share (the console honours the
      // setting for people who ask for less motion: antd-layout.tsx)
      const context = await browser.newContext({
        viewport: { width: 1100, height: 800 },
        reducedMotion: 'reduce',
        ...options,
      });
      await context.addInitScript(
        ([l, th]) => {
          localStorage.setItem('atrium.language', l as string);
          localStorage.setItem('atrium.theme', th as string);
        },
        [language, theme],
      );
      await context.addInitScript(recordToasts);
      const page = await context.newPage();
      // a browser starved of CPU by the other test worker is slow, not stuck: waits are generous
      page.setDefaultTimeout(90_000);
      return page;
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}
