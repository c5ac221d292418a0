import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationEventOverrides, notificationPreferences } from '../../src/modules/messaging/dispatch/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { settle } from './dispatch-helpers.ts';

/** The policy endpoints (catalog view, overrides, dispatch log) and the personal preference endpoints. */
let t: TestApp;
let b: TenantFixture;
let user: { userId: number; token: string };

beforeAll(async () => {
  t = await createTestApp();
  b = await createTenant(t, 'tenant-b');
  user = await createUserWithPermissions(t, []);
});
afterAll(async () => t?.close());

type EventView = {
  key: string;
  hidden: boolean;
  channels: { channel: string; enabled: boolean; locked: boolean; source: string }[];
};
const events = async (token: string) =>
  (await call(t.app, 'GET', '/api/notification-policies/events', { token })).json().data as EventView[];
const channel = (list: EventView[], key: string, c: string) =>
  list.find((e) => e.key === key)?.channels.find((x) => x.channel === c);

describe('GET /api/notification-policies/events', () => {
  it('lists the whole catalog with the effective rule of each channel', async () => {
    const list = await events(t.demoAdminToken);
    expect(list.map((e) => e.key)).toEqual(
      expect.arrayContaining(['wiki.doc.mentioned', 'ops.error.alert', 'messaging.digest', 'drive.node.shared']),
    );
    expect(list.find((e) => e.key === 'messaging.digest')?.hidden).toBe(true);
    expect(channel(list, 'wiki.doc.mentioned', 'email')).toMatchObject({
      enabled: true,
      locked: false,
      source: 'default',
    });
    expect(channel(list, 'wiki.doc.mentioned', 'webhook')).toMatchObject({ available: false, enabled: false });
  });

  it('needs system:notification-policy:view', async () => {
    expectError(
      await call(t.app, 'GET', '/api/notification-policies/events', { token: user.token }),
      403,
      'auth.permission_denied',
    );
  });
});

describe('PUT /api/notification-policies/overrides', () => {
  it('platform and tenant levels: the tenant wins, other tenants see the platform value, equal-to-default rows are removed', async () => {
    const platform = await call(t.app, 'PUT', '/api/notification-policies/overrides', {
      token: t.adminToken,
      body: { items: [{ eventKey: 'drive.zip.ready', channel: 'email', enabled: true }] },
    });
    expect(platform.json().data).toEqual({ saved: 1, removed: 0 });
    expect(channel(await events(b.adminToken), 'drive.zip.ready', 'email')).toMatchObject({
      enabled: true,
      source: 'platform',
    });
    await call(t.app, 'PUT', '/api/notification-policies/overrides', {
      token: t.demoAdminToken,
      body: { items: [{ eventKey: 'drive.zip.ready', channel: 'email', enabled: false, locked: false }] },
    });
    expect(channel(await events(t.demoAdminToken), 'drive.zip.ready', 'email')).toMatchObject({
      enabled: false,
      source: 'tenant',
    });
    expect(channel(await events(b.adminToken), 'drive.zip.ready', 'email')).toMatchObject({
      enabled: true,
      source: 'platform',
    });
    // the demo tenant saves the platform's value: its row is no longer needed
    const same = await call(t.app, 'PUT', '/api/notification-policies/overrides', {
      token: t.demoAdminToken,
      body: { items: [{ eventKey: 'drive.zip.ready', channel: 'email', enabled: true }] },
    });
    expect(same.json().data).toEqual({ saved: 0, removed: 1 });
    expect(await rowCount(t, notificationEventOverrides)).toBe(1);
  });

  it('refuses unknown events and channels the event cannot use, naming the item, and writes nothing', async () => {
    const before = await rowCount(t, notificationEventOverrides);
    const res = await call(t.app, 'PUT', '/api/notification-policies/overrides', {
      token: t.demoAdminToken,
      body: {
        items: [
          { eventKey: 'wiki.doc.mentioned', channel: 'inapp', enabled: false },
          { eventKey: 'nope.event', channel: 'inapp', enabled: true },
          { eventKey: 'wiki.doc.mentioned', channel: 'webhook', enabled: true },
        ],
      },
    });
    expectError(res, 400, 'request.validation_failed');
    expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(['items.1.eventKey', 'items.2.channel']);
    expectError(
      await call(t.app, 'PUT', '/api/notification-policies/overrides', {
        token: t.demoAdminToken,
        body: { items: [{ eventKey: 'wiki.doc.mentioned', channel: 'fax', enabled: true }] },
      }),
      400,
      'request.validation_failed',
      'items.0.channel',
    );
    expect(await rowCount(t, notificationEventOverrides)).toBe(before);
  });

  it('reset removes only the caller’s scope rows; editing needs system:notification-policy:edit', async () => {
    await call(t.app, 'PUT', '/api/notification-policies/overrides', {
      token: b.adminToken,
      body: { items: [{ eventKey: 'wiki.doc.published', channel: 'email', enabled: true }] },
    });
    const reset = await call(t.app, 'POST', '/api/notification-policies/overrides/reset', {
      token: t.demoAdminToken,
      body: {},
    });
    expect(reset.json().data).toEqual({ removed: 0 });
    expect(channel(await events(b.adminToken), 'wiki.doc.published', 'email')).toMatchObject({
      enabled: true,
      source: 'tenant',
    });
    const own = await call(t.app, 'POST', '/api/notification-policies/overrides/reset', {
      token: b.adminToken,
      body: { eventKey: 'wiki.doc.published' },
    });
    expect(own.json().data).toEqual({ removed: 1 });
    expectError(
      await call(t.app, 'POST', '/api/notification-policies/overrides/reset', {
        token: t.demoAdminToken,
        body: { eventKey: 'x.y' },
      }),
      400,
      'request.validation_failed',
      'eventKey',
    );
    expectError(
      await call(t.app, 'PUT', '/api/notification-policies/overrides', {
        token: user.token,
        body: { items: [{ eventKey: 'wiki.doc.mentioned', channel: 'inapp', enabled: false }] },
      }),
      403,
      'auth.permission_denied',
    );
  });
});

