import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInsByDayQuery } from '../../src/modules/identity/stats-repository.ts';
import { loginLogs } from '../../src/modules/identity/tables.ts';
import { trendWindow } from '../../src/modules/ops/status-service.ts';
import { countByDayQuery } from '../../src/modules/system/operation-log-repository.ts';
import { operationLogs } from '../../src/modules/system/tables.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { createTenant, createUserWithPermissions, type TenantFixture, USER_PASSWORD } from '../helpers/fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;

/** Operation-log rows written as setup: the recorder itself is the system module's to test. */
async function operations(tenantId: number | null, count: number, at: Date) {
  const rows = Array.from({ length: count }, (_, i) => ({
    tenantId: platformKey(tenantId),
    username: 'someone',
    module: 'system',
    operation: 'system.dict.create',
    method: 'POST',
    path: '/api/dict-types',
    statusCode: 200,
    ip: '127.0.0.1',
    durationMs: 3,
    requestId: `setup-${tenantId}-${i}-${at.getTime()}`,
    createdAt: at,
  }));
  await t.database.db.insert(operationLogs).values(rows);
}

/** Sign-in records written as setup (the real sign-ins of the fixtures are today's). */
async function signIns(tenantId: number, success: boolean, count: number, at: Date) {
  const rows = Array.from({ length: count }, () => ({
    tenantId,
    username: 'someone',
    ip: '127.0.0.1',
    success,
    reason: success ? 'ok' : 'bad_password',
    createdAt: at,
  }));
  await t.database.db.insert(loginLogs).values(rows);
}

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** 00:00 UTC of today, by the app's clock */
let midnight: number;

beforeAll(async () => {
  t = await createTestApp();
  // Tenant A: its administrator and one more user, each signed in once.
  a = await createTenant(t);
  await createUserWithPermissions(t, [], { tenantId: a.tenantId, tenantCode: a.code });
  // Tenant B: busier, so any leak across tenants shows in A's numbers.
  b = await createTenant(t);
  for (let i = 0; i < 2; i++) await createUserWithPermissions(t, [], { tenantId: b.tenantId, tenantCode: b.code });
  const now = t.app.ctx.clock();
  midnight = trendWindow(now).to.getTime() - DAY;
  await operations(a.tenantId, 2, now);
  await operations(a.tenantId, 1, new Date(midnight - 1)); // the last instant of yesterday
  await operations(b.tenantId, 5, now);
  await operations(null, 4, now);
  // the trend's edges in A: the first instant of its first day (13 days ago) is in, the instant
  // before it and tomorrow are out
  await operations(a.tenantId, 3, new Date(midnight - 13 * DAY));
  await operations(a.tenantId, 7, new Date(midnight - 13 * DAY - 1));
  await operations(a.tenantId, 6, new Date(midnight + DAY));
  await signIns(a.tenantId, true, 2, new Date(midnight - 5 * DAY + 12 * HOUR));
  await signIns(a.tenantId, false, 3, new Date(midnight - 5 * DAY + 23 * HOUR));
  await signIns(a.tenantId, false, 1, new Date(midnight + 5));
  await signIns(a.tenantId, true, 4, new Date(midnight - 14 * DAY));
  // B on the same days: none of it is A's
  await signIns(b.tenantId, true, 9, new Date(midnight - 5 * DAY + 12 * HOUR));
  await signIns(b.tenantId, false, 9, new Date(midnight - 5 * DAY + 12 * HOUR));
  await operations(b.tenantId, 9, new Date(midnight - 13 * DAY));
});
afterAll(async () => t?.close());

const stats = async (token: string, tenantId?: number) => {
  const res = await call(t.app, 'GET', '/api/dashboard/stats', { token, ...(tenantId ? { tenantId } : {}) });
  expect(res.statusCode).toBe(200);
  return res.json().data;
};

