import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/modules/identity/tables.ts';
import { announcementReads, announcements } from '../../src/modules/messaging/announcements/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { buildOrg, draft, inboxIds, type Org, published, unreadCount } from './announcements-helpers.ts';

/**
 * Who sees what: role, department (with sub-departments), user and tenant-wide announcements,
 * each visible to exactly the users it reaches; read marks, unread counts and read statistics.
 */
let t: TestApp;
let org: Org;
let other: TenantFixture;
let admin: string;
const ids = { role: 0, dept: 0, user: 0, all: 0, draft: 0, otherTenant: 0 };

beforeAll(async () => {
  t = await createTestApp();
  admin = t.demoAdminToken;
  org = await buildOrg(t, admin, 'demo');
  other = await createTenant(t);
  ids.role = await published(t, admin, {
    title: 'Editors',
    targetType: 'targeted',
    targets: [{ type: 'role', id: org.editors }],
  });
  ids.dept = await published(t, admin, {
    title: 'Engineering',
    priority: 'high',
    targetType: 'targeted',
    targets: [{ type: 'dept', id: org.depts.eng }],
  });
  ids.user = await published(t, admin, {
    title: 'For Carol',
    priority: 'urgent',
    targetType: 'targeted',
    targets: [{ type: 'user', id: org.carol.id }],
  });
  ids.all = await published(t, admin, { title: 'Everyone', priority: 'low' });
  ids.draft = await draft(t, admin, { title: 'Not yet' });
  ids.otherTenant = await published(t, other.adminToken, { title: 'Other tenant, all' });
});
afterAll(async () => t?.close());

const mine = (list: number[]) => list.filter((id) => Object.values(ids).includes(id)).sort((a, b) => a - b);
const sorted = (...list: number[]) => [...list].sort((a, b) => a - b);

