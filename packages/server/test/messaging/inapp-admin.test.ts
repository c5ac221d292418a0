import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inAppMessages } from '../../src/modules/messaging/inapp/tables.ts';
import { realtimeEvents } from '../../src/platform/realtime/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, fieldsOf, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { inboxOf, messageById, messageRow, messagesOf } from './inapp-helpers.ts';

/**
 * Administration of the tenant's in-app messages (list, mark read, delete) and sending by hand:
 * each needs its permission; another tenant's messages and users are out of reach.
 */
let t: TestApp;
let other: TenantFixture;
let otherUserMsg: number;

beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
  otherUserMsg = await messageRow(t, other.tenantId, other.adminUserId, { title: 'Other tenant' });
});
afterAll(async () => t?.close());

const reader = () => createUserWithPermissions(t, []);
const ids = (res: { json(): { data: { list: { id: number }[] } } }) => res.json().data.list.map((m) => m.id);

async function send(token: string, body: object) {
  return call(t.app, 'POST', '/api/in-app-messages/send', { token, body });
}

describe('in-app message administration', () => {
  it('lists every user’s messages of the tenant with userId, isRead, source and time filters', async () => {
    const admin = await createUserWithPermissions(t, ['system:in-app-message:list']);
    const u1 = await reader();
    const u2 = await reader();
    const [a, b] = await inboxOf(t, t.demoTenantId, u1.userId);
    const [d] = await inboxOf(t, t.demoTenantId, u2.userId);
    const old = await messageRow(t, t.demoTenantId, u2.userId, {
      title: 'Old',
      createdAt: new Date('2025-01-01T00:00:00Z'),
    });
    const q = async (query: string) =>
      ids(await call(t.app, 'GET', `/api/in-app-messages/admin?${query}`, { token: admin.token }));

    const all = await call(t.app, 'GET', '/api/in-app-messages/admin?pageSize=200', { token: admin.token });
    expect(all.statusCode, all.body).toBe(200);
    expect(ids(all)).toEqual(expect.arrayContaining([a, b, d, old]));
    expect(ids(all)).not.toContain(otherUserMsg);
    expect(await q(`userId=${u1.userId}&isRead=false`)).toEqual([b, a]);
    expect(await q(`userId=${u2.userId}&source=wiki.doc.published`)).toEqual([d]);
    expect(await q(`userId=${u2.userId}&to=2025-06-01T00:00:00Z`)).toEqual([old]);
    expect(await q(`userId=${u2.userId}&from=2025-06-01T00:00:00Z`)).not.toContain(old);
    expectError(
      await call(t.app, 'GET', '/api/in-app-messages/admin?from=yesterday', { token: admin.token }),
      400,
      'request.validation_failed',
      'from',
    );
    expectError(
      await call(t.app, 'GET', '/api/in-app-messages/admin', { token: u1.token }),
      403,
      'auth.permission_denied',
    );
  });

  it('marks one message of the tenant read; another tenant’s is 404 and stays unread', async () => {
    const admin = await createUserWithPermissions(t, ['system:in-app-message:update']);
    const u = await reader();
    const [a] = await inboxOf(t, t.demoTenantId, u.userId);
    const res = await call(t.app, 'POST', `/api/in-app-messages/admin/${a}/read`, { token: admin.token });
    expect(res.json().data).toMatchObject({ id: a, isRead: true });
    const again = await call(t.app, 'POST', `/api/in-app-messages/admin/${a}/read`, { token: admin.token });
    expect(again.json().data.readAt).toBe(res.json().data.readAt);
    expectError(
      await call(t.app, 'POST', `/api/in-app-messages/admin/${otherUserMsg}/read`, { token: admin.token }),
      404,
      'messaging.in_app_message_not_found',
    );
    expect((await messageById(t, otherUserMsg))?.isRead).toBe(false);
    expectError(
      await call(t.app, 'POST', `/api/in-app-messages/admin/${a}/read`, { token: u.token }),
      403,
      'auth.permission_denied',
    );
  });

  it('marks all of one user read, or all of the tenant; never another tenant’s', async () => {
    const admin = await createUserWithPermissions(t, ['system:in-app-message:update']);
    const u1 = await reader();
    const u2 = await reader();
    await inboxOf(t, t.demoTenantId, u1.userId);
    await inboxOf(t, t.demoTenantId, u2.userId);
    const one = await call(t.app, 'POST', '/api/in-app-messages/admin/read-all', {
      token: admin.token,
      body: { userId: u1.userId },
    });
    expect(one.json().data).toEqual({ marked: 2 });
    expect((await messagesOf(t, u2.userId)).filter((m) => !m.isRead)).toHaveLength(2);

    expectError(
      await call(t.app, 'POST', '/api/in-app-messages/admin/read-all', { token: admin.token, body: { userId: 'x' } }),
      400,
      'request.validation_failed',
      'userId',
    );
    expectError(
      await call(t.app, 'POST', '/api/in-app-messages/admin/read-all', { token: u1.token, body: {} }),
      403,
      'auth.permission_denied',
    );
    // another tenant's user id marks nothing there
    const foreign = await call(t.app, 'POST', '/api/in-app-messages/admin/read-all', {
      token: admin.token,
      body: { userId: other.adminUserId },
    });
    expect(foreign.json().data).toEqual({ marked: 0 });

    const all = await call(t.app, 'POST', '/api/in-app-messages/admin/read-all', { token: admin.token, body: {} });
    expect(all.json().data.marked).toBeGreaterThanOrEqual(2);
    expect((await messagesOf(t, u2.userId)).every((m) => m.isRead)).toBe(true);
    expect((await messageById(t, otherUserMsg))?.isRead).toBe(false);
  });

  it('deletes any message of the tenant; another tenant’s is 404 and stays', async () => {
    const admin = await createUserWithPermissions(t, ['system:in-app-message:delete']);
    const u = await reader();
    const [a, b] = await inboxOf(t, t.demoTenantId, u.userId);
    expect((await call(t.app, 'DELETE', `/api/in-app-messages/admin/${a}`, { token: admin.token })).statusCode).toBe(
      200,
    );
    expect(await messageById(t, a)).toBeUndefined();
    expectError(
      await call(t.app, 'DELETE', `/api/in-app-messages/admin/${otherUserMsg}`, { token: admin.token }),
      404,
      'messaging.in_app_message_not_found',
    );
    expect(await messageById(t, otherUserMsg)).toBeDefined();
    expectError(
      await call(t.app, 'DELETE', `/api/in-app-messages/admin/${b}`, { token: u.token }),
      403,
      'auth.permission_denied',
    );
    expect(await messageById(t, b)).toBeDefined();
  });
});

