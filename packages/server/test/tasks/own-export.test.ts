import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationLogs } from '../../src/modules/system/tables.ts';
import { asyncTasks } from '../../src/modules/tasks/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { parseCsv, type TaskData, waitForTask } from './tasks-helpers.ts';

/**
 * POST /api/profile/operation-logs/export: anyone signed in exports their own operation records,
 * without monitor:operation-log:list, and never anyone else's (docs/decisions/0045).
 */
let t: TestApp;
let other: TenantFixture;
let me: { userId: number; token: string };
let colleague: { userId: number; token: string };
const URL = '/api/profile/operation-logs/export';
// a row of another tenant carrying my user id: only the tenant keeps it out of my export
const PLANTED_PATH = '/planted/other-tenant-row-with-my-user-id';

beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
  me = await createUserWithPermissions(t, []);
  colleague = await createUserWithPermissions(t, []);
  // refused writes are recorded too: rows of mine, a colleague's, the admin's and another tenant's
  await call(t.app, 'POST', '/api/dict-types', { token: me.token, body: { code: 'mine_1', name: 'Mine' } });
  await call(t.app, 'POST', '/api/tasks/999999/cancel', { token: me.token });
  await call(t.app, 'POST', '/api/tasks/999998/cancel', { token: colleague.token });
  await call(t.app, 'POST', '/api/tasks/999997/cancel', { token: t.demoAdminToken });
  await call(t.app, 'POST', '/api/tasks/999996/cancel', { token: other.adminToken });
  await t.app.system.operationLogsIdle();
  await t.database.db.insert(operationLogs).values({
    tenantId: other.tenantId,
    userId: me.userId,
    username: 'someone',
    module: 'system',
    operation: 'system.dict_type.create',
    method: 'POST',
    path: PLANTED_PATH,
    statusCode: 201,
    ip: '127.0.0.1',
    durationMs: 1,
    requestId: 'planted',
  });
});
afterAll(async () => t?.close());

async function exportMine(token: string, body: Record<string, unknown> = {}) {
  const res = await call(t.app, 'POST', URL, { token, body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as TaskData & { params: Record<string, unknown> };
}

/** Runs the task to its end as its owner and answers the CSV's rows (header checked, then dropped). */
async function csvOf(token: string, id: number): Promise<string[][]> {
  const done = await waitForTask(t, token, id);
  expect(done).toMatchObject({ status: 'succeeded', resultAvailable: true, error: null });
  const file = await call(t.app, 'GET', `/api/tasks/${id}/result`, { token });
  expect(file.statusCode, file.body).toBe(200);
  expect(file.headers['content-type']).toMatch(/^text\/csv/);
  const [header, ...rows] = parseCsv(file.body.slice(1));
  expect(header?.slice(0, 4)).toEqual(['id', 'createdAt', 'userId', 'username']);
  return rows;
}

describe('exporting my own operation records', () => {
  it('works without monitor:operation-log:list and holds only my rows of my tenant', async () => {
    // the tenant-wide export is closed to me
    expectError(
      await call(t.app, 'POST', '/api/export-jobs/operation-logs', { token: me.token, body: {} }),
      403,
      'auth.permission_denied',
    );

    const created = await exportMine(me.token);
    expect(created).toMatchObject({ kind: 'export.operation_logs', status: 'queued', params: { userId: me.userId } });
    const rows = await csvOf(me.token, created.id);

    for (const r of rows) expect(r[2]).toBe(String(me.userId));
    const paths = rows.map((r) => r[7]);
    expect(paths).toContain('/api/dict-types');
    expect(paths).toContain('/api/tasks/999999/cancel');
    for (const theirs of ['/api/tasks/999998/cancel', '/api/tasks/999997/cancel', '/api/tasks/999996/cancel']) {
      expect(paths).not.toContain(theirs);
    }
    expect(paths).not.toContain(PLANTED_PATH);

    // exactly what my profile lists, up to the export's start
    const maxId = Math.max(...rows.map((r) => Number(r[0])));
    const listed = (await call(t.app, 'GET', '/api/profile/operation-logs?pageSize=200', { token: me.token })).json()
      .data.list as { id: number }[];
    expect(rows.map((r) => Number(r[0]))).toEqual(listed.filter((l) => l.id <= maxId).map((l) => l.id));

    // the task is mine: in my list, not visible to a colleague
    const mine = (await call(t.app, 'GET', '/api/tasks', { token: me.token })).json().data.list as TaskData[];
    expect(mine.map((x) => x.id)).toContain(created.id);
    expectError(
      await call(t.app, 'GET', `/api/tasks/${created.id}/result`, { token: colleague.token }),
      404,
      'tasks.task_not_found',
    );
  });

  it('applies the other filters, still to my rows only', async () => {
    const created = await exportMine(me.token, { operation: 'tasks.task.cancel', statusCode: 404 });
    const rows = await csvOf(me.token, created.id);
    expect(rows.map((r) => [r[2], r[5], r[7], r[8]])).toEqual([
      [String(me.userId), 'tasks.task.cancel', '/api/tasks/999999/cancel', '404'],
    ]);

    const future = await exportMine(me.token, { from: '2999-01-01T00:00:00Z' });
    expect(await csvOf(me.token, future.id)).toEqual([]);
  });

  it('gives another tenant’s user their own rows, none of this tenant’s', async () => {
    const created = await exportMine(other.adminToken);
    const rows = await csvOf(other.adminToken, created.id);
    const paths = rows.map((r) => r[7]);
    expect(paths).toContain('/api/tasks/999996/cancel');
    for (const r of rows) expect(r[2]).toBe(String(other.adminUserId));
    expect(paths).not.toContain('/api/tasks/999999/cancel');
  });

  it('refuses a body naming a user, or a bad filter, with 400 naming the field (no task)', async () => {
    const before = await rowCount(t, asyncTasks);
    const post = (body: unknown) => call(t.app, 'POST', URL, { token: me.token, body });
    expectError(await post({ userId: colleague.userId }), 400, 'request.validation_failed', 'userId');
    // even my own id: the route has no user to choose, so naming one is a mistake worth hearing about
    expectError(await post({ userId: me.userId }), 400, 'request.validation_failed', 'userId');
    expectError(await post({ username: 'admin' }), 400, 'request.validation_failed', 'username');
    expectError(await post({ statusCode: 42 }), 400, 'request.validation_failed', 'statusCode');
    expectError(await post({ from: 'yesterday' }), 400, 'request.validation_failed', 'from');
    expect(await rowCount(t, asyncTasks)).toBe(before);
  });

  it('answers 401 without a session (no task)', async () => {
    const before = await rowCount(t, asyncTasks);
    expectError(await call(t.app, 'POST', URL, { body: {} }), 401, 'auth.unauthenticated');
    expect(await rowCount(t, asyncTasks)).toBe(before);
  });
});
