import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEvents, errorGroupIdentities, errorGroups } from '../../src/modules/monitor/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { DAY, HOUR, insertEvent, insertGroup, insertIdentity } from './issues-fixtures.ts';

/** Issue list, detail, triage and batches (spec §3.4, §4.6) over fixtures written to the tables. */
const NOW = new Date('2026-03-15T10:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let reader: string;
let nobody: string;
const g: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp({ clock: () => NOW });
  a = await createTenant(t, 'mon-a');
  b = await createTenant(t, 'mon-b');
  reader = (await createUserWithPermissions(t, ['monitor:error:list'], { tenantId: a.tenantId, tenantCode: a.code }))
    .token;
  nobody = (await createUserWithPermissions(t, [], { tenantId: a.tenantId, tenantCode: a.code })).token;
  g.typeError = await insertGroup(t, a.tenantId, {
    message: 'TypeError: Cannot read properties of undefined (reading "id")',
    lastSeenAt: ago(HOUR),
    eventCount: 6,
    identityCount: 3,
    firstRelease: '1.0.0',
    lastRelease: '1.0.1',
  });
  g.http = await insertGroup(t, a.tenantId, {
    type: 'http_error',
    level: 'warning',
    status: 'resolved',
    resolvedAt: ago(3 * DAY),
    message: 'Request failed with status 500',
    environment: 'staging',
    lastSeenAt: ago(2 * HOUR),
    eventCount: 50,
    firstRelease: '1.1.0',
    lastRelease: '1.1.0',
  });
  g.rejection = await insertGroup(t, a.tenantId, {
    type: 'promise_rejection',
    level: 'fatal',
    status: 'ignored',
    message: '100% of _chunks_ failed',
    lastSeenAt: ago(3 * HOUR),
    eventCount: 2,
  });
  g.many = await insertGroup(t, a.tenantId, { lastSeenAt: ago(5 * HOUR), eventCount: 22 });
  g.ofB = await insertGroup(t, b.tenantId, { message: 'B only', lastSeenAt: ago(HOUR), eventCount: 1 });
  g.platform = await insertGroup(t, null, { message: 'no tenant', lastSeenAt: ago(HOUR), eventCount: 1 });

  const typeError = { id: g.typeError, tenantId: a.tenantId };
  // today 08:00 (latest) and 03:00, 3 days ago twice, 13 days ago (first trend day), 20 days ago (outside)
  await insertEvent(t, typeError, ago(2 * HOUR), {
    message: 'TypeError: latest',
    stack: 'TypeError: latest\n    at f (app.js:1:10)',
    browser: 'Chrome',
    os: 'Windows',
  });
  await insertEvent(t, typeError, ago(7 * HOUR), { browser: 'Chrome', os: 'macOS', replayId: 'rp-42' });
  await insertEvent(t, typeError, ago(3 * DAY), { browser: 'Firefox', os: 'Windows' });
  await insertEvent(t, typeError, ago(3 * DAY + HOUR), { browser: 'Chrome', os: 'Windows' });
  await insertEvent(t, typeError, ago(13 * DAY), { browser: '', os: 'Linux' });
  await insertEvent(t, typeError, ago(20 * DAY), { browser: 'Chrome', os: 'Windows' });
  await insertIdentity(t, typeError, 'u:7', ago(3 * DAY));
  await insertIdentity(t, typeError, 'a:sess-1', ago(2 * HOUR));
  await insertIdentity(t, typeError, 'm:3', ago(DAY));
  for (let i = 0; i < 22; i++) await insertEvent(t, { id: g.many, tenantId: a.tenantId }, ago((i + 5) * HOUR));
  await insertEvent(t, { id: g.ofB, tenantId: b.tenantId }, ago(HOUR));
  await insertIdentity(t, { id: g.ofB, tenantId: b.tenantId }, 'u:99', ago(HOUR));
});
afterAll(async () => t?.close());

const list = (query: string, token = a.adminToken) =>
  call(t.app, 'GET', `/api/frontend-errors/groups${query}`, { token });
const ids = (res: { json(): { data: { list: { id: number }[] } } }) => res.json().data.list.map((r) => r.id);
const groupRow = (id: number) => rowById(t, errorGroups, id);

