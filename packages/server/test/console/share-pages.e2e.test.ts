// End to end: the built console's public share pages in real Chromium against a real service. An
// administrator makes the links through the API; the browser opens the URLs the API handed out.

import { readFile } from 'node:fs/promises';
import { AxeBuilder } from '@axe-core/playwright';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveShareAccessLogs, driveShareLinks } from '../../src/modules/drive/tables.ts';
import { DRIVE_USER } from '../drive/drive-fixtures.ts';
import { postFile } from '../drive/uploads-helpers.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions, USER_PASSWORD } from '../helpers/fixtures.ts';
import { type ConsoleSite, hasChromium, shot, startConsoleSite } from './console-browser.ts';

const PASSWORD = 'correct horse 7';
const NOTES = 'Quarterly notes\nline two: <b>not bold</b>\n';

type Link = { id: number; token: string; url: string };
/** What the link's owner reads of it through the API (the counters and the state the visit left). */
type LinkView = { state: string; accessCount: number; downloadCount: number; allowedIps: string[] };

describe.skipIf(!hasChromium)('public share pages in Chromium', () => {
  let site: ConsoleSite;
  let t: TestApp;
  let admin: string;
  let spaceId: number;
  let inboxId: number;
  let reportsId: number;
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
  /** A file of the Reports folder, by name. */
  const fileId = async (name: string) => {
    const page = await api('GET', `/api/drive/nodes?spaceId=${spaceId}&parentId=${reportsId}`);
    const node = (page.list as { id: number; name: string }[]).find((n) => n.name === name);
    if (!node) throw new Error(`no ${name} in Reports`);
    return node.id;
  };
  const view = (l: Link) => api('GET', `/api/drive/share-links/${l.id}`) as Promise<LinkView>;
  const accessLogs = (l: Link) =>
    t.database.db.select().from(driveShareAccessLogs).where(eq(driveShareAccessLogs.linkId, l.id));
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
    reportsId = reports.id;
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
  }, 180_000);

  afterAll(async () => {
    await site?.close();
  });

  async function open(url: string, language: 'en' | 'zh-CN' = 'en', theme: 'light' | 'dark' = 'light') {
    const page = await site.page({ language, theme, acceptDownloads: true });
    await page.goto(url);
    return page;
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
    // (what the browser may keep: the person's preferences and the error reporter's random session
    // id; no cookie a script can read, and nothing of the link)
    const kept = await page.evaluate(() => ({
      keys: [...Object.keys(localStorage), ...Object.keys(sessionStorage)].sort(),
      cookie: document.cookie,
      all: JSON.stringify({ ...localStorage, ...sessionStorage }),
    }));
    const allowed = ['atrium.errorSession', 'atrium.language', 'atrium.theme'];
    expect(kept.keys.filter((k) => !allowed.includes(k))).toEqual([]);
    expect(kept.cookie).toBe('');
    expect(kept.all).not.toContain(shared.token.slice(0, 12));

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

    // what the owner reads: the states the visitor was told, and no visit counted
    expect(await view(revoked)).toMatchObject({ state: 'revoked', accessCount: 0 });
    expect(await view(expired)).toMatchObject({ state: 'expired', accessCount: 0 });
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

  it('saves a shared file into the drive of a signed-in visitor (and offers it to no one else)', async () => {
    const saver = await createUserWithPermissions(t, DRIVE_USER);
    const l = await link({ nodeId: await fileId('notes.txt'), capabilities: ['preview', 'save'] });

    // an anonymous visitor: the file, no save (the silent sign-in check answered first)
    const anonymous = await site.page();
    const refreshed = anonymous.waitForResponse((r) => r.url().endsWith('/api/auth/refresh'));
    await anonymous.goto(l.url);
    await anonymous.getByRole('heading', { name: 'notes.txt', level: 1 }).waitFor();
    await refreshed;
    await anonymous.getByRole('region', { name: 'Preview of notes.txt' }).waitFor();
    expect(await anonymous.getByRole('button', { name: 'Save to my drive' }).count()).toBe(0);
    await anonymous.context().close();

    // signed in to the console first, in the same browser
    const page = await site.page();
    await page.goto(`${site.base}/login`);
    await page.locator('#tenantCode').fill('demo');
    await page.locator('#username').fill(saver.username);
    await page.locator('#password').fill(USER_PASSWORD);
    await page.locator('button[type=submit]').click();
    await page.getByTestId('notification-bell').waitFor();
    await page.goto(l.url);
    await page.getByRole('heading', { name: 'notes.txt', level: 1 }).waitFor();
    const saved = page.waitForResponse((r) => r.url().endsWith(`/api/drive/public/shares/${l.token}/save`));
    await page.getByRole('button', { name: 'Save to my drive' }).click();
    expect((await saved).status()).toBe(201);
    await page.getByRole('status').getByText('Saved to your drive as “notes.txt”.').waitFor();
    await shot(page, 'saved-en-light');
    // the confirmation is read by everyone: no serious finding of axe on the page that shows it
    // (the pointer moved off the button first: its hover colour is a passing state)
    await page.mouse.move(0, 0);
    const findings = async () => {
      const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      return axe.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    };
    await expect.poll(findings, { timeout: 20_000 }).toEqual([]);
    await page.context().close();

    // the copy is in the visitor's personal space, with the shared bytes
    const mine = async (url: string) => {
      const res = await call(t.app, 'GET', url, { token: saver.token });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return res;
    };
    const spaces = (await mine('/api/drive/spaces')).json().data.list as { id: number; type: string }[];
    const personal = spaces.find((sp) => sp.type === 'personal');
    expect(personal).toBeDefined();
    const nodes = (await mine(`/api/drive/nodes?spaceId=${personal?.id}`)).json().data.list as {
      id: number;
      name: string;
    }[];
    expect(nodes.map((n) => n.name)).toEqual(['notes.txt']);
    expect((await mine(`/api/drive/nodes/${nodes[0]?.id}/content`)).body).toBe(NOTES);
    // a save takes one download from the link
    expect(await view(l)).toMatchObject({ downloadCount: 1 });
  }, 180_000);

  it('says in words that a link’s downloads or visits are used up', async () => {
    const once = await link({
      nodeId: await fileId('notes.txt'),
      capabilities: ['preview', 'download'],
      maxDownloadCount: 1,
    });
    // two visitors open it while one download is left
    const page = await open(once.url);
    await page.getByRole('heading', { name: 'notes.txt', level: 1 }).waitFor();
    const other = await open(once.url);
    await other.getByRole('heading', { name: 'notes.txt', level: 1 }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(await readFile((await download.path()) as string, 'utf8')).toBe(NOTES);
    // the page that took the last one offers no more, and says why
    await page.getByText("This link's downloads are used up.").waitFor();
    expect(await page.getByRole('button', { name: 'Download' }).isDisabled()).toBe(true);
    await shot(page, 'downloads-used-up-en-light');
    await page.context().close();
    // the other one finds the limit reached by its click: said in words, with the request id
    await other.getByRole('button', { name: 'Download' }).click();
    const alert = other.getByRole('alert').filter({ hasText: 'This link has been used up.' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Request id: \S+/);
    await other.getByText("This link's downloads are used up.").waitFor();
    expect(await other.getByRole('button', { name: 'Download' }).isDisabled()).toBe(true);
    await other.context().close();
    expect(await view(once)).toMatchObject({ state: 'exhausted', downloadCount: 1 });

    // a link that opens once: the first visit shows the file, the next one the state
    const single = await link({ nodeId: await fileId('notes.txt'), maxAccessCount: 1 });
    const visit = await open(single.url);
    await visit.getByRole('heading', { name: 'notes.txt', level: 1 }).waitFor();
    await visit.reload();
    await visit.getByRole('heading', { name: 'This link has been used up' }).waitFor();
    await visit.getByText('It allowed a limited number of visits, downloads or files').waitFor();
    await shot(visit, 'visits-used-up-en-light');
    await visit.context().close();
    expect(await view(single)).toMatchObject({ state: 'exhausted', accessCount: 1 });

    const zh = await open(single.url, 'zh-CN', 'dark');
    await zh.getByRole('heading', { name: '链接次数已用完' }).waitFor();
    await shot(zh, 'visits-used-up-zh-dark');
    await zh.context().close();
  }, 180_000);

  it('opens an IP-restricted link only from an allowed address, and says so in words elsewhere', async () => {
    const notes = await fileId('notes.txt');
    // the browser comes from 127.0.0.1: outside these ranges
    const elsewhere = await link({ nodeId: notes, allowedIps: ['203.0.113.0/24', '2001:db8::/32'] });
    const page = await open(elsewhere.url);
    await page.getByRole('heading', { name: 'Not available from your network' }).waitFor();
    await page.getByText('This link opens only from the networks its owner chose.').waitFor();
    expect(await page.getByText('notes.txt').count()).toBe(0); // nothing of the file is shown
    await shot(page, 'ip-denied-en-light');
    await page.context().close();
    // the refused visit was neither counted nor logged as an access
    expect(await view(elsewhere)).toMatchObject({ state: 'active', accessCount: 0 });
    expect(await accessLogs(elsewhere)).toEqual([]);

    const zh = await open(elsewhere.url, 'zh-CN', 'light');
    await zh.getByRole('heading', { name: '您所在的网络无法访问' }).waitFor();
    await shot(zh, 'ip-denied-zh-light');
    await zh.context().close();

    // the same rule with the browser's own address in it: the file opens
    const here = await link({ nodeId: notes, allowedIps: ['203.0.113.0/24', '127.0.0.1/32'] });
    const inside = await open(here.url);
    await inside.getByRole('heading', { name: 'notes.txt', level: 1 }).waitFor();
    await inside.context().close();
    expect(await view(here)).toMatchObject({ accessCount: 1, allowedIps: ['203.0.113.0/24', '127.0.0.1/32'] });
  }, 180_000);

  it('shows a watermarked preview with the watermark burned into the picture', async () => {
    const photo = await fileId('photo.png');
    const marked = await link({ nodeId: photo, capabilities: ['preview'], watermark: true });
    const plain = await link({ nodeId: photo, capabilities: ['preview'] });

    /**
     * The preview as the page shows it, read back from the rendered <img>: how many pixels stray
     * from the uploaded picture's one colour (#3366cc). JPEG noise stays far below the threshold.
     */
    async function shown(l: Link) {
      const page = await open(l.url);
      const answered = page.waitForResponse((r) => r.url().includes(`/api/drive/public/shares/${l.token}/preview`));
      await page.getByRole('heading', { name: 'photo.png', level: 1 }).waitFor();
      const response = await answered;
      const img = page.getByRole('img', { name: 'Preview of photo.png' });
      await img.waitFor();
      await page.waitForFunction(() => {
        const i = document.querySelector('img[alt="Preview of photo.png"]') as HTMLImageElement | null;
        return i?.complete && i.naturalWidth > 0;
      });
      const stray = await img.evaluate((el) => {
        const i = el as HTMLImageElement;
        const canvas = document.createElement('canvas');
        canvas.width = i.naturalWidth;
        canvas.height = i.naturalHeight;
        const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
        ctx.drawImage(i, 0, 0);
        const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
        let n = 0;
        for (let p = 0; p < data.length; p += 4)
          if (Math.abs(data[p] - 0x33) + Math.abs(data[p + 1] - 0x66) + Math.abs(data[p + 2] - 0xcc) > 60) n++;
        return { n, total: data.length / 4 };
      });
      return { page, response, stray };
    }

    const m = await shown(marked);
    await m.page.getByText('The preview carries a watermark.').waitFor();
    expect(m.response.status()).toBe(200);
    expect(m.response.headers()['content-disposition']).toContain('photo.png.preview.jpg');
    // a tiled text over the whole picture: a good part of it changed
    expect(m.stray.n / m.stray.total).toBeGreaterThan(0.05);
    await shot(m.page, 'watermark-en-light');
    await m.page.context().close();

    const p = await shown(plain);
    expect(await p.page.getByText('The preview carries a watermark.').count()).toBe(0);
    expect(p.stray.n).toBe(0);
    await p.page.context().close();

    // the owner's record: each preview logged as an access of that image
    for (const l of [marked, plain]) {
      const logs = await accessLogs(l);
      expect(logs.filter((r) => (r.detail as { preview?: string } | null)?.preview === 'image')).toHaveLength(1);
    }
    expect(await view(marked)).toMatchObject({ accessCount: 1, downloadCount: 0 });
  }, 180_000);
});
