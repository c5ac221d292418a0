import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventRegistry } from '../../src/modules/open-platform/webhooks/events.ts';
import { openWebhookDeliveries, openWebhookSubscriptions } from '../../src/modules/open-platform/webhooks/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, fieldsOf, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import {
  deliveryRow,
  insertApp,
  type Receiver,
  sampleEvents,
  startReceiver,
  subscriptionById,
} from './webhooks-helpers.ts';

/**
 * Subscription administration over HTTP: create (secret once), list, get, update, status,
 * secret rotation, delete; the event catalog; the delivery log's filters; validation naming the
 * field, permissions, and another tenant's rows answering 404 with nothing changed.
 */
let t: TestApp;
let receiver: Receiver;
let other: TenantFixture;
let appId: number;
let otherAppId: number;
const base = '/api/open-platform/webhooks';
const declared = [
  { type: 'sample.order.created', description: 'an order was created' },
  { type: 'sample.order.paid', description: 'an order was paid' },
];

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({
    env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` },
    extraEvents: sampleEvents(...declared),
  });
  other = await createTenant(t, 'wh-other');
  appId = await insertApp(t, t.demoTenantId);
  otherAppId = await insertApp(t, other.tenantId);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const create = (body: object, token = t.demoAdminToken) => call(t.app, 'POST', base, { token, body });
const url = (path = '/hook') => `${receiver.origin}${path}`;

describe('subscriptions', () => {
  it('create answers the signing secret once; GET and the list never show it', async () => {
    const res = await create({ appId, url: url('/a'), events: ['sample.order.created'], description: 'orders' });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json().data;
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      appId,
      url: url('/a'),
      events: ['sample.order.created'],
      description: 'orders',
      status: 'active',
      secretHint: created.secret.slice(-4),
      consecutiveFailures: 0,
      disabledAt: null,
    });
    const stored = await subscriptionById(t, created.id);
    expect(stored.secretEncrypted).not.toContain(created.secret.slice(6));
    expect(stored.tenantId).toBe(t.demoTenantId);

    const got = await call(t.app, 'GET', `${base}/${created.id}`, { token: t.demoAdminToken });
    expect(got.statusCode).toBe(200);
    expect(got.json().data.secret).toBeUndefined();
    expect(got.body).not.toContain(created.secret);
    const list = await call(t.app, 'GET', `${base}?appId=${appId}`, { token: t.demoAdminToken });
    expect(list.json().data.list.map((s: { id: number }) => s.id)).toContain(created.id);
    expect(list.body).not.toContain(created.secret);
  });

  it('accepts `prefix.*` and `*`; refuses unknown events, bad URLs and foreign apps, naming each field', async () => {
    const ok = await create({ appId, url: url('/patterns'), events: ['sample.*', '*'] });
    expect(ok.statusCode, ok.body).toBe(201);

    const before = await rowCount(t, openWebhookSubscriptions);
    const bad = await create({
      appId: otherAppId,
      url: 'ftp://example.com/x',
      events: ['sample.order.created', 'nope.x', 'zzz.*'],
    });
    expectError(bad, 400, 'request.validation_failed');
    expect(fieldsOf(bad).sort()).toEqual(['appId', 'events.1', 'events.2', 'url']);
    for (const u of ['not a url', 'https://user:pw@example.com/x', 'https://example.com/x#frag']) {
      expectError(await create({ appId, url: u, events: ['*'] }), 400, 'request.validation_failed', 'url');
    }
    expectError(await create({ appId, url: url('/x'), events: [] }), 400, 'request.validation_failed', 'events');
    expectError(await create({ appId, url: url('/x') }), 400, 'request.validation_failed', 'events');
    expectError(
      await create({ appId: 999_999, url: url('/x'), events: ['*'] }),
      400,
      'request.validation_failed',
      'appId',
    );
    expectError(
      await create({ appId, url: url('/x'), events: ['*'], secret: 'mine' }),
      400,
      'request.validation_failed',
    );
    expect(await rowCount(t, openWebhookSubscriptions)).toBe(before);
  });

  it('refuses a private destination not in EGRESS_ALLOW_HOSTS when saved (it would be refused at send time too)', async () => {
    const before = await rowCount(t, openWebhookSubscriptions);
    for (const u of [
      'http://127.0.0.1:1/hook',
      'http://169.254.169.254/latest',
      'http://[::1]:8080/',
      'http://10.0.0.7/x',
    ]) {
      const res = await create({ appId, url: u, events: ['*'] });
      expectError(res, 400, 'request.validation_failed', 'url');
    }
    expect(await rowCount(t, openWebhookSubscriptions)).toBe(before);
  });

  it('one subscription per application and URL (409 naming url)', async () => {
    expect((await create({ appId, url: url('/dup'), events: ['*'] })).statusCode).toBe(201);
    expectError(
      await create({ appId, url: url('/dup'), events: ['sample.*'] }),
      409,
      'open_platform.webhook_exists',
      'url',
    );
  });

  it('update changes URL, events and description; validates them like create', async () => {
    const id = (await create({ appId, url: url('/u1'), events: ['sample.order.created'] })).json().data.id;
    const res = await call(t.app, 'PUT', `${base}/${id}`, {
      token: t.demoAdminToken,
      body: { url: url('/u2'), events: ['sample.order.paid'], description: 'paid' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ url: url('/u2'), events: ['sample.order.paid'], description: 'paid' });
    const bad = await call(t.app, 'PUT', `${base}/${id}`, {
      token: t.demoAdminToken,
      body: { url: 'http://127.0.0.1:1/x', events: ['sample.order.paid', 'unknown.thing'] },
    });
    expectError(bad, 400, 'request.validation_failed');
    expect(fieldsOf(bad).sort()).toEqual(['events.1', 'url']);
    expect((await subscriptionById(t, id)).url).toBe(url('/u2'));
  });

  it('status: disabling records why; enabling forgets the failure streak; a repeat changes nothing', async () => {
    const id = (await create({ appId, url: url('/s'), events: ['*'] })).json().data.id;
    const setStatus = (status: string) =>
      call(t.app, 'PUT', `${base}/${id}/status`, { token: t.demoAdminToken, body: { status } });
    const off = await setStatus('disabled');
    expect(off.json().data).toMatchObject({ status: 'disabled', disabledReason: 'manual' });
    expect(off.json().data.disabledAt).toEqual(expect.any(String));
    const again = await setStatus('disabled');
    expect(again.json().data.disabledAt).toBe(off.json().data.disabledAt);
    await t.database.db
      .update(openWebhookSubscriptions)
      .set({ consecutiveFailures: 12, failingSince: new Date() })
      .where(eq(openWebhookSubscriptions.id, id));
    const on = await setStatus('active');
    expect(on.json().data).toMatchObject({
      status: 'active',
      consecutiveFailures: 0,
      failingSince: null,
      disabledAt: null,
      disabledReason: null,
    });
    expectError(await setStatus('paused'), 400, 'request.validation_failed', 'status');
  });

  it('rotating the secret answers a new one and keeps the old one signing for the grace period', async () => {
    const first = (await create({ appId, url: url('/rot'), events: ['*'] })).json().data;
    const res = await call(t.app, 'POST', `${base}/${first.id}/secret`, { token: t.demoAdminToken, body: {} });
    expect(res.statusCode, res.body).toBe(200);
    const rotated = res.json().data;
    expect(rotated.secret).not.toBe(first.secret);
    expect(rotated.secretHint).toBe(rotated.secret.slice(-4));
    const expires = new Date(rotated.previousSecretExpiresAt).getTime();
    expect(Math.abs(expires - Date.now() - 86_400_000)).toBeLessThan(60_000);
    const now = await call(t.app, 'POST', `${base}/${first.id}/secret`, {
      token: t.demoAdminToken,
      body: { graceSeconds: 0 },
    });
    expect(now.json().data.previousSecretExpiresAt).toBeNull();
    expectError(
      await call(t.app, 'POST', `${base}/${first.id}/secret`, { token: t.demoAdminToken, body: { graceSeconds: -1 } }),
      400,
      'request.validation_failed',
      'graceSeconds',
    );
  });

  it('delete removes the subscription with its deliveries', async () => {
    const id = (await create({ appId, url: url('/del'), events: ['*'] })).json().data.id;
    const delivery = await deliveryRow(t, t.demoTenantId, id);
    const res = await call(t.app, 'DELETE', `${base}/${id}`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(
      await t.database.db.select().from(openWebhookDeliveries).where(eq(openWebhookDeliveries.id, delivery)),
    ).toEqual([]);
    expectError(
      await call(t.app, 'GET', `${base}/${id}`, { token: t.demoAdminToken }),
      404,
      'open_platform.webhook_not_found',
    );
  });

  it('deleting an application deletes its subscriptions and their deliveries, nothing else', async () => {
    const doomed = await insertApp(t, t.demoTenantId);
    const kept = await insertApp(t, t.demoTenantId);
    const gone = (await create({ appId: doomed, url: url('/doomed'), events: ['*'] })).json().data.id;
    const stays = (await create({ appId: kept, url: url('/kept'), events: ['*'] })).json().data.id;
    const goneDelivery = await deliveryRow(t, t.demoTenantId, gone);
    const keptDelivery = await deliveryRow(t, t.demoTenantId, stays);
    const res = await call(t.app, 'DELETE', `/api/open-platform/apps/${doomed}`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    const subs = await t.database.db.select({ id: openWebhookSubscriptions.id }).from(openWebhookSubscriptions);
    expect(subs.map((r) => r.id)).not.toContain(gone);
    expect(subs.map((r) => r.id)).toContain(stays);
    const left = (await t.database.db.select({ id: openWebhookDeliveries.id }).from(openWebhookDeliveries)).map(
      (r) => r.id,
    );
    expect(left).not.toContain(goneDelivery);
    expect(left).toContain(keptDelivery);
  });

  it('list filters by application and status', async () => {
    const app2 = await insertApp(t, t.demoTenantId);
    const id = (await create({ appId: app2, url: url('/f'), events: ['*'] })).json().data.id;
    await call(t.app, 'PUT', `${base}/${id}/status`, { token: t.demoAdminToken, body: { status: 'disabled' } });
    const byApp = (await call(t.app, 'GET', `${base}?appId=${app2}`, { token: t.demoAdminToken })).json().data;
    expect(byApp.list.map((s: { id: number }) => s.id)).toEqual([id]);
    const disabled = (
      await call(t.app, 'GET', `${base}?status=disabled&pageSize=200`, { token: t.demoAdminToken })
    ).json().data.list;
    expect(disabled.every((s: { status: string }) => s.status === 'disabled')).toBe(true);
    expect(disabled.map((s: { id: number }) => s.id)).toContain(id);
  });
});

describe('catalog and delivery log', () => {
  it('the catalog lists the test event and registered events', async () => {
    const res = await call(t.app, 'GET', '/api/open-platform/webhook-events', { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    const types = res.json().data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['webhook.test', 'sample.order.created', 'sample.order.paid']));
    expect(() => createEventRegistry([...declared, { type: 'sample.order.paid', description: 'x' }])).toThrow();
    expect(() => createEventRegistry([{ type: 'Bad Type', description: 'x' }])).toThrow();
  });

  it('deliveries list newest first, filtered; another tenant’s are not listed', async () => {
    const a = (await create({ appId, url: url('/log-a'), events: ['*'] })).json().data.id;
    const b = (await create({ appId, url: url('/log-b'), events: ['*'] })).json().data.id;
    const d1 = await deliveryRow(t, t.demoTenantId, a);
    const d2 = await deliveryRow(t, t.demoTenantId, b);
    const otherSub = (await create({ appId: otherAppId, url: url('/log-o'), events: ['*'] }, other.adminToken)).json()
      .data.id;
    const foreign = await deliveryRow(t, other.tenantId, otherSub);
    const list = async (q: string) =>
      (await call(t.app, 'GET', `/api/open-platform/webhook-deliveries?${q}`, { token: t.demoAdminToken })).json().data;
    const all = await list('pageSize=200');
    const ids = all.list.map((d: { id: number }) => d.id);
    expect(ids.indexOf(d2)).toBeLessThan(ids.indexOf(d1));
    expect(ids).not.toContain(foreign);
    expect(all.list[0].payload).toBeUndefined();
    expect((await list(`subscriptionId=${a}`)).list.map((d: { id: number }) => d.id)).toEqual([d1]);
    expect((await list(`status=failed&eventType=webhook.test&subscriptionId=${b}`)).total).toBe(1);
    expect((await list(`status=succeeded&subscriptionId=${b}`)).total).toBe(0);
    const eventId = (
      await call(t.app, 'GET', `/api/open-platform/webhook-deliveries/${d1}`, { token: t.demoAdminToken })
    ).json().data.eventId;
    expect((await list(`eventId=${eventId}`)).list.map((d: { id: number }) => d.id)).toEqual([d1]);
    expectError(
      await call(t.app, 'GET', '/api/open-platform/webhook-deliveries?eventId=nope', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'eventId',
    );
  });
});

describe('permissions and tenants', () => {
  it('each operation needs its permission (403)', async () => {
    const reader = await createUserWithPermissions(t, ['open:webhook:list']);
    const id = (await create({ appId, url: url('/perm'), events: ['*'] })).json().data.id;
    const delivery = await deliveryRow(t, t.demoTenantId, id);
    expect((await call(t.app, 'GET', base, { token: reader.token })).statusCode).toBe(200);
    const denied: [string, 'POST' | 'PUT' | 'DELETE', string, object?][] = [
      ['open:webhook:create', 'POST', base, { appId, url: url('/p2'), events: ['*'] }],
      ['open:webhook:update', 'PUT', `${base}/${id}`, { description: 'x' }],
      ['open:webhook:update', 'PUT', `${base}/${id}/status`, { status: 'disabled' }],
      ['open:webhook:update', 'POST', `${base}/${id}/secret`, {}],
      ['open:webhook:update', 'POST', `${base}/${id}/test`],
      ['open:webhook:delete', 'DELETE', `${base}/${id}`],
      ['open:webhook:redeliver', 'POST', `/api/open-platform/webhook-deliveries/${delivery}/redeliver`],
    ];
    for (const [permission, method, path, body] of denied) {
      const res = await call(t.app, method, path, { token: reader.token, ...(body ? { body } : {}) });
      expectError(res, 403, 'auth.permission_denied');
      expect(res.json().message).toContain(permission);
    }
    const nobody = await createUserWithPermissions(t, []);
    expectError(await call(t.app, 'GET', base, { token: nobody.token }), 403, 'auth.permission_denied');
    expectError(
      await call(t.app, 'GET', '/api/open-platform/webhook-deliveries', { token: nobody.token }),
      403,
      'auth.permission_denied',
    );
    expect((await subscriptionById(t, id)).status).toBe('active');
  });

  it('another tenant’s subscription and delivery answer 404 and stay unchanged', async () => {
    const theirs = (await create({ appId: otherAppId, url: url('/theirs'), events: ['*'] }, other.adminToken)).json()
      .data;
    const delivery = await deliveryRow(t, other.tenantId, theirs.id);
    const before = await subscriptionById(t, theirs.id);
    const deliveriesBefore = await rowCount(t, openWebhookDeliveries);
    const token = t.demoAdminToken;
    const attempts: ['GET' | 'POST' | 'PUT' | 'DELETE', string, object?][] = [
      ['GET', `${base}/${theirs.id}`],
      ['PUT', `${base}/${theirs.id}`, { description: 'mine now' }],
      ['PUT', `${base}/${theirs.id}/status`, { status: 'disabled' }],
      ['POST', `${base}/${theirs.id}/secret`, {}],
      ['POST', `${base}/${theirs.id}/test`],
      ['DELETE', `${base}/${theirs.id}`],
    ];
    for (const [method, path, body] of attempts) {
      expectError(
        await call(t.app, method, path, { token, ...(body ? { body } : {}) }),
        404,
        'open_platform.webhook_not_found',
      );
    }
    for (const [method, path] of [
      ['GET', `/api/open-platform/webhook-deliveries/${delivery}`],
      ['POST', `/api/open-platform/webhook-deliveries/${delivery}/redeliver`],
    ] as const) {
      expectError(await call(t.app, method, path, { token }), 404, 'open_platform.webhook_delivery_not_found');
    }
    expect(await subscriptionById(t, theirs.id)).toEqual(before);
    expect(await rowCount(t, openWebhookDeliveries)).toBe(deliveriesBefore);
    expect(receiver.hits.filter((h) => h.path === '/theirs')).toEqual([]);
    const mine = (await call(t.app, 'GET', `${base}?pageSize=200`, { token })).json().data.list;
    expect(mine.map((s: { id: number }) => s.id)).not.toContain(theirs.id);
  });

  it('the platform scope manages platform applications only', async () => {
    const platformApp = await insertApp(t, null);
    const res = await create({ appId: platformApp, url: url('/platform'), events: ['*'] }, t.adminToken);
    expect(res.statusCode, res.body).toBe(201);
    expect((await subscriptionById(t, res.json().data.id)).tenantId).toBeNull();
    expectError(
      await create({ appId, url: url('/platform2'), events: ['*'] }, t.adminToken),
      400,
      'request.validation_failed',
      'appId',
    );
    expectError(
      await create({ appId: platformApp, url: url('/platform3'), events: ['*'] }),
      400,
      'request.validation_failed',
      'appId',
    );
  });
});