type TrendDay = { date: string; loginsSucceeded: number; loginsFailed: number; operations: number };
const totals = ({ users, onlineUsers, todayLogins, todayOperations }: Record<string, unknown>) => ({
  users,
  onlineUsers,
  todayLogins,
  todayOperations,
});
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('GET /api/dashboard/stats', () => {
  it("counts the caller's tenant only", async () => {
    expect(totals(await stats(a.adminToken))).toEqual({ users: 2, onlineUsers: 2, todayLogins: 2, todayOperations: 2 });
    expect(totals(await stats(b.adminToken))).toEqual({ users: 3, onlineUsers: 3, todayLogins: 3, todayOperations: 5 });
  });

  it("gives 14 UTC days of the tenant's sign-ins and operations, oldest first, zeros filled", async () => {
    const { trend } = await stats(a.adminToken);
    expect(trend.timeZone).toBe('UTC');
    const days = trend.days as TrendDay[];
    expect(days.map((d) => d.date)).toEqual(Array.from({ length: 14 }, (_, i) => utcDate(midnight - (13 - i) * DAY)));
    const byDate = new Map(days.map((d) => [d.date, d]));
    const day = (ago: number) => byDate.get(utcDate(midnight - ago * DAY));
    // today: the fixtures' two real sign-ins and one failure just after midnight; the operations of now
    expect(day(0)).toMatchObject({ loginsSucceeded: 2, loginsFailed: 1, operations: 2 });
    expect(day(1)).toMatchObject({ loginsSucceeded: 0, loginsFailed: 0, operations: 1 });
    // two records of the same UTC day, at noon and at 23:00, land on that day; B's nine do not
    expect(day(5)).toMatchObject({ loginsSucceeded: 2, loginsFailed: 3, operations: 0 });
    // the first day holds its first instant; the instant before it (14 days ago) is outside
    expect(day(13)).toMatchObject({ loginsSucceeded: 0, loginsFailed: 0, operations: 3 });
    const empty = days.filter((d) => ![0, 1, 5, 13].some((ago) => d.date === utcDate(midnight - ago * DAY)));
    expect(empty).toHaveLength(10);
    for (const d of empty) expect(d).toEqual({ date: d.date, loginsSucceeded: 0, loginsFailed: 0, operations: 0 });
    // sums over the window: nothing of tomorrow, of 14 days ago, or of B
    const sum = (k: keyof Omit<TrendDay, 'date'>) => days.reduce((n, d) => n + d[k], 0);
    expect([sum('loginsSucceeded'), sum('loginsFailed'), sum('operations')]).toEqual([4, 4, 6]);
  });

  it("gives another tenant its own trend, and today's trend day agrees with today's totals", async () => {
    const s = await stats(b.adminToken);
    const days = s.trend.days as TrendDay[];
    expect(days).toHaveLength(14);
    expect(days.at(-1)).toMatchObject({ loginsSucceeded: s.todayLogins, operations: s.todayOperations });
    expect(days.find((d) => d.date === utcDate(midnight - 5 * DAY))).toMatchObject({
      loginsSucceeded: 9,
      loginsFailed: 9,
    });
    expect(days.find((d) => d.date === utcDate(midnight - 13 * DAY))).toMatchObject({ operations: 9 });
  });

  it('reads each series with one grouped query over the (tenant_id, created_at) index', async () => {
    const { from, to } = trendWindow(t.app.ctx.clock());
    const scope = { tenantId: a.tenantId };
    const plans: string[] = [];
    const pool = (t.database.db as unknown as { $client: pg.Pool }).$client;
    const client = await pool.connect();
    try {
      await client.query('begin');
      // the tables are tiny here: take the sequential scan away so the plan shows what an index allows
      await client.query('set local enable_seqscan = off');
      for (const q of [
        signInsByDayQuery(t.database.db, scope, from, to),
        countByDayQuery(t.database.db, scope, from, to),
      ]) {
        const { sql, params } = q.toSQL();
        const res = await client.query(`explain ${sql}`, params);
        plans.push(res.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
      }
    } finally {
      await client.query('rollback');
      client.release();
    }
    expect(plans[0]).toContain('login_logs_tenant_time');
    expect(plans[1]).toContain('operation_logs_tenant_time');
    for (const plan of plans) expect(plan).toMatch(/Aggregate/);
  });

  it("does not move when another tenant's numbers do", async () => {
    const before = await stats(a.adminToken);
    await login(t.app, 'admin', USER_PASSWORD, b.code);
    await createUserWithPermissions(t, [], { tenantId: b.tenantId, tenantCode: b.code });
    await operations(b.tenantId, 3, t.app.ctx.clock());
    expect(await stats(a.adminToken)).toEqual(before);
    const after = await stats(b.adminToken);
    expect(after).toMatchObject({ users: 4, todayLogins: 5, todayOperations: 8 });
    expect(after.trend.days.at(-1)).toMatchObject({ loginsSucceeded: 5, operations: 8 });
  });

  it('gives the super administrator the numbers of the tenant named by X-Tenant-Id', async () => {
    expect(await stats(t.adminToken, a.tenantId)).toEqual(await stats(a.adminToken));
  });

  it('answers 403 without dashboard:stats:view', async () => {
    const user = await createUserWithPermissions(t, ['monitor:server:view'], {
      tenantId: a.tenantId,
      tenantCode: a.code,
    });
    const res = await call(t.app, 'GET', '/api/dashboard/stats', { token: user.token });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'auth.permission_denied' });
  });

  it('answers 401 without a token', async () => {
    expect((await call(t.app, 'GET', '/api/dashboard/stats')).statusCode).toBe(401);
  });
});