describe('GET /api/frontend-errors/groups', () => {
  it('lists the tenant’s issues, most recently seen first, without other tenants’ or platform rows', async () => {
    const res = await list('', reader);
    expect(res.statusCode, res.body).toBe(200);
    expect(ids(res)).toEqual([g.typeError, g.http, g.rejection, g.many]);
    expect(res.json().data).toMatchObject({ total: 4, page: 1, pageSize: 20 });
    const first = res.json().data.list[0];
    expect(first).toMatchObject({ type: 'js_error', status: 'unresolved', eventCount: 6, identityCount: 3 });
    expect(first.lastSeenAt).toBe(ago(HOUR).toISOString());
    expect(first).not.toHaveProperty('tenantId');
  });

  it('sorts by event count and pages', async () => {
    expect(ids(await list('?sort=eventCount'))).toEqual([g.http, g.many, g.typeError, g.rejection]);
    const page2 = await list('?sort=eventCount&page=2&pageSize=3');
    expect(ids(page2)).toEqual([g.rejection]);
    expect(page2.json().data.total).toBe(4);
  });

  it('filters by status, type, level, keyword, environment and release', async () => {
    expect(ids(await list('?status=resolved'))).toEqual([g.http]);
    expect(ids(await list('?type=promise_rejection'))).toEqual([g.rejection]);
    expect(ids(await list('?level=warning'))).toEqual([g.http]);
    expect(ids(await list('?keyword=cannot%20READ'))).toEqual([g.typeError]);
    // LIKE wildcards are taken literally
    expect(ids(await list('?keyword=%25'))).toEqual([g.rejection]);
    expect(ids(await list('?keyword=_chunks_'))).toEqual([g.rejection]);
    expect(ids(await list('?keyword=B%20only'))).toEqual([]);
    expect(ids(await list('?environment=staging'))).toEqual([g.http]);
    expect(ids(await list('?release=1.0.1'))).toEqual([g.typeError]);
    expect(ids(await list('?release=1.1.0&status=resolved'))).toEqual([g.http]);
  });

  it('platform scope sees only the issues no tenant was attributed to', async () => {
    expect(ids(await list('', t.adminToken))).toEqual([g.platform]);
  });

  it('rejects bad filters naming the field, and callers without the permission', async () => {
    expectError(await list('?status=open'), 400, 'request.validation_failed', 'status');
    expectError(await list('?sort=message'), 400, 'request.validation_failed', 'sort');
    expectError(await list('?pageSize=500'), 400, 'request.validation_failed', 'pageSize');
    expectError(await list('', nobody), 403, 'auth.permission_denied');
  });
});

