import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationStats } from '../../src/modules/system/operation-log-service.ts';
import { operationLogs } from '../../src/modules/system/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { fieldsOf } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';

let t: TestApp;
let other: TenantFixture;
let auditor: { token: string; userId: number; username: string };
let nobody: { token: string; userId: number; username: string };

beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
  auditor = await createUserWithPermissions(t, ['monitor:operation-log:list', 'system:dict:create']);
  nobody = await createUserWithPermissions(t, []);
});
afterAll(async () => t?.close());

/** Log rows are written after the response; wait for the writes in flight. */
const settled = () => t.app.system.operationLogsIdle();
const logsOf = async (requestId: string) => {
  await settled();
  return t.database.db.select().from(operationLogs).where(eq(operationLogs.requestId, requestId));
};

describe('operation log recording', () => {
  it('records a POST with module, operation, method, path, status, user, ip, agent and request id', async () => {
    const res = await call(t.app, 'POST', '/api/dict-types?source=test', {
      token: auditor.token,
      body: { code: 'audited', name: 'Audited' },
      headers: { 'user-agent': 'vitest-agent/1.0', 'x-request-id': 'audit-req-0001' },
    });
    expect(res.statusCode).toBe(201);
    const [row] = await logsOf('audit-req-0001');
    expect(row).toMatchObject({
      tenantId: t.demoTenantId,
      userId: auditor.userId,
      username: auditor.username,
      module: 'system',
      operation: 'system.dict_type.create',
      method: 'POST',
      path: '/api/dict-types',
      statusCode: 201,
      errorKey: null,
      ip: '127.0.0.1',
      userAgent: 'vitest-agent/1.0',
    });
    expect(row?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('records failures with their status and error key', async () => {
    const cases = [
      {
        id: 'audit-req-0409',
        body: { code: 'audited', name: 'Again' },
        token: auditor.token,
        status: 409,
        key: 'system.dict_type_exists',
      },
      {
        id: 'audit-req-0400',
        body: { code: '', name: 'Bad' },
        token: auditor.token,
        status: 400,
        key: 'request.validation_failed',
      },
      {
        id: 'audit-req-0403',
        body: { code: 'denied', name: 'No' },
        token: nobody.token,
        status: 403,
        key: 'auth.permission_denied',
      },
    ];
    for (const c of cases) {
      const res = await call(t.app, 'POST', '/api/dict-types', {
        token: c.token,
        body: c.body,
        headers: { 'x-request-id': c.id },
      });
      expect(res.statusCode).toBe(c.status);
      const [row] = await logsOf(c.id);
      expect(row).toMatchObject({ operation: 'system.dict_type.create', statusCode: c.status, errorKey: c.key });
    }
  });

  it('does not record reads, anonymous requests or routes declared without audit', async () => {
    await call(t.app, 'GET', '/api/dict-types', {
      token: auditor.token,
      headers: { 'x-request-id': 'audit-req-read' },
    });
    await call(t.app, 'POST', '/api/dict-types', {
      body: { code: 'anon', name: 'Anon' },
      headers: { 'x-request-id': 'audit-req-anon' },
    });
    await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'nobody', password: 'whatever-pass', tenantCode: 'demo' },
      headers: { 'x-request-id': 'audit-req-login' },
    });
    for (const id of ['audit-req-read', 'audit-req-anon', 'audit-req-login']) expect(await logsOf(id)).toHaveLength(0);
  });

  it('records in the tenant a super administrator acts in (X-Tenant-Id)', async () => {
    await call(t.app, 'POST', '/api/dict-types', {
      token: t.adminToken,
      tenantId: other.tenantId,
      body: { code: 'by_super', name: 'By super' },
      headers: { 'x-request-id': 'audit-req-super' },
    });
    const [row] = await logsOf('audit-req-super');
    expect(row).toMatchObject({ tenantId: other.tenantId, username: 'admin', statusCode: 201 });
  });
});