describe('sending in-app messages', () => {
  const sender = () => createUserWithPermissions(t, ['system:in-app-message:send', 'system:in-app-template:create']);

  it('writes one message per user from title and content with variables, and they see it', async () => {
    const admin = await sender();
    const [u1, u2] = [await reader(), await reader()];
    const pushes = async () =>
      t.database.db.select().from(realtimeEvents).where(eq(realtimeEvents.topic, 'inapp.message'));
    const pushesBefore = (await pushes()).length;
    const res = await send(admin.token, {
      userIds: [u1.userId, u2.userId],
      title: 'Hello {{name}}',
      content: 'See <b>{{what}}</b>',
      variables: { name: 'team', what: 'the plan' },
      link: '/projects/7',
    });
    expect(res.statusCode, res.body).toBe(201);
    const [m1, m2] = res.json().data.ids;
    expect(await messageById(t, m1)).toMatchObject({
      tenantId: t.demoTenantId,
      userId: u1.userId,
      title: 'Hello team',
      content: 'See <b>the plan</b>', // plain text: stored as given, escaped by the client
      type: 'manual',
      source: 'manual',
      senderId: admin.userId,
      link: '/projects/7',
      eventKey: null,
      templateId: null,
      isRead: false,
    });
    expect((await messageById(t, m2))?.userId).toBe(u2.userId);
    // one live push for the whole send, addressed to the recipients
    const pushed = (await pushes()).slice(pushesBefore);
    expect(pushed.map((p) => ({ userIds: p.userIds, tenantId: p.tenantId, payload: p.payload }))).toEqual([
      {
        userIds: [u1.userId, u2.userId],
        tenantId: t.demoTenantId,
        payload: { eventKey: null, title: 'Hello team', link: '/projects/7', type: 'manual' },
      },
    ]);
    const inbox = await call(t.app, 'GET', '/api/in-app-messages', { token: u2.token });
    expect(ids(inbox)).toEqual([m2]);
    expect((await call(t.app, 'GET', '/api/in-app-messages/unread-count', { token: u1.token })).json().data.count).toBe(
      1,
    );
  });

  it('writes from a template of the tenant, with its type', async () => {
    const admin = await sender();
    const u = await reader();
    const tpl = await call(t.app, 'POST', '/api/in-app-templates', {
      token: admin.token,
      body: {
        code: `welcome-${u.userId}`,
        title: 'Welcome {{name}}',
        content: 'Start at {{place}}',
        variables: ['name', 'place'],
        type: 'system',
      },
    });
    expect(tpl.statusCode, tpl.body).toBe(201);
    const res = await send(admin.token, {
      userIds: [u.userId],
      templateId: tpl.json().data.id,
      variables: { name: 'Ann', place: 'home' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(await messageById(t, res.json().data.ids[0])).toMatchObject({
      title: 'Welcome Ann',
      content: 'Start at home',
      type: 'system',
      templateId: tpl.json().data.id,
      source: 'manual',
    });

    // every variable the template declares is required
    const missing = await send(admin.token, {
      userIds: [u.userId],
      templateId: tpl.json().data.id,
      variables: { name: 'Ann' },
    });
    expectError(missing, 400, 'request.validation_failed', 'variables.place');
    // text comes from the template or from the body, not both
    const both = await send(admin.token, {
      userIds: [u.userId],
      templateId: tpl.json().data.id,
      title: 'x',
      variables: { name: 'a', place: 'b' },
    });
    expectError(both, 400, 'request.validation_failed', 'title');
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const admin = await sender();
    const u = await reader();
    const before = await rowCount(t, inAppMessages);
    const otherTpl = await call(t.app, 'POST', '/api/in-app-templates', {
      token: other.adminToken,
      body: { code: 'other-tpl', title: 'O', content: 'O' },
    });

    const unknown = await send(admin.token, {
      userIds: [u.userId, other.adminUserId, 99_999_999],
      title: 'x',
      content: 'y',
    });
    expectError(unknown, 400, 'request.validation_failed', 'userIds');
    const messages = unknown
      .json()
      .details.map((d: { message: string }) => d.message)
      .join(' | ');
    expect(messages).toContain(String(other.adminUserId));
    expect(messages).toContain('99999999');
    expect(messages).not.toContain(String(u.userId));

    expect(fieldsOf(await send(admin.token, { userIds: [u.userId] }))).toEqual(['title', 'content']);
    expectError(
      await send(admin.token, { userIds: [], title: 'x', content: 'y' }),
      400,
      'request.validation_failed',
      'userIds',
    );
    expectError(
      await send(admin.token, { userIds: [u.userId], title: 'x', content: 'y', type: 'spam' }),
      400,
      'request.validation_failed',
      'type',
    );
    expectError(
      await send(admin.token, { userIds: [u.userId], templateId: otherTpl.json().data.id }),
      400,
      'request.validation_failed',
      'templateId',
    );
    expect(await rowCount(t, inAppMessages)).toBe(before);
  });

  it('needs system:in-app-message:send', async () => {
    const u = await reader();
    const before = await rowCount(t, inAppMessages);
    expectError(await send(u.token, { userIds: [u.userId], title: 'x', content: 'y' }), 403, 'auth.permission_denied');
    expect(await rowCount(t, inAppMessages)).toBe(before);
  });
});