describe('GET /api/frontend-errors/groups/:id', () => {
  const detail = (id: number, token = a.adminToken) =>
    call(t.app, 'GET', `/api/frontend-errors/groups/${id}`, { token });

  it('answers the latest stack, a 14-day trend with zeros, browsers, OS, affected users, recent events and links', async () => {
    const res = await detail(g.typeError, reader);
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json().data;
    expect(d).toMatchObject({ id: g.typeError, message: expect.stringContaining('Cannot read'), status: 'unresolved' });
    expect(d.latestEvent).toMatchObject({
      message: 'TypeError: latest',
      stack: expect.stringContaining('app.js:1:10'),
    });
    // no release on the event, so no source map can restore it: each frame says why
    expect(d.restoredStack).toEqual([
      { restored: false, reason: 'no_release', frame: { function: 'f', file: 'app.js', line: 1, column: 10 } },
    ]);

    expect(d.trend).toHaveLength(14);
    expect(d.trend[0]).toEqual({ date: '2026-03-02', count: 1 });
    expect(d.trend[13]).toEqual({ date: '2026-03-15', count: 2 });
    expect(d.trend[10]).toEqual({ date: '2026-03-12', count: 2 });
    expect(d.trend.filter((x: { count: number }) => x.count === 0)).toHaveLength(11);
    expect(d.trend.reduce((n: number, x: { count: number }) => n + x.count, 0)).toBe(5);

    expect(d.browsers).toEqual([
      { name: 'Chrome', count: 4 },
      { name: 'Firefox', count: 1 },
      { name: 'unknown', count: 1 },
    ]);
    expect(d.os).toEqual([
      { name: 'Windows', count: 4 },
      { name: 'Linux', count: 1 },
      { name: 'macOS', count: 1 },
    ]);
    expect(d.affectedUsers.count).toBe(3);
    expect(d.affectedUsers.latest.map((u: { identity: string }) => u.identity)).toEqual(['a:sess-1', 'm:3', 'u:7']);
    expect(d.recentEvents).toHaveLength(6);
    expect(d.recentEvents[0].message).toBe('TypeError: latest');
    expect(d.recentEvents[0]).not.toHaveProperty('stack');
    expect(d.links).toEqual({
      issue: `/monitor/frontend-errors?issue=${g.typeError}`,
      replay: '/analytics/replays?replay=rp-42',
    });
  });

  it('keeps the latest 20 events and has no replay link when no event has one', async () => {
    const d = (await detail(g.many)).json().data;
    expect(d.recentEvents).toHaveLength(20);
    expect(new Date(d.recentEvents[0].createdAt).getTime()).toBeGreaterThan(
      new Date(d.recentEvents[19].createdAt).getTime(),
    );
    expect(d.links.replay).toBeNull();
  });

  it('an issue without events has an all-zero trend and empty distributions', async () => {
    const d = (await detail(g.rejection)).json().data;
    expect(d.latestEvent).toBeNull();
    expect(d.trend).toHaveLength(14);
    expect(d.trend.every((x: { count: number }) => x.count === 0)).toBe(true);
    expect(d.browsers).toEqual([]);
    expect(d.affectedUsers).toEqual({ count: 0, latest: [] });
  });

  it('another tenant’s issue is 404; platform scope reads only its own', async () => {
    expectError(await detail(g.ofB), 404, 'monitor.error_group_not_found');
    expectError(await detail(g.typeError, t.adminToken), 404, 'monitor.error_group_not_found');
    expect((await detail(g.platform, t.adminToken)).statusCode).toBe(200);
    expectError(await detail(g.typeError, nobody), 403, 'auth.permission_denied');
  });
});

describe('PUT /api/frontend-errors/groups/:id', () => {
  const put = (id: number, body: object, token = a.adminToken) =>
    call(t.app, 'PUT', `/api/frontend-errors/groups/${id}`, { token, body });

  it('resolved records resolvedAt, a repeat keeps it, any other status clears it', async () => {
    const id = await insertGroup(t, a.tenantId);
    const res = await put(id, { status: 'resolved' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'resolved', resolvedAt: NOW.toISOString() });
    // g.http was resolved 3 days ago: resolving again changes nothing
    const again = await put(g.http, { status: 'resolved' });
    expect(again.json().data.resolvedAt).toBe(ago(3 * DAY).toISOString());
    for (const status of ['ignored', 'muted', 'unresolved'] as const) {
      await put(id, { status: 'resolved' });
      const moved = await put(id, { status });
      expect(moved.json().data).toMatchObject({ status, resolvedAt: null });
      expect((await groupRow(id))?.resolvedAt).toBeNull();
    }
  });

  it('sets assignee, level and note; null unassigns', async () => {
    const id = await insertGroup(t, a.tenantId);
    const res = await put(id, { assigneeId: a.adminUserId, level: 'fatal', note: 'looking into it' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ assigneeId: a.adminUserId, level: 'fatal', note: 'looking into it' });
    expect(await groupRow(id)).toMatchObject({ assigneeId: a.adminUserId, level: 'fatal', status: 'unresolved' });
    const cleared = await put(id, { assigneeId: null });
    expect(cleared.json().data).toMatchObject({ assigneeId: null, level: 'fatal', note: 'looking into it' });
  });

  it('refuses an assignee of another tenant or unknown, and bad fields, writing nothing', async () => {
    const id = await insertGroup(t, a.tenantId, { note: 'before' });
    const before = await groupRow(id);
    expectError(
      await put(id, { assigneeId: b.adminUserId, note: 'x' }),
      400,
      'request.validation_failed',
      'assigneeId',
    );
    expectError(await put(id, { assigneeId: 999_999 }), 400, 'request.validation_failed', 'assigneeId');
    expectError(await put(id, { status: 'closed' }), 400, 'request.validation_failed', 'status');
    expectError(await put(id, { level: 'debug' }), 400, 'request.validation_failed', 'level');
    expectError(await put(id, { note: 'n'.repeat(2001) }), 400, 'request.validation_failed', 'note');
    expect(await groupRow(id)).toEqual(before);
  });

  it('needs monitor:error:manage; another tenant’s issue is 404 and unchanged', async () => {
    const before = await groupRow(g.ofB);
    expectError(await put(g.typeError, { status: 'resolved' }, reader), 403, 'auth.permission_denied');
    expect((await groupRow(g.typeError))?.status).toBe('unresolved');
    expectError(await put(g.ofB, { status: 'resolved', note: 'x' }), 404, 'monitor.error_group_not_found');
    expect(await groupRow(g.ofB)).toEqual(before);
  });
});

