import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { waitForTask } from '../tasks/tasks-helpers.ts';

/** The task center notifies a task's owner through the notification center (spec §6.2 platform.export.finished). */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('platform.export.finished', () => {
  it('a finished export puts an in-app message in its owner’s inbox, linking to the task', async () => {
    const res = await call(t.app, 'POST', '/api/export-jobs/operation-logs', { token: t.demoAdminToken, body: {} });
    expect(res.statusCode, res.body).toBe(201);
    const task = res.json().data as { id: number };
    await waitForTask(t, t.demoAdminToken, task.id);
    let list: { title: string; link: string | null; source: string }[] = [];
    for (let i = 0; i < 100 && list.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      list = (await call(t.app, 'GET', '/api/in-app-messages', { token: t.demoAdminToken })).json().data.list;
    }
    expect(list).toEqual([
      expect.objectContaining({
        title: 'Export succeeded: export.operation_logs',
        link: `/monitor/tasks?id=${task.id}`,
        source: 'platform.export.finished',
      }),
    ]);
  });
});