describe('announcement audience', () => {
  it('shows each announcement to exactly the users it reaches', async () => {
    expect(mine(await inboxIds(t, org.alice.token))).toEqual(sorted(ids.dept, ids.all)); // backend ⊂ eng
    expect(mine(await inboxIds(t, org.erin.token))).toEqual(sorted(ids.dept, ids.all));
    expect(mine(await inboxIds(t, org.bob.token))).toEqual(sorted(ids.role, ids.all));
    expect(mine(await inboxIds(t, org.carol.token))).toEqual(sorted(ids.user, ids.all));
    expect(mine(await inboxIds(t, admin))).toEqual([ids.all]);
    expect(mine(await inboxIds(t, other.adminToken))).toEqual([ids.otherTenant]);
  });

  it('lists the board by priority and the inbox newest first, with content and read state', async () => {
    const board = await call(t.app, 'GET', '/api/announcements/published', { token: org.carol.token });
    expect(board.statusCode).toBe(200);
    const list = board.json().data.list;
    expect(list.map((a: { id: number }) => a.id)).toEqual([ids.user, ids.all]); // urgent before low
    expect(list[0]).toMatchObject({
      title: 'For Carol',
      content: '<p>Body</p>',
      priority: 'urgent',
      type: 'notice',
      isRead: false,
      readAt: null,
      expireTime: null,
    });
    expect(Date.parse(list[0].publishTime)).not.toBeNaN();
    expect(await inboxIds(t, org.carol.token)).toEqual([ids.all, ids.user]); // published last comes first
    const page = await call(t.app, 'GET', '/api/announcements/inbox?page=2&pageSize=1', { token: org.carol.token });
    expect(page.json().data).toMatchObject({ total: 2, page: 2, pageSize: 1 });
    expect(page.json().data.list.map((a: { id: number }) => a.id)).toEqual([ids.user]);
  });

  it('marks one read idempotently, counts unread, filters by isRead', async () => {
    expect(await unreadCount(t, org.alice.token)).toBe(2);
    const first = await call(t.app, 'POST', `/api/announcements/${ids.dept}/read`, { token: org.alice.token });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toEqual({ id: ids.dept, readAt: expect.any(String) });
    const again = await call(t.app, 'POST', `/api/announcements/${ids.dept}/read`, { token: org.alice.token });
    expect(again.json().data.readAt).toBe(first.json().data.readAt);

    expect(await unreadCount(t, org.alice.token)).toBe(1);
    expect(await inboxIds(t, org.alice.token, '&isRead=true')).toEqual([ids.dept]);
    expect(await inboxIds(t, org.alice.token, '&isRead=false')).toEqual([ids.all]);
    const inbox = await call(t.app, 'GET', '/api/announcements/inbox', { token: org.alice.token });
    const read = inbox.json().data.list.find((a: { id: number }) => a.id === ids.dept);
    expect(read).toMatchObject({ isRead: true, readAt: first.json().data.readAt });
    // Erin is in the same audience, and her state is her own.
    expect(await unreadCount(t, org.erin.token)).toBe(2);
  });

  it('answers 404 for an announcement that does not reach me, and writes no read mark', async () => {
    const before = await rowCount(t, announcementReads);
    for (const [token, id] of [
      [org.alice.token, ids.role], // targeted at a role she lacks
      [org.bob.token, ids.user], // targeted at another user
      [org.alice.token, ids.draft], // not published
      [org.alice.token, ids.otherTenant], // another tenant's, sent to all of it
      [admin, ids.otherTenant],
      [org.alice.token, 999_999],
    ] as const) {
      expectError(
        await call(t.app, 'POST', `/api/announcements/${id}/read`, { token }),
        404,
        'messaging.announcement_not_found',
      );
    }
    expect(await rowCount(t, announcementReads)).toBe(before);
  });

  it('marks everything that reaches me read at once', async () => {
    expect(await unreadCount(t, org.bob.token)).toBe(2);
    const res = await call(t.app, 'POST', '/api/announcements/read-all', { token: org.bob.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ marked: 2 });
    expect(await unreadCount(t, org.bob.token)).toBe(0);
    expect(mine(await inboxIds(t, org.bob.token, '&isRead=true'))).toEqual(sorted(ids.role, ids.all));
    const again = await call(t.app, 'POST', '/api/announcements/read-all', { token: org.bob.token });
    expect(again.json().data).toEqual({ marked: 0 });
    // Only what reaches bob was marked: nothing of other announcements, nothing for other users.
    const rows = await t.database.db.select().from(announcementReads).where(eq(announcementReads.userId, org.bob.id));
    expect(sorted(...rows.map((r) => r.announcementId))).toEqual(sorted(ids.role, ids.all));
    expect(await unreadCount(t, org.carol.token)).toBe(2);
  });

  it('counts the audience, readers and unread per announcement', async () => {
    const stats = async (id: number, query = '') => {
      const res = await call(t.app, 'GET', `/api/announcements/${id}/read-stats${query}`, { token: admin });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data;
    };
    // dept eng: alice (backend) and erin; dave is disabled. Alice has read it.
    const dept = await stats(ids.dept);
    expect(dept).toMatchObject({ audience: 2, read: 1, unread: 1 });
    expect(dept.readers).toEqual({
      list: [{ userId: org.alice.id, readAt: expect.any(String) }],
      total: 1,
      page: 1,
      pageSize: 20,
    });

    // all: every active user of the demo tenant; bob (read-all) has read it.
    const active = (
      await t.database.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.tenantId, t.demoTenantId), eq(users.status, 'active')))
    ).length;
    expect(active).toBeGreaterThanOrEqual(5); // the demo admin and the four active users above
    expect(await stats(ids.all)).toMatchObject({ audience: active, read: 1, unread: active - 1 });

    await call(t.app, 'POST', `/api/announcements/${ids.all}/read`, { token: org.carol.token });
    await call(t.app, 'POST', `/api/announcements/${ids.all}/read`, { token: org.alice.token });
    const all = await stats(ids.all, '?page=2&pageSize=2');
    expect(all).toMatchObject({ read: 3, unread: active - 3 });
    // latest first: alice, carol | bob
    expect(all.readers).toMatchObject({ list: [{ userId: org.bob.id }], total: 3, page: 2, pageSize: 2 });

    expect(await stats(ids.draft)).toMatchObject({ read: 0, readers: { list: [], total: 0 } });
    expectError(
      await call(t.app, 'GET', `/api/announcements/${ids.otherTenant}/read-stats`, { token: admin }),
      404,
      'messaging.announcement_not_found',
    );
  });

  it('hides withdrawn and expired announcements again, and shows a republished one', async () => {
    const withdraw = await call(t.app, 'POST', `/api/announcements/${ids.user}/withdraw`, { token: admin });
    expect(withdraw.statusCode).toBe(200);
    expect(mine(await inboxIds(t, org.carol.token))).toEqual([ids.all]);
    expectError(
      await call(t.app, 'POST', `/api/announcements/${ids.user}/read`, { token: org.carol.token }),
      404,
      'messaging.announcement_not_found',
    );
    await call(t.app, 'POST', `/api/announcements/${ids.user}/publish`, { token: admin });
    expect(mine(await inboxIds(t, org.carol.token))).toEqual(sorted(ids.user, ids.all));

    // Expiry passes while it is published (set in the database: the API only takes future times).
    const expiring = await published(t, admin, {
      title: 'Soon gone',
      expireTime: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(await inboxIds(t, org.carol.token)).toContain(expiring);
    const unread = await unreadCount(t, org.carol.token);
    await t.database.db
      .update(announcements)
      .set({ expireTime: new Date(Date.now() - 1000) })
      .where(eq(announcements.id, expiring));
    expect(await inboxIds(t, org.carol.token)).not.toContain(expiring);
    expect(await unreadCount(t, org.carol.token)).toBe(unread - 1);
    expectError(
      await call(t.app, 'POST', `/api/announcements/${expiring}/read`, { token: org.carol.token }),
      404,
      'messaging.announcement_not_found',
    );
  });

  it('follows the user when their department changes', async () => {
    expect(mine(await inboxIds(t, org.carol.token))).not.toContain(ids.dept);
    const moved = await call(t.app, 'PUT', `/api/users/${org.carol.id}`, {
      token: admin,
      body: { departmentId: org.depts.backend },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(mine(await inboxIds(t, org.carol.token))).toContain(ids.dept);
  });

  it('needs a signed-in user', async () => {
    for (const url of ['/api/announcements/inbox', '/api/announcements/published', '/api/announcements/unread-count']) {
      expectError(await call(t.app, 'GET', url), 401, 'auth.unauthenticated');
    }
    expectError(await call(t.app, 'POST', '/api/announcements/read-all'), 401, 'auth.unauthenticated');
  });
});
