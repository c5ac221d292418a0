import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEvents, errorGroupIdentities, errorGroups } from '../../src/modules/monitor/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { DAY, HOUR, insertEvent, insertGroup, insertIdentity } from './issues-fixtures.ts';

/** Overview, event list and retention of the issue views (spec §4.6). */
const NOW = new Date('2026-03-15T10:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let reader: string;
let nobody: string;

beforeAll(async () => {
  t = await createTestApp({ clock: () => NOW });
  a = await createTenant(t, 'view-a');
  b = await createTenant(t, 'view-b');
  reader = (await createUserWithPermissions(t, ['monitor:error:list'], { tenantId: a.tenantId, tenantCode: a.code }))
    .token;
  nobody = (await createUserWithPermissions(t, [], { tenantId: a.tenantId, tenantCode: a.code })).token;
});
afterAll(async () => t?.close());

describe('GET /api/frontend-errors/overview', () => {
  it('counts kinds, unresolved, occurrences, distinct users, new today, the trend and top issues', async () => {
    const tenant = await createTenant(t);
    const at = (id: number) => ({ id, tenantId: tenant.tenantId });
    // g1: first seen today, 3 events today; g2: seen since 20 days, 1 event 2 days ago + 4 older than 14 days
    const g1 = await insertGroup(t, tenant.tenantId, {
      firstSeenAt: ago(2 * HOUR),
      lastSeenAt: ago(HOUR),
      eventCount: 3,
    });
    const g2 = await insertGroup(t, tenant.tenantId, {
      type: 'http_error',
      status: 'resolved',
      firstSeenAt: ago(20 * DAY),
      lastSeenAt: ago(2 * DAY),
      eventCount: 5,
    });
    for (const h of [1, 2, 3]) await insertEvent(t, at(g1), ago(h * HOUR));
    await insertEvent(t, at(g2), ago(2 * DAY), { type: 'http_error' });
    for (const d of [15, 16, 17, 20]) await insertEvent(t, at(g2), ago(d * DAY), { type: 'http_error' });
    // u:1 hit both issues: one affected user, not two
    await insertIdentity(t, at(g1), 'u:1', ago(HOUR));
    await insertIdentity(t, at(g2), 'u:1', ago(2 * DAY));
    await insertIdentity(t, at(g2), 'a:s1', ago(2 * DAY));
    // ten more issues with one recent event each, first seen yesterday: the top list stops at 10
    const small: number[] = [];
    for (let i = 0; i < 10; i++) {
      const id = await insertGroup(t, tenant.tenantId, {
        type: 'resource_error',
        firstSeenAt: ago(DAY),
        lastSeenAt: ago(DAY),
        eventCount: 1,
      });
      small.push(id);
      await insertEvent(t, at(id), ago(DAY), { type: 'resource_error' });
    }
    // another tenant's issue must not count
    const other = await insertGroup(t, b.tenantId, { firstSeenAt: ago(HOUR), eventCount: 9 });
    await insertEvent(t, { id: other, tenantId: b.tenantId }, ago(HOUR));

    const res = await call(t.app, 'GET', '/api/frontend-errors/overview', { token: tenant.adminToken });
    expect(res.statusCode, res.body).toBe(200);
    const o = res.json().data;
    expect(o.kinds).toHaveLength(7);
    expect(o.kinds).toContainEqual({ type: 'js_error', issues: 1, events: 3 });
    expect(o.kinds).toContainEqual({ type: 'http_error', issues: 1, events: 5 });
    expect(o.kinds).toContainEqual({ type: 'resource_error', issues: 10, events: 10 });
    expect(o.kinds).toContainEqual({ type: 'crash', issues: 0, events: 0 });
    expect(o).toMatchObject({ unresolved: 11, totalEvents: 18, affectedUsers: 2, newToday: 1 });
    expect(o.trend).toHaveLength(14);
    expect(o.trend[13]).toEqual({ date: '2026-03-15', count: 3 });
    expect(o.trend[12]).toEqual({ date: '2026-03-14', count: 10 });
    expect(o.trend[11]).toEqual({ date: '2026-03-13', count: 1 });
    expect(o.trend.slice(0, 11).every((d: { count: number }) => d.count === 0)).toBe(true);
    expect(o.topIssues).toHaveLength(10);
    expect(o.topIssues[0]).toMatchObject({ id: g1, events: 3, type: 'js_error', status: 'unresolved' });
    // g2 has 5 events in all but only 1 in the window; ties order newest issue first, so g2 drops out
    expect(o.topIssues.map((x: { id: number }) => x.id)).not.toContain(g2);
  });

  it('an empty tenant answers zeros and 14 zero days; needs monitor:error:list', async () => {
    const empty = await createTenant(t);
    const o = (await call(t.app, 'GET', '/api/frontend-errors/overview', { token: empty.adminToken })).json().data;
    expect(o).toMatchObject({ unresolved: 0, totalEvents: 0, affectedUsers: 0, newToday: 0, topIssues: [] });
    expect(o.trend.map((d: { count: number }) => d.count)).toEqual(Array(14).fill(0));
    expect(o.trend[0].date).toBe('2026-03-02');
    expectError(
      await call(t.app, 'GET', '/api/frontend-errors/overview', { token: nobody }),
      403,
      'auth.permission_denied',
    );
  });
});

describe('GET /api/frontend-errors/events', () => {
  it('pages the tenant’s events newest first, filtered by groupId, type and time', async () => {
    const g1 = await insertGroup(t, a.tenantId);
    const g2 = await insertGroup(t, a.tenantId, { type: 'crash' });
    const e1 = await insertEvent(t, { id: g1, tenantId: a.tenantId }, ago(3 * HOUR), { stack: 'at x (a.js:1:1)' });
    const e2 = await insertEvent(t, { id: g1, tenantId: a.tenantId }, ago(HOUR));
    const e3 = await insertEvent(t, { id: g2, tenantId: a.tenantId }, ago(2 * HOUR), { type: 'crash' });
    const gB = await insertGroup(t, b.tenantId);
    await insertEvent(t, { id: gB, tenantId: b.tenantId }, ago(HOUR));
    const get = async (q: string, token = reader) => {
      const res = await call(t.app, 'GET', `/api/frontend-errors/events${q}`, { token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data;
    };
    const all = await get('');
    expect(all.list.map((e: { id: number }) => e.id)).toEqual([e2, e3, e1]);
    expect(all.total).toBe(3);
    expect(all.list[2]).toMatchObject({ groupId: g1, stack: 'at x (a.js:1:1)', breadcrumbs: [], context: {} });
    expect(all.list[2]).not.toHaveProperty('tenantId');
    expect((await get(`?groupId=${g1}`)).list.map((e: { id: number }) => e.id)).toEqual([e2, e1]);
    expect((await get('?type=crash')).list.map((e: { id: number }) => e.id)).toEqual([e3]);
    const window = `?from=${ago(3 * HOUR).toISOString()}&to=${ago(HOUR).toISOString()}`;
    expect((await get(window)).list.map((e: { id: number }) => e.id)).toEqual([e3, e1]);
    expect((await get(`?groupId=${gB}`)).total).toBe(0);
    expect((await get('?pageSize=1&page=2')).list.map((e: { id: number }) => e.id)).toEqual([e3]);
  });

  it('rejects bad filters naming the field, and callers without the permission', async () => {
    const res = await call(t.app, 'GET', '/api/frontend-errors/events?from=yesterday&groupId=0', { token: reader });
    expectError(res, 400, 'request.validation_failed', 'from');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain('groupId');
    expectError(
      await call(t.app, 'GET', '/api/frontend-errors/events', { token: nobody }),
      403,
      'auth.permission_denied',
    );
  });
});

describe('DELETE /api/frontend-errors/clean', () => {
  it('deletes events older than N days and the issues left without events, in the caller’s tenant only', async () => {
    const tenant = await createTenant(t);
    const at = (id: number) => ({ id, tenantId: tenant.tenantId });
    const old = await insertGroup(t, tenant.tenantId, { lastSeenAt: ago(40 * DAY), eventCount: 2, identityCount: 2 });
    await insertEvent(t, at(old), ago(40 * DAY));
    await insertEvent(t, at(old), ago(45 * DAY));
    await insertIdentity(t, at(old), 'u:1', ago(40 * DAY));
    await insertIdentity(t, at(old), 'u:2', ago(40 * DAY));
    const mixed = await insertGroup(t, tenant.tenantId, { lastSeenAt: ago(DAY), eventCount: 3, identityCount: 1 });
    await insertEvent(t, at(mixed), ago(31 * DAY));
    const kept = await insertEvent(t, at(mixed), ago(29 * DAY));
    const recent = await insertEvent(t, at(mixed), ago(DAY));
    await insertIdentity(t, at(mixed), 'u:1', ago(DAY));
    const oldOfB = await insertGroup(t, b.tenantId, { lastSeenAt: ago(40 * DAY), eventCount: 1 });
    await insertEvent(t, { id: oldOfB, tenantId: b.tenantId }, ago(40 * DAY));

    const res = await call(t.app, 'DELETE', '/api/frontend-errors/clean?days=30', { token: tenant.adminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ events: 3, groups: 1, identities: 2 });
    const db = t.database.db;
    expect(await rowById(t, errorGroups, old)).toBeUndefined();
    expect(await db.select().from(errorGroupIdentities).where(eq(errorGroupIdentities.groupId, old))).toEqual([]);
    expect(await rowById(t, errorGroups, mixed)).toMatchObject({ eventCount: 2, identityCount: 1 });
    const left = await db.select({ id: errorEvents.id }).from(errorEvents).where(eq(errorEvents.groupId, mixed));
    expect(left.map((e) => e.id).sort()).toEqual([kept, recent].sort());
    expect(await rowById(t, errorGroups, oldOfB)).toBeDefined();
    expect(await db.select().from(errorEvents).where(eq(errorEvents.groupId, oldOfB))).toHaveLength(1);
  });

  it('rejects days outside 1..3650 and callers without monitor:error:manage, deleting nothing', async () => {
    const g = await insertGroup(t, a.tenantId, { lastSeenAt: ago(400 * DAY) });
    await insertEvent(t, { id: g, tenantId: a.tenantId }, ago(400 * DAY));
    const before = await rowCount(t, errorEvents);
    const clean = (q: string, token = a.adminToken) =>
      call(t.app, 'DELETE', `/api/frontend-errors/clean${q}`, { token });
    expectError(await clean('?days=0'), 400, 'request.validation_failed', 'days');
    expectError(await clean('?days=3651'), 400, 'request.validation_failed', 'days');
    expectError(await clean(''), 400, 'request.validation_failed', 'days');
    expectError(await clean('?days=30', reader), 403, 'auth.permission_denied');
    expect(await rowCount(t, errorEvents)).toBe(before);
    expect(await rowById(t, errorGroups, g)).toBeDefined();
  });
});