describe('GET /api/notification-policies/dispatches', () => {
  it('filters by event, channel, decision, recipient type and id, and time; shows only the caller’s tenant', async () => {
    const id = await t.app.messaging.notify('wiki.doc.mentioned', {
      tenantId: t.demoTenantId,
      recipients: [{ type: 'user', id: user.userId }],
      variables: { docTitle: 'Plan', actorName: 'Ann' },
    });
    await settle(t, id);
    const q = `eventKey=wiki.doc.mentioned&channel=email&recipientType=user&recipientId=${user.userId}&decision=suppressed`;
    const res = await call(t.app, 'GET', `/api/notification-policies/dispatches?${q}`, { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.list).toEqual([
      expect.objectContaining({
        outboxId: id,
        channel: 'email',
        decision: 'suppressed',
        reasonCode: 'channel_unavailable',
        recipientId: user.userId,
      }),
    ]);
    const future = await call(t.app, 'GET', `/api/notification-policies/dispatches?from=2999-01-01T00:00:00Z`, {
      token: t.demoAdminToken,
    });
    expect(future.json().data.total).toBe(0);
    const fromB = await call(t.app, 'GET', `/api/notification-policies/dispatches?outboxId=${id}`, {
      token: b.adminToken,
    });
    expect(fromB.json().data.total).toBe(0);
    expectError(
      await call(t.app, 'GET', '/api/notification-policies/dispatches?decision=lost', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'decision',
    );
    expectError(
      await call(t.app, 'GET', '/api/notification-policies/dispatches', { token: user.token }),
      403,
      'auth.permission_denied',
    );
  });
});

describe('my preferences', () => {
  it('the matrix shows visible events with defaults and locks; switches are stored sparsely', async () => {
    const matrix = (await call(t.app, 'GET', '/api/notification-preferences/matrix', { token: user.token })).json()
      .data as {
      eventKey: string;
      mandatory: boolean;
      channels: { channel: string; enabled: boolean; default: boolean; locked: boolean }[];
    }[];
    expect(matrix.some((e) => e.eventKey === 'messaging.digest')).toBe(false);
    expect(matrix.find((e) => e.eventKey === 'identity.tenant.expiring')).toMatchObject({ mandatory: true });
    const off = await call(t.app, 'PUT', '/api/notification-preferences/matrix', {
      token: user.token,
      body: {
        items: [
          { eventKey: 'wiki.doc.mentioned', channel: 'email', enabled: false },
          { eventKey: 'wiki.doc.mentioned', channel: 'sms', enabled: true },
        ],
      },
    });
    expect(off.statusCode).toBe(200);
    const row = (off.json().data as typeof matrix).find((e) => e.eventKey === 'wiki.doc.mentioned');
    expect(row?.channels.filter((c) => ['email', 'sms'].includes(c.channel))).toEqual([
      { channel: 'email', enabled: false, default: true, locked: false },
      { channel: 'sms', enabled: true, default: false, locked: false },
    ]);
    expect(await rowCount(t, notificationPreferences)).toBe(2);
    await call(t.app, 'PUT', '/api/notification-preferences/matrix', {
      token: user.token,
      body: { items: [{ eventKey: 'wiki.doc.mentioned', channel: 'email', enabled: true }] },
    });
    expect(await rowCount(t, notificationPreferences)).toBe(1); // back to the default: row deleted
  });

  it('mandatory events and locked channels cannot be switched off; hidden or unknown events are refused', async () => {
    const before = await rowCount(t, notificationPreferences);
    expectError(
      await call(t.app, 'PUT', '/api/notification-preferences/matrix', {
        token: user.token,
        body: { items: [{ eventKey: 'identity.tenant.expiring', channel: 'email', enabled: false }] },
      }),
      400,
      'request.validation_failed',
      'items.0.enabled',
    );
    await call(t.app, 'PUT', '/api/notification-policies/overrides', {
      token: t.demoAdminToken,
      body: { items: [{ eventKey: 'workflow.task.created', channel: 'inapp', enabled: true, locked: true }] },
    });
    expectError(
      await call(t.app, 'PUT', '/api/notification-preferences/matrix', {
        token: user.token,
        body: { items: [{ eventKey: 'workflow.task.created', channel: 'inapp', enabled: false }] },
      }),
      400,
      'request.validation_failed',
      'items.0.enabled',
    );
    expectError(
      await call(t.app, 'PUT', '/api/notification-preferences/matrix', {
        token: user.token,
        body: { items: [{ eventKey: 'messaging.digest', channel: 'email', enabled: false }] },
      }),
      400,
      'request.validation_failed',
      'items.0.eventKey',
    );
    expect(await rowCount(t, notificationPreferences)).toBe(before);
  });

  it('settings: defaults, partial update, validation naming the field; each user sees only their own', async () => {
    const defaults = await call(t.app, 'GET', '/api/notification-preferences/settings', { token: user.token });
    expect(defaults.json().data).toEqual({
      globalMuted: false,
      timezone: 'Asia/Shanghai',
      quietStart: null,
      quietEnd: null,
      digestMode: 'realtime',
      digestHour: 9,
    });
    const saved = await call(t.app, 'PUT', '/api/notification-preferences/settings', {
      token: user.token,
      body: { digestMode: 'daily', digestHour: 18, timezone: 'Europe/Berlin' },
    });
    expect(saved.json().data).toMatchObject({ digestMode: 'daily', digestHour: 18, timezone: 'Europe/Berlin' });
    expectError(
      await call(t.app, 'PUT', '/api/notification-preferences/settings', {
        token: user.token,
        body: { timezone: 'Mars/Base' },
      }),
      400,
      'request.validation_failed',
      'timezone',
    );
    expectError(
      await call(t.app, 'PUT', '/api/notification-preferences/settings', {
        token: user.token,
        body: { quietStart: '22:00' },
      }),
      400,
      'request.validation_failed',
      'quietEnd',
    );
    expectError(
      await call(t.app, 'PUT', '/api/notification-preferences/settings', {
        token: user.token,
        body: { quietStart: '25:00', quietEnd: '07:00' },
      }),
      400,
      'request.validation_failed',
      'quietStart',
    );
    expectError(
      await call(t.app, 'PUT', '/api/notification-preferences/settings', {
        token: user.token,
        body: { digestHour: 24 },
      }),
      400,
      'request.validation_failed',
      'digestHour',
    );
    const mine = await call(t.app, 'GET', '/api/notification-preferences/settings', { token: user.token });
    expect(mine.json().data).toMatchObject({ digestMode: 'daily', digestHour: 18, timezone: 'Europe/Berlin' });
    const others = await call(t.app, 'GET', '/api/notification-preferences/settings', { token: b.adminToken });
    expect(others.json().data.digestMode).toBe('realtime');
    expectError(await call(t.app, 'GET', '/api/notification-preferences/settings'), 401, 'auth.unauthenticated');
  });
});
