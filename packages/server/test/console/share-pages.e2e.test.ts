// End to end: the built console's public share pages in real Chromium against a real service. An
// administrator makes the links through the API; the browser opens the URLs the API handed out.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveShareLinks } from '../../src/modules/drive/tables.ts';
import { postFile } from '../drive/uploads-helpers.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { type ConsoleSite, hasChromium, startConsoleSite } from './console-browser.ts';

const SHOTS = process.env.SHOTS_DIR ?? '/tmp/atrium-share-shots';
const PASSWORD = 'correct horse 7';
const NOTES = 'Quarterly notes\nline two: <b>not bold</b>\n';

type Link = { id: number; token: string; url: string };

describe.skipIf(!hasChromium)('public share pages in Chromium', () => {
  let site: ConsoleSite;
  let t: TestApp;
  let admin: string;
  let spaceId: number;
  let inboxId: number;
  let shared: Link;
  let collect: Link;
  let revoked: Link;
  let expired: Link;

  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: object) => {
    const res = await call(t.app, method, url, { token: admin, ...(body ? { body } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  const folder = (name: string, parentId?: number) =>
    api('POST', '/api/drive/nodes/folder', { spaceId, name, ...(parentId ? { parentId } : {}) }) as Promise<{
      id: number;
    }>;
  const upload = async (parentId: number, name: string, data: Buffer, contentType: string) => {
    const res = await postFile(t, admin, `/api/drive/nodes/upload?spaceId=${spaceId}&parentId=${parentId}`, {
      name,
      data,
      contentType,
    });
    if (res.statusCode !== 201) throw new Error(`upload ${name}: ${res.statusCode} ${res.body}`);
  };
  const link = (body: object) =>
    api('POST', '/api/drive/share-links', {
      expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      ...body,
    }) as Promise<Link>;

  beforeAll(async () => {
    site = await startConsoleSite();
    t = site.t;
    admin = t.demoAdminToken;

    spaceId = (await api('POST', '/api/drive/spaces', { type: 'team', name: 'E2E share' })).id;
    const reports = await folder('Reports');
    const q1 = await folder('Q1', reports.id);
    await upload(reports.id, 'notes.txt', Buffer.from(NOTES), 'text/plain');
    const png = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    await upload(reports.id, 'photo.png', png, 'image/png');
    await upload(q1.id, 'q1.txt', Buffer.from('first quarter'), 'text/plain');
    inboxId = (await folder('Inbox')).id;

    shared = await link({ nodeId: reports.id, password: PASSWORD, capabilities: ['preview', 'download'] });
    collect = await link({
      nodeId: inboxId,
      kind: 'collect',
      collect: { requireName: true, allowedExtensions: ['txt', 'pdf'], maxFileSizeMb: 2, maxFiles: 10 },
    });
    revoked = await link({ nodeId: q1.id });
    await api('POST', `/api/drive/share-links/${revoked.id}/revoke`);
    expired = await link({ nodeId: q1.id });
    // a link cannot be made already expired: move its end into the past, as time would
    await t.database.db
      .update(driveShareLinks)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(driveShareLinks.id, expired.id));

    await mkdir(SHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await site?.close();
  });

  async function open(url: string, language: 'en' | 'zh-CN' = 'en', theme: 'light' | 'dark' = 'light') {
    const page = await site.page({ language, theme, acceptDownloads: true });
    await page.goto(url);
    return page;
  }
  async function shot(page: Page, name: string) {
    // after antd's loading fade has gone, so the picture shows the page as a person sees it
    await page.waitForFunction(() => document.querySelectorAll('.ant-spin-blur, .ant-spin-spinning').length === 0);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  it('hands out the console page as the link URL', () => {
    expect(shared.url).toBe(`${site.base}/s/${shared.token}`);
    expect(collect.url).toBe(`${site.base}/s/${collect.token}`);
  });

  it('asks the password (a wrong one in words), then browses, previews and downloads', async () => {
    const page = await open(shared.url);
    await page.getByRole('heading', { name: 'This link is protected by a password' }).waitFor();
    await shot(page, 'password-en-light');
    await page.getByLabel('Password').fill('wrong one');
    await page.getByRole('button', { name: 'Open' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Wrong password.').waitFor();
    expect(await alert.textContent()).toMatch(/Request id: \S+/);

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'photo.png' }).waitFor();
    await shot(page, 'folder-en-light');

    // the access session is in memory only: nothing a script could read later
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie);
    expect(stored).not.toMatch(/session/i);
    expect(stored).not.toContain(shared.token.slice(0, 12));

    // into Q1 and back by the breadcrumb
    await page.getByRole('button', { name: 'Open Q1' }).click();
    await page.getByRole('button', { name: 'q1.txt' }).waitFor();
    expect(page.url()).toContain('folder=');
    await page.getByRole('navigation', { name: 'Where you are' }).getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('button', { name: 'notes.txt' }).waitFor();

    // a text preview, then the download's bytes
    await page.getByRole('button', { name: 'notes.txt' }).click();
    const region = page.getByRole('region', { name: 'Preview of notes.txt' });
    await region.locator('pre').waitFor();
    // sanitized text, shown as text: the markup is not rendered
    expect(await region.locator('pre').textContent()).toBe(NOTES);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('notes.txt');
    expect(await readFile((await download.path()) as string, 'utf8')).toBe(NOTES);
    await page.keyboard.press('Escape');

    // an image preview: the server's re-encoded image, shown inline
    await page.getByRole('button', { name: 'photo.png' }).click();
    const img = page.getByRole('img', { name: 'Preview of photo.png' });
    await img.waitFor();
    await page.waitForFunction(() => {
      const i = document.querySelector('img[alt="Preview of photo.png"]') as HTMLImageElement | null;
      return i?.complete && i.naturalWidth === 120;
    });
    await shot(page, 'preview-en-light');
    await page.context().close();
  }, 180_000);

  it('says in words that a link was revoked, has expired or does not exist', async () => {
    const page = await open(revoked.url);
    await page.getByRole('heading', { name: 'This link was withdrawn' }).waitFor();
    await page.goto(expired.url);
    await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
    await shot(page, 'expired-en-light');
    await page.goto(`${site.base}/s/not-a-real-token`);
    await page.getByRole('heading', { name: 'This link does not exist' }).waitFor();
    await page.context().close();

    const zh = await open(expired.url, 'zh-CN', 'dark');
    await zh.getByRole('heading', { name: '链接已过期' }).waitFor();
    await shot(zh, 'expired-zh-dark');
    await zh.context().close();
  }, 180_000);

  it('shows a collection link’s limits before upload and takes a file into the folder', async () => {
    const page = await open(collect.url);
    await page.getByRole('heading', { name: 'Send files: Inbox' }).waitFor();
    const limits = page.getByRole('region', { name: 'What you can send' });
    await limits.getByText('.txt, .pdf').waitFor();
    await limits.getByText('2 MB').waitFor();
    await shot(page, 'collect-en-light');

    // the name is required: a file added without it is refused here, before any byte is sent
    const input = page.locator('input[type=file]');
    await input.setInputFiles({ name: 'early.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
    await page.getByText('Enter your name before you add files.').waitFor();
    // a type the link does not take is refused in words
    await page.getByLabel('Your name').fill('Dana Visitor');
    await input.setInputFiles({ name: 'tool.exe', mimeType: 'application/octet-stream', buffer: Buffer.from('MZ') });
    await page.getByText('“tool.exe”: this link accepts only .txt, .pdf.').waitFor();

    await page.getByLabel('Note').fill('for the audit');
    await input.setInputFiles({ name: 'answers.txt', mimeType: 'text/plain', buffer: Buffer.from('my answers') });
    const sent = page.getByRole('region', { name: 'Sent' });
    await sent.getByText('answers.txt').waitFor();
    await page.getByText('9', { exact: true }).waitFor(); // files still accepted, from the receipt
    await shot(page, 'collect-sent-en-light');
    await page.context().close();

    const list = await api('GET', `/api/drive/nodes?spaceId=${spaceId}&parentId=${inboxId}`);
    expect((list.list as { name: string }[]).map((n) => n.name)).toEqual(['answers.txt']);

    for (const [language, theme] of [
      ['zh-CN', 'light'],
      ['zh-CN', 'dark'],
      ['en', 'dark'],
    ] as const) {
      const p = await open(collect.url, language, theme);
      await p.locator('h1').waitFor();
      await shot(p, `collect-${language}-${theme}`);
      await p.context().close();
    }
  }, 180_000);

  it('looks the same in both languages and themes (the folder page)', async () => {
    for (const [language, theme] of [
      ['zh-CN', 'light'],
      ['zh-CN', 'dark'],
      ['en', 'dark'],
    ] as const) {
      const p = await open(shared.url, language, theme);
      await p.locator('input[type=password]').fill(PASSWORD);
      await p.keyboard.press('Enter');
      await p.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
      await p.getByRole('button', { name: 'photo.png' }).waitFor();
      await shot(p, `folder-${language}-${theme}`);
      await p.context().close();
    }
  }, 180_000);
});