describe('batches', () => {
  const batchStatus = (body: object, token = a.adminToken) =>
    call(t.app, 'POST', '/api/frontend-errors/groups/batch-status', { token, body });
  const batchDelete = (body: object, token = a.adminToken) =>
    call(t.app, 'DELETE', '/api/frontend-errors/groups/batch', { token, body });

  it('batch-status moves every issue, recording and clearing resolvedAt', async () => {
    const x = await insertGroup(t, a.tenantId);
    const y = await insertGroup(t, a.tenantId, { status: 'muted' });
    const res = await batchStatus({ ids: [x, y], status: 'resolved' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.affected.sort()).toEqual([x, y].sort());
    for (const id of [x, y]) expect(await groupRow(id)).toMatchObject({ status: 'resolved', resolvedAt: NOW });
    await batchStatus({ ids: [x, y], status: 'unresolved' });
    for (const id of [x, y]) expect(await groupRow(id)).toMatchObject({ status: 'unresolved', resolvedAt: null });
  });

  it('batch-status is all or nothing: an id of another tenant is 404 and nothing changes', async () => {
    const x = await insertGroup(t, a.tenantId);
    const res = await batchStatus({ ids: [x, g.ofB], status: 'ignored' });
    expectError(res, 404, 'monitor.error_group_not_found', 'ids');
    expect(res.json().message).toContain(String(g.ofB));
    expect((await groupRow(x))?.status).toBe('unresolved');
    expect((await groupRow(g.ofB))?.status).toBe('unresolved');
    expectError(await batchStatus({ ids: [], status: 'ignored' }), 400, 'request.validation_failed', 'ids');
    expectError(await batchStatus({ ids: [x], status: 'gone' }), 400, 'request.validation_failed', 'status');
    expectError(await batchStatus({ ids: [x], status: 'ignored' }, reader), 403, 'auth.permission_denied');
    expect((await groupRow(x))?.status).toBe('unresolved');
  });

  it('batch delete removes the issues with their events and identities, and nothing else', async () => {
    const x = await insertGroup(t, a.tenantId);
    const keep = await insertGroup(t, a.tenantId);
    for (const id of [x, keep]) {
      await insertEvent(t, { id, tenantId: a.tenantId }, ago(HOUR));
      await insertIdentity(t, { id, tenantId: a.tenantId }, 'u:1', ago(HOUR));
    }
    expectError(await batchDelete({ ids: [x] }, reader), 403, 'auth.permission_denied');
    expectError(await batchDelete({ ids: [x, g.ofB] }), 404, 'monitor.error_group_not_found', 'ids');
    expect(await groupRow(x)).toBeDefined();
    expect(await groupRow(g.ofB)).toBeDefined();
    expectError(await batchDelete({ ids: [x, x] }), 400, 'request.validation_failed', 'ids');

    const res = await batchDelete({ ids: [x] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.affected).toEqual([x]);
    const db = t.database.db;
    expect(await groupRow(x)).toBeUndefined();
    expect(await db.select().from(errorEvents).where(eq(errorEvents.groupId, x))).toEqual([]);
    expect(await db.select().from(errorGroupIdentities).where(eq(errorGroupIdentities.groupId, x))).toEqual([]);
    expect(
      await db
        .select()
        .from(errorEvents)
        .where(inArray(errorEvents.groupId, [keep, g.ofB])),
    ).toHaveLength(2);
    expect(await db.select().from(errorGroupIdentities).where(eq(errorGroupIdentities.groupId, keep))).toHaveLength(1);
  });
});