describe('GET /api/operation-logs', () => {
  it("lists the tenant's log newest first with every filter", async () => {
    await settled();
    const token = auditor.token;
    const all = await call(t.app, 'GET', '/api/operation-logs?pageSize=200', { token });
    expect(all.statusCode).toBe(200);
    const list = all.json().data.list as { id: number; requestId: string; createdAt: string }[];
    expect(list.map((r) => r.id)).toEqual([...list.map((r) => r.id)].sort((a, b) => b - a));
    expect(list.map((r) => r.requestId)).toContain('audit-req-0001');
    expect(list.map((r) => r.requestId)).not.toContain('audit-req-super');

    const q = async (query: string) =>
      (
        (await call(t.app, 'GET', `/api/operation-logs?${query}`, { token })).json().data.list as {
          requestId: string;
        }[]
      ).map((r) => r.requestId);
    expect(await q('statusCode=409')).toEqual(['audit-req-0409']);
    expect(await q(`userId=${nobody.userId}`)).toEqual(['audit-req-0403']);
    expect(await q(`username=${nobody.username.slice(1, 6)}`)).toEqual(['audit-req-0403']);
    expect(await q('module=system&operation=system.dict_type.create&statusCode=201')).toEqual(['audit-req-0001']);
    expect(await q('ip=127.0')).toHaveLength(list.length);
    expect(await q('module=nothing')).toEqual([]);
    const first = list[list.length - 1]?.createdAt as string;
    expect(await q(`to=${encodeURIComponent(first)}`)).toEqual([]);
    expect((await q(`from=${encodeURIComponent(first)}`)).length).toBe(list.length);
  });

  it('rejects bad filters with 400 naming them', async () => {
    const res = await call(t.app, 'GET', '/api/operation-logs?statusCode=abc&from=yesterday&pageSize=0', {
      token: auditor.token,
    });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['statusCode', 'from', 'pageSize']));
  });

  it('answers 403 without monitor:operation-log:list', async () => {
    const res = await call(t.app, 'GET', '/api/operation-logs', { token: nobody.token });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('auth.permission_denied');
  });

  it("never shows another tenant's records", async () => {
    const res = await call(t.app, 'GET', '/api/operation-logs?pageSize=200', { token: other.adminToken });
    const ids = (res.json().data.list as { requestId: string }[]).map((r) => r.requestId);
    expect(ids).toContain('audit-req-super');
    expect(ids).not.toContain('audit-req-0001');
  });
});

describe('GET /api/profile/operation-logs', () => {
  it("shows the caller's own records only, with no permission needed", async () => {
    await settled();
    const mine = await call(t.app, 'GET', '/api/profile/operation-logs', { token: nobody.token });
    expect(mine.statusCode).toBe(200);
    expect((mine.json().data.list as { requestId: string; userId: number }[]).map((r) => r.requestId)).toEqual([
      'audit-req-0403',
    ]);
    const auditors = await call(t.app, 'GET', '/api/profile/operation-logs?pageSize=200', { token: auditor.token });
    expect((auditors.json().data.list as { userId: number }[]).every((r) => r.userId === auditor.userId)).toBe(true);
    const bad = await call(t.app, 'GET', '/api/profile/operation-logs?to=soon', { token: nobody.token });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['to']);
    expect((await call(t.app, 'GET', '/api/profile/operation-logs')).statusCode).toBe(401);
  });
});

describe('operationStats', () => {
  it("counts the scope's operations of the UTC day of `now`", async () => {
    const tenant = await createTenant(t);
    const row = (createdAt: string, tenantId = tenant.tenantId) => ({
      tenantId,
      userId: null,
      username: 'x',
      module: 'system',
      operation: 'system.x.y',
      method: 'POST',
      path: '/x',
      statusCode: 200,
      ip: '10.0.0.1',
      durationMs: 1,
      requestId: `stats-${createdAt}-${tenantId}`,
      createdAt: new Date(createdAt),
    });
    await t.database.db
      .insert(operationLogs)
      .values([
        row('2030-03-01T23:59:59.999Z'),
        row('2030-03-02T00:00:00.000Z'),
        row('2030-03-02T14:00:00.000Z'),
        row('2030-03-03T00:00:00.000Z'),
        row('2030-03-02T12:00:00.000Z', other.tenantId),
      ]);
    const stats = await operationStats(
      t.database.db,
      { tenantId: tenant.tenantId },
      new Date('2030-03-02T15:00:00.000Z'),
    );
    expect(stats).toEqual({ todayOperations: 2 });
  });
});
