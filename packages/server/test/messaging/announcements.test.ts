import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  announcementReads,
  announcementRecipients,
  announcements,
} from '../../src/modules/messaging/announcements/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, fieldsOf, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { buildOrg, draft, type Org, published } from './announcements-helpers.ts';

/** Administration of announcements: CRUD with targets, publish/withdraw, batch delete, permissions, tenants. */
let t: TestApp;
let org: Org;
let other: TenantFixture;
let otherRole: number;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = t.demoAdminToken;
  org = await buildOrg(t, admin, 'demo');
  other = await createTenant(t);
  const role = await call(t.app, 'POST', '/api/roles', { token: other.adminToken, body: { code: 'x', name: 'X' } });
  otherRole = role.json().data.id;
});
afterAll(async () => t?.close());

const targetsIn = async (id: number) =>
  (await t.database.db.select().from(announcementRecipients).where(eq(announcementRecipients.announcementId, id)))
    .map((r) => `${r.targetType}:${r.targetId}`)
    .sort();

describe('announcements (admin)', () => {
  it('creates a targeted draft, reads it with its targets, lists with filters, updates and deletes it', async () => {
    const res = await call(t.app, 'POST', '/api/announcements', {
      token: admin,
      body: {
        title: 'Maintenance window',
        content: '<p>Saturday <strong>02:00</strong><script>alert(1)</script></p>',
        type: 'maintenance',
        priority: 'high',
        targetType: 'targeted',
        targets: [
          { type: 'dept', id: org.depts.eng },
          { type: 'role', id: org.editors },
          { type: 'user', id: org.carol.id },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({
      title: 'Maintenance window',
      content: '<p>Saturday <strong>02:00</strong></p>',
      type: 'maintenance',
      priority: 'high',
      targetType: 'targeted',
      publishStatus: 'draft',
      publishTime: null,
      expireTime: null,
      createdBy: expect.any(Number),
    });
    expect(await targetsIn(created.id)).toEqual(
      [`dept:${org.depts.eng}`, `role:${org.editors}`, `user:${org.carol.id}`].sort(),
    );

    const got = await call(t.app, 'GET', `/api/announcements/${created.id}`, { token: admin });
    expect(got.json().data.targets).toEqual([
      { type: 'dept', id: org.depts.eng },
      { type: 'role', id: org.editors },
      { type: 'user', id: org.carol.id },
    ]);

    const list = await call(t.app, 'GET', '/api/announcements?keyword=MAINTENANCE&type=maintenance&status=draft', {
      token: admin,
    });
    expect(list.json().data.list.map((a: { id: number }) => a.id)).toEqual([created.id]);
    const none = await call(t.app, 'GET', '/api/announcements?keyword=maintenance&status=published', { token: admin });
    expect(none.json().data).toMatchObject({ list: [], total: 0 });

    const upd = await call(t.app, 'PUT', `/api/announcements/${created.id}`, {
      token: admin,
      body: { title: 'Moved', targets: [{ type: 'user', id: org.alice.id }], expireTime: '2999-01-01T00:00:00Z' },
    });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json().data).toMatchObject({
      title: 'Moved',
      priority: 'high',
      expireTime: '2999-01-01T00:00:00.000Z',
      targets: [{ type: 'user', id: org.alice.id }],
    });
    expect(await targetsIn(created.id)).toEqual([`user:${org.alice.id}`]);

    // Switching to all drops the targets; switching back needs new ones.
    const toAll = await call(t.app, 'PUT', `/api/announcements/${created.id}`, {
      token: admin,
      body: { targetType: 'all' },
    });
    expect(toAll.json().data).toMatchObject({ targetType: 'all', targets: [] });
    expect(await targetsIn(created.id)).toEqual([]);
    const back = await call(t.app, 'PUT', `/api/announcements/${created.id}`, {
      token: admin,
      body: { targetType: 'targeted' },
    });
    expectError(back, 400, 'request.validation_failed', 'targets');

    expect((await call(t.app, 'DELETE', `/api/announcements/${created.id}`, { token: admin })).statusCode).toBe(200);
    expect(await rowById(t, announcements, created.id)).toBeUndefined();
    expectError(
      await call(t.app, 'DELETE', `/api/announcements/${created.id}`, { token: admin }),
      404,
      'messaging.announcement_not_found',
    );
  });

  it('rejects bad input with 400 naming the fields and writes nothing', async () => {
    const before = [await rowCount(t, announcements), await rowCount(t, announcementRecipients)];
    const cases: [object, string[]][] = [
      [
        { title: 'x'.repeat(201), content: '', priority: 'asap', targetType: 'some', type: 'x'.repeat(33) },
        ['title', 'content', 'priority', 'targetType', 'type'],
      ],
      [{ title: 'a', content: '<p>b</p>', targets: [{ type: 'group', id: 1 }] }, ['targets.0.type']],
      [{ title: 'a', content: '<script>alert(1)</script>' }, ['content']],
      [{ title: 'a', content: '<p>b</p>', targetType: 'targeted' }, ['targets']],
      [{ title: 'a', content: '<p>b</p>', targetType: 'targeted', targets: [] }, ['targets']],
      [{ title: 'a', content: '<p>b</p>', targets: [{ type: 'user', id: org.bob.id }] }, ['targets']],
      [{ title: 'a', content: '<p>b</p>', expireTime: '2001-01-01T00:00:00Z' }, ['expireTime']],
      [
        {
          title: 'a',
          content: '<p>b</p>',
          targetType: 'targeted',
          targets: [
            { type: 'user', id: org.bob.id },
            { type: 'role', id: otherRole }, // another tenant's role
            { type: 'dept', id: 999_999 },
            { type: 'user', id: other.adminUserId },
          ],
        },
        ['targets.1', 'targets.2', 'targets.3'],
      ],
    ];
    for (const [body, fields] of cases) {
      const res = await call(t.app, 'POST', '/api/announcements', { token: admin, body });
      expect(res.statusCode, res.body).toBe(400);
      expect(fieldsOf(res).sort()).toEqual(expect.arrayContaining(fields));
      if (fields[0] === 'targets.1') expect(fieldsOf(res)).not.toContain('targets.0');
    }
    expect([await rowCount(t, announcements), await rowCount(t, announcementRecipients)]).toEqual(before);

    // An update with a bad target changes nothing either.
    const id = await draft(t, admin, { targetType: 'targeted', targets: [{ type: 'user', id: org.bob.id }] });
    const bad = await call(t.app, 'PUT', `/api/announcements/${id}`, {
      token: admin,
      body: { title: 'Changed', targets: [{ type: 'role', id: otherRole }] },
    });
    expectError(bad, 400, 'request.validation_failed', 'targets.0');
    expect((await rowById(t, announcements, id))?.title).toBe('Hello');
    expect(await targetsIn(id)).toEqual([`user:${org.bob.id}`]);
  });

  it('moves draft → published → withdrawn → published, with no-op repeats and 409 for the forbidden moves', async () => {
    const id = await draft(t, admin);
    const go = (action: string) => call(t.app, 'POST', `/api/announcements/${id}/${action}`, { token: admin });

    expectError(await go('withdraw'), 409, 'messaging.announcement_not_published');
    const first = await go('publish');
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ id, publishStatus: 'published', publishTime: expect.any(String) });
    const repeat = await go('publish');
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json().data.publishTime).toBe(first.json().data.publishTime);

    const edit = await call(t.app, 'PUT', `/api/announcements/${id}`, { token: admin, body: { title: 'Edited' } });
    expectError(edit, 409, 'messaging.announcement_published');
    expect((await rowById(t, announcements, id))?.title).toBe('Hello');

    expect((await go('withdraw')).json().data.publishStatus).toBe('withdrawn');
    expect((await go('withdraw')).json().data.publishStatus).toBe('withdrawn');
    const editWithdrawn = await call(t.app, 'PUT', `/api/announcements/${id}`, {
      token: admin,
      body: { title: 'Edited' },
    });
    expect(editWithdrawn.json().data).toMatchObject({ title: 'Edited', publishStatus: 'withdrawn' });

    const again = await go('publish');
    expect(again.json().data.publishStatus).toBe('published');
    expect(Date.parse(again.json().data.publishTime)).toBeGreaterThanOrEqual(Date.parse(first.json().data.publishTime));

    // An announcement whose expiry passed while it waited cannot be published.
    const stale = await draft(t, admin, { expireTime: new Date(Date.now() + 3600_000).toISOString() });
    await t.database.db
      .update(announcements)
      .set({ expireTime: new Date(Date.now() - 1000) })
      .where(eq(announcements.id, stale));
    const late = await call(t.app, 'POST', `/api/announcements/${stale}/publish`, { token: admin });
    expectError(late, 409, 'messaging.announcement_expired', 'expireTime');
    expect((await rowById(t, announcements, stale))?.publishStatus).toBe('draft');
  });

  it('publishes once when two publish calls race', async () => {
    const id = await draft(t, admin);
    const [a, b] = await Promise.all([
      call(t.app, 'POST', `/api/announcements/${id}/publish`, { token: admin }),
      call(t.app, 'POST', `/api/announcements/${id}/publish`, { token: admin }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.json().data.publishTime).toBe(b.json().data.publishTime);
  });

  it('deletes with its targets and read marks; a batch is all or nothing', async () => {
    const id = await published(t, admin, { targetType: 'targeted', targets: [{ type: 'user', id: org.carol.id }] });
    await call(t.app, 'POST', `/api/announcements/${id}/read`, { token: org.carol.token });
    expect(await targetsIn(id)).toHaveLength(1);
    expect((await call(t.app, 'DELETE', `/api/announcements/${id}`, { token: admin })).statusCode).toBe(200);
    expect(await targetsIn(id)).toEqual([]);
    const reads = await t.database.db.select().from(announcementReads).where(eq(announcementReads.announcementId, id));
    expect(reads).toEqual([]);

    const [x, y] = [await draft(t, admin), await draft(t, admin)];
    const bOwned = await draft(t, other.adminToken);
    const partial = await call(t.app, 'DELETE', '/api/announcements/batch', {
      token: admin,
      body: { ids: [x, 999_999, bOwned] },
    });
    expectError(partial, 404, 'messaging.announcement_not_found', 'ids');
    expect(partial.json().details.map((d: { message: string }) => d.message)).toEqual([
      'no announcement with id 999999',
      `no announcement with id ${bOwned}`,
    ]);
    expect(await rowById(t, announcements, x)).toBeDefined();
    expect(await rowById(t, announcements, bOwned)).toBeDefined();

    const ok = await call(t.app, 'DELETE', '/api/announcements/batch', { token: admin, body: { ids: [x, y] } });
    expect(ok.json().data).toEqual({ affected: [x, y] });
    expect(await rowById(t, announcements, x)).toBeUndefined();
    expect(await rowById(t, announcements, y)).toBeUndefined();
    expectError(
      await call(t.app, 'DELETE', '/api/announcements/batch', { token: admin, body: { ids: [] } }),
      400,
      'request.validation_failed',
      'ids',
    );
  });

  it('answers 404 for another tenant’s announcement and changes nothing', async () => {
    const id = await published(t, other.adminToken, { title: 'B only' });
    const before = await rowById(t, announcements, id);
    for (const [method, url, body] of [
      ['GET', `/api/announcements/${id}`, undefined],
      ['GET', `/api/announcements/${id}/read-stats`, undefined],
      ['PUT', `/api/announcements/${id}`, { title: 'Taken' }],
      ['POST', `/api/announcements/${id}/publish`, undefined],
      ['POST', `/api/announcements/${id}/withdraw`, undefined],
      ['POST', `/api/announcements/${id}/read`, undefined],
      ['DELETE', `/api/announcements/${id}`, undefined],
    ] as const) {
      const res = await call(t.app, method, url, { token: admin, ...(body ? { body } : {}) });
      expectError(res, 404, 'messaging.announcement_not_found');
    }
    const list = await call(t.app, 'GET', '/api/announcements?pageSize=200', { token: admin });
    expect(list.json().data.list.map((a: { id: number }) => a.id)).not.toContain(id);
    expect(await rowById(t, announcements, id)).toEqual(before);
  });

  it('needs the announcement permissions for the admin operations', async () => {
    const id = await draft(t, admin);
    const reader = await createUserWithPermissions(t, ['system:announcement:list']);
    const nobody = await createUserWithPermissions(t, []);
    const ops = [
      ['GET', '/api/announcements', undefined, 'system:announcement:list'],
      ['GET', `/api/announcements/${id}`, undefined, 'system:announcement:list'],
      ['GET', `/api/announcements/${id}/read-stats`, undefined, 'system:announcement:list'],
      ['POST', '/api/announcements', { title: 'a', content: '<p>b</p>' }, 'system:announcement:create'],
      ['PUT', `/api/announcements/${id}`, { title: 'c' }, 'system:announcement:update'],
      ['POST', `/api/announcements/${id}/publish`, undefined, 'system:announcement:publish'],
      ['POST', `/api/announcements/${id}/withdraw`, undefined, 'system:announcement:publish'],
      ['DELETE', '/api/announcements/batch', { ids: [id] }, 'system:announcement:delete'],
      ['DELETE', `/api/announcements/${id}`, undefined, 'system:announcement:delete'],
    ] as const;
    for (const [method, url, body, permission] of ops) {
      const asNobody = await call(t.app, method, url, { token: nobody.token, ...(body ? { body } : {}) });
      expectError(asNobody, 403, 'auth.permission_denied');
      const asReader = await call(t.app, method, url, { token: reader.token, ...(body ? { body } : {}) });
      if (permission === 'system:announcement:list') expect(asReader.statusCode, url).toBe(200);
      else expectError(asReader, 403, 'auth.permission_denied');
    }
    expect(await rowById(t, announcements, id)).toMatchObject({ title: 'Hello', publishStatus: 'draft' });
    // The user side needs no permission.
    expect((await call(t.app, 'GET', '/api/announcements/inbox', { token: nobody.token })).statusCode).toBe(200);
  });
});
