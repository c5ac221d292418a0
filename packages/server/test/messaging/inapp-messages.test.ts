import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { inboxOf, messageById, messageRow, messagesOf } from './inapp-helpers.ts';

/**
 * A signed-in user's own in-app messages: no permission needed; another user's or another
 * tenant's message is 404 and stays unchanged. Messages are written directly as fixtures.
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

describe('my in-app messages', () => {
  it('lists mine only, newest first, with isRead, type and keyword filters, and counts the unread', async () => {
    const me = await reader();
    const someone = await reader();
    const [a, b, c] = await inboxOf(t, t.demoTenantId, me.userId);
    await inboxOf(t, t.demoTenantId, someone.userId);
    const list = await call(t.app, 'GET', '/api/in-app-messages', { token: me.token });
    expect(list.statusCode, list.body).toBe(200);
    expect(ids(list)).toEqual([c, b, a]);
    expect(list.json().data).toMatchObject({ total: 3, page: 1, pageSize: 20 });
    expect(list.json().data.list[0]).toMatchObject({
      title: 'Maintenance',
      isRead: true,
      readAt: '2026-01-01T00:00:00.000Z',
      userId: me.userId,
    });

    const q = async (query: string) =>
      ids(await call(t.app, 'GET', `/api/in-app-messages?${query}`, { token: me.token }));
    expect(await q('isRead=false')).toEqual([b, a]);
    expect(await q('isRead=true')).toEqual([c]);
    expect(await q('type=notification')).toEqual([a]);
    expect(await q('keyword=pizz')).toEqual([b]);
    expect(await q('pageSize=1&page=2')).toEqual([b]);

    const unread = await call(t.app, 'GET', '/api/in-app-messages/unread-count', { token: me.token });
    expect(unread.json().data).toEqual({ count: 2 });
  });

  it('rejects bad filters naming the field', async () => {
    const me = await reader();
    expectError(
      await call(t.app, 'GET', '/api/in-app-messages?isRead=maybe', { token: me.token }),
      400,
      'request.validation_failed',
      'isRead',
    );
    expectError(
      await call(t.app, 'GET', '/api/in-app-messages?type=spam', { token: me.token }),
      400,
      'request.validation_failed',
      'type',
    );
    expectError(await call(t.app, 'GET', '/api/in-app-messages'), 401, 'auth.unauthenticated');
  });

  it('reads one of mine; another user’s or tenant’s is 404', async () => {
    const me = await reader();
    const someone = await reader();
    const [a] = await inboxOf(t, t.demoTenantId, me.userId);
    const [theirs] = await inboxOf(t, t.demoTenantId, someone.userId);
    const res = await call(t.app, 'GET', `/api/in-app-messages/${a}`, { token: me.token });
    expect(res.json().data).toMatchObject({
      id: a,
      title: 'Doc published',
      source: 'wiki.doc.published',
      eventKey: 'wiki.doc.published',
    });
    expectError(
      await call(t.app, 'GET', `/api/in-app-messages/${theirs}`, { token: me.token }),
      404,
      'messaging.in_app_message_not_found',
    );
    expectError(
      await call(t.app, 'GET', `/api/in-app-messages/${otherUserMsg}`, { token: me.token }),
      404,
      'messaging.in_app_message_not_found',
    );
    expectError(
      await call(t.app, 'GET', '/api/in-app-messages/0', { token: me.token }),
      400,
      'request.validation_failed',
      'id',
    );
  });

  it('marks one read once: a repeat keeps readAt; another user’s stays unread (404)', async () => {
    const me = await reader();
    const someone = await reader();
    const [a] = await inboxOf(t, t.demoTenantId, me.userId);
    const [theirs] = await inboxOf(t, t.demoTenantId, someone.userId);
    const first = await call(t.app, 'POST', `/api/in-app-messages/${a}/read`, { token: me.token });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({ id: a, isRead: true, readAt: expect.any(String) });
    const again = await call(t.app, 'POST', `/api/in-app-messages/${a}/read`, { token: me.token });
    expect(again.json().data.readAt).toBe(first.json().data.readAt);
    expect((await call(t.app, 'GET', '/api/in-app-messages/unread-count', { token: me.token })).json().data.count).toBe(
      1,
    );

    expectError(
      await call(t.app, 'POST', `/api/in-app-messages/${theirs}/read`, { token: me.token }),
      404,
      'messaging.in_app_message_not_found',
    );
    expect((await messageById(t, theirs))?.isRead).toBe(false);
    expectError(
      await call(t.app, 'POST', `/api/in-app-messages/${otherUserMsg}/read`, { token: me.token }),
      404,
      'messaging.in_app_message_not_found',
    );
    expect((await messageById(t, otherUserMsg))?.isRead).toBe(false);
  });

  it('marks all mine read, and only mine', async () => {
    const me = await reader();
    const someone = await reader();
    const [, , c] = await inboxOf(t, t.demoTenantId, me.userId);
    await inboxOf(t, t.demoTenantId, someone.userId);
    const res = await call(t.app, 'POST', '/api/in-app-messages/read-all', { token: me.token });
    expect(res.json().data).toEqual({ marked: 2 });
    expect((await messagesOf(t, me.userId)).every((m) => m.isRead && m.readAt)).toBe(true);
    expect((await messageById(t, c))?.readAt?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect((await messagesOf(t, someone.userId)).filter((m) => !m.isRead)).toHaveLength(2);
    expect((await call(t.app, 'POST', '/api/in-app-messages/read-all', { token: me.token })).json().data).toEqual({
      marked: 0,
    });
  });

  it('batch-reads all or nothing: an id not mine answers 404 naming it and changes nothing', async () => {
    const me = await reader();
    const someone = await reader();
    const [a, b, c] = await inboxOf(t, t.demoTenantId, me.userId);
    const [theirs] = await inboxOf(t, t.demoTenantId, someone.userId);
    const refused = await call(t.app, 'POST', '/api/in-app-messages/batch-read', {
      token: me.token,
      body: { ids: [a, theirs, otherUserMsg] },
    });
    expectError(refused, 404, 'messaging.in_app_message_not_found', 'ids');
    expect(
      refused
        .json()
        .details.map((d: { message: string }) => d.message)
        .join(),
    ).toContain(String(theirs));
    expect((await messageById(t, a))?.isRead).toBe(false);

    const ok = await call(t.app, 'POST', '/api/in-app-messages/batch-read', { token: me.token, body: { ids: [a, c] } });
    expect(ok.json().data).toEqual({ affected: [a, c] });
    expect((await messageById(t, a))?.isRead).toBe(true);
    expect((await messageById(t, b))?.isRead).toBe(false);
    expect((await messageById(t, c))?.readAt?.toISOString()).toBe('2026-01-01T00:00:00.000Z');

    const bad = await call(t.app, 'POST', '/api/in-app-messages/batch-read', { token: me.token, body: { ids: [] } });
    expectError(bad, 400, 'request.validation_failed', 'ids');
  });

  it('deletes one of mine; another user’s or tenant’s is 404 and stays', async () => {
    const me = await reader();
    const someone = await reader();
    const [a] = await inboxOf(t, t.demoTenantId, me.userId);
    const [theirs] = await inboxOf(t, t.demoTenantId, someone.userId);
    expect((await call(t.app, 'DELETE', `/api/in-app-messages/${a}`, { token: me.token })).json().data).toEqual({
      ok: true,
    });
    expect(await messageById(t, a)).toBeUndefined();
    expectError(
      await call(t.app, 'DELETE', `/api/in-app-messages/${a}`, { token: me.token }),
      404,
      'messaging.in_app_message_not_found',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/in-app-messages/${theirs}`, { token: me.token }),
      404,
      'messaging.in_app_message_not_found',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/in-app-messages/${otherUserMsg}`, { token: me.token }),
      404,
      'messaging.in_app_message_not_found',
    );
    expect(await messageById(t, theirs)).toBeDefined();
    expect(await messageById(t, otherUserMsg)).toBeDefined();
  });

  it('batch-deletes all or nothing', async () => {
    const me = await reader();
    const someone = await reader();
    const [a, b, c] = await inboxOf(t, t.demoTenantId, me.userId);
    const [theirs] = await inboxOf(t, t.demoTenantId, someone.userId);
    const refused = await call(t.app, 'DELETE', '/api/in-app-messages/batch', {
      token: me.token,
      body: { ids: [a, theirs] },
    });
    expectError(refused, 404, 'messaging.in_app_message_not_found', 'ids');
    expect(await messagesOf(t, me.userId)).toHaveLength(3);
    expect(await messageById(t, theirs)).toBeDefined();
    expectError(
      await call(t.app, 'DELETE', '/api/in-app-messages/batch', { token: me.token, body: { ids: [a, a] } }),
      400,
      'request.validation_failed',
      'ids',
    );

    const ok = await call(t.app, 'DELETE', '/api/in-app-messages/batch', { token: me.token, body: { ids: [a, c] } });
    expect(ok.json().data).toEqual({ affected: [a, c] });
    expect((await messagesOf(t, me.userId)).map((m) => m.id)).toEqual([b]);
  });
});
