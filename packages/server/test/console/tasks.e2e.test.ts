// End to end: the header's task drawer in Chromium against the service serving the console. An
// export started from the profile's operation records runs as a real task, shows in the drawer
// and downloads as the person's own records; tasks in progress show their progress and count on
// the button, a waiting one is cancelled, and what changes on the server reaches the drawer.
import { readFile } from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncTasks } from '../../src/modules/tasks/tables.ts';
import { ADMIN_PASSWORD, call } from '../helpers/app.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';
import { parseCsv } from '../tasks/tasks-helpers.ts';
import { type ConsoleSite, hasChromium, startConsoleSite } from './console-browser.ts';

// a browser starved of CPU by the other test worker is slow, not stuck (console-browser.ts)
const WAIT = { timeout: 90_000, interval: 250 };

describe.skipIf(!hasChromium)('the task drawer in Chromium', () => {
  let site: ConsoleSite;
  let adminId: number;

  beforeAll(async () => {
    site = await startConsoleSite();
    const t = site.t;
    adminId = (await call(t.app, 'GET', '/api/auth/me', { token: t.demoAdminToken })).json().data.user.id;
    // an operation of the admin's own, so the export has a known record in it
    const written = await call(t.app, 'POST', '/api/dict-types', {
      token: t.demoAdminToken,
      body: { code: 'tasks_e2e', name: 'Tasks e2e' },
    });
    if (written.statusCode !== 201) throw new Error(`POST /api/dict-types: ${written.statusCode} ${written.body}`);
    // and one of another user of the tenant (a refused write is recorded too), which the admin's export leaves out
    const other = await createUserWithPermissions(t, []);
    const refused = await call(t.app, 'POST', '/api/dict-types', {
      token: other.token,
      body: { code: 'tasks_e2e_other', name: 'Other' },
    });
    if (refused.statusCode !== 403) throw new Error(`POST /api/dict-types: ${refused.statusCode} ${refused.body}`);
    await t.app.system.operationLogsIdle();
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

  /** A task of the demo admin written directly: no worker runs for it, so it stays as written. */
  async function fixtureTask(values: Partial<typeof asyncTasks.$inferInsert>) {
    const [row] = await site.t.database.db
      .insert(asyncTasks)
      .values({ tenantId: site.t.demoTenantId, ownerUserId: adminId, kind: 'export.operation_logs', ...values })
      .returning();
    if (!row) throw new Error('async_tasks insert failed');
    return row.id;
  }

  const tasksButton = (page: Page) => page.getByTestId('tasks-button');
  const drawer = (page: Page) => page.getByRole('dialog', { name: 'My tasks' });
  const item = (page: Page, id: number) =>
    drawer(page)
      .getByTestId('task-item')
      .filter({ hasText: `Operation log export #${id}` });

  it("exports the person's own operation records from the profile, follows the task and downloads the file", async () => {
    const page = await site.page({ language: 'en' });
    await signIn(page);
    await page.goto(`${site.base}/profile?tab=operations`);
    await page.locator('.ant-table-row').first().waitFor();
    await page.getByRole('button', { name: 'Export my records' }).click();

    // the drawer opens on the new task, which runs to its end
    await drawer(page).waitFor();
    const entry = drawer(page).getByTestId('task-item').first();
    await entry.filter({ hasText: /Operation log export #\d+/ }).waitFor();
    const id = Number(/#(\d+)/.exec((await entry.textContent()) ?? '')?.[1]);
    await item(page, id).and(page.locator('[data-status=succeeded]')).waitFor();
    await item(page, id).getByText('Done').waitFor();
    await item(page, id)
      .getByText(/^Kept until /)
      .waitFor();
    await expect.poll(() => tasksButton(page).getAttribute('aria-label'), WAIT).toBe('Tasks');

    // the file arrives through the browser's download, under the server's name
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      item(page, id)
        .getByRole('button', { name: `Download the result of Operation log export #${id}` })
        .click(),
    ]);
    expect(download.suggestedFilename()).toBe(`operation-logs-${id}.csv`);
    const text = await readFile((await download.path()) as string, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const [header, ...rows] = parseCsv(text.slice(1));
    expect(header?.slice(0, 4)).toEqual(['id', 'createdAt', 'userId', 'username']);
    // the admin's own records only: the dictionary type they wrote is in, the other user's writes are not theirs
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r[2]).toBe(String(adminId));
    expect(rows.some((r) => r[7] === '/api/dict-types' && r[6] === 'POST')).toBe(true);
    // exactly what the profile lists for them, up to the export's start
    const maxId = Math.max(...rows.map((r) => Number(r[0])));
    const mine = (
      await call(site.t.app, 'GET', '/api/profile/operation-logs?pageSize=200', { token: site.t.demoAdminToken })
    ).json().data.list as { id: number }[];
    expect(rows.map((r) => Number(r[0]))).toEqual(mine.filter((l) => l.id <= maxId).map((l) => l.id));
    await page.context().close();
  }, 180_000);

  it('shows progress while tasks run, counts them on the button, cancels a waiting one and follows the server', async () => {
    const running = await fixtureTask({ status: 'running', progress: 40, startedAt: new Date() });
    const waiting = await fixtureTask({ status: 'queued' });
    const page = await site.page({ language: 'en' });
    const pushed: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (f) => pushed.push(String(f.payload))));
    await signIn(page);

    await expect.poll(() => tasksButton(page).getAttribute('aria-label'), WAIT).toBe('Tasks, 2 in progress');
    expect(await page.getByTestId('tasks-count').textContent()).toBe('2');
    await tasksButton(page).click();
    const bar = item(page, running).getByRole('progressbar', { name: `Progress of Operation log export #${running}` });
    await expect.poll(() => bar.getAttribute('aria-valuenow'), WAIT).toBe('40');
    await item(page, running).getByText('Running').waitFor();
    await item(page, waiting).getByText('Waiting').waitFor();

    // the drawer asks again while something runs: progress made on the server shows
    await site.t.database.db.update(asyncTasks).set({ progress: 70 }).where(eq(asyncTasks.id, running));
    await expect.poll(() => bar.getAttribute('aria-valuenow'), WAIT).toBe('70');

    // cancelling the waiting one: cancelled at once, pushed as task.finished, one left on the button
    await item(page, waiting)
      .getByRole('button', { name: `Cancel Operation log export #${waiting}` })
      .click();
    await item(page, waiting).getByText('Cancelled').waitFor();
    expect((await site.t.database.db.select().from(asyncTasks).where(eq(asyncTasks.id, waiting)))[0]?.status).toBe(
      'cancelled',
    );
    await expect
      .poll(() => pushed.some((p) => p.includes('"task.finished"') && p.includes(`"taskId":${waiting}`)), WAIT)
      .toBe(true);
    await expect.poll(() => tasksButton(page).getAttribute('aria-label'), WAIT).toBe('Tasks, 1 in progress');

    // the running one fails on the server: its error shows, nothing is left in progress
    await site.t.database.db
      .update(asyncTasks)
      .set({ status: 'failed', error: 'The disk is full', finishedAt: new Date() })
      .where(eq(asyncTasks.id, running));
    await item(page, running).getByText('The disk is full').waitFor();
    expect(await item(page, running).getByRole('progressbar').count()).toBe(0);
    await expect.poll(() => tasksButton(page).getAttribute('aria-label'), WAIT).toBe('Tasks');
    await page.context().close();
  }, 180_000);
});
