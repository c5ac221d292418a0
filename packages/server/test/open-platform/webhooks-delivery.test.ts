import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import { inAppMessages } from '../../src/modules/messaging/inapp/tables.ts';
import { openApps } from '../../src/modules/open-platform/apps/tables.ts';
import { RETRY_DELAYS_MS } from '../../src/modules/open-platform/webhooks/policy.ts';
import { openWebhookDeliveries, openWebhookSubscriptions } from '../../src/modules/open-platform/webhooks/tables.ts';
import { SIGNATURE_HEADER, verifySignature } from '../../src/platform/egress/signing.ts';
import { ADMIN_PASSWORD, call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions } from '../helpers/fixtures.ts';
import { testClock } from '../messaging/dispatch-helpers.ts';
import {
  deliveryById,
  type Hit,
  insertApp,
  type Receiver,
  runTask,
  sampleEvents,
  settled,
  startReceiver,
  subscriptionById,
  waitFor,
} from './webhooks-helpers.ts';

/**
 * Deliveries against a real receiver on 127.0.0.1 (in EGRESS_ALLOW_HOSTS) with a clock the test
 * moves: signed bodies and headers, who receives an event, the outbox rollback, retries on the
 * documented schedule, auto-disable with the owner's notification, redelivery, the test event,
 * secret rotation, the SSRF guard at send time, lease recovery and retention.
 */
let t: TestApp;
let receiver: Receiver;
let refused: Receiver;
let creatorId: number;
let demoAdminId: number;
let appId: number;
const clock = testClock('2026-11-21T04:00:00.000Z');
const deliver = () => runTask(t, 'open-platform.deliverWebhooks');
const webhooks = () => t.app.openPlatform.webhooks;
const tenantId = () => t.demoTenantId;
/** a fresh token: the clock moves past access-token lifetimes */
const token = () => login(t.app, 'admin', ADMIN_PASSWORD, 'demo');

beforeAll(async () => {
  receiver = await startReceiver();
  refused = await startReceiver();
  t = await createTestApp({
    clock: clock.clock,
    env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` },
    extraEvents: sampleEvents(
      { type: 'sample.order.created', description: 'an order was created' },
      { type: 'sample.order.paid', description: 'an order was paid' },
      { type: 'other.thing.done', description: 'something else' },
    ),
  });
  creatorId = (await createUserWithPermissions(t, [])).userId;
  appId = await insertApp(t, t.demoTenantId, { createdBy: creatorId, name: 'Shop sync' });
  demoAdminId = (await call(t.app, 'GET', '/api/auth/me', { token: t.demoAdminToken })).json().data.user.id;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await refused?.close();
});
beforeEach(() => {
  clock.set('2026-11-21T04:00:00.000Z');
  receiver.statusFor = () => 200;
});
// each test starts without subscriptions (their deliveries go with them), so events do not cross tests
afterEach(async () => {
  await t.database.db.delete(openWebhookSubscriptions);
});

async function subscribe(path: string, events: string[], app = appId, tok?: string) {
  const res = await call(t.app, 'POST', '/api/open-platform/webhooks', {
    token: tok ?? (await token()),
    body: { appId: app, url: `${receiver.origin}${path}`, events },
  });
  if (res.statusCode !== 201) throw new Error(`subscribe failed: ${res.body}`);
  return res.json().data as { id: number; secret: string };
}
const hitsAt = (path: string): Hit[] => receiver.hits.filter((h) => h.path === path);

describe('a delivery', () => {
  it('arrives signed, with every documented header, and is recorded as succeeded', async () => {
    const sub = await subscribe('/signed', ['sample.order.created']);
    const { eventId, deliveryIds } = await webhooks().emit({
      tenantId: tenantId(),
      type: 'sample.order.created',
      data: { orderNo: 'A-1', amount: 1999, at: new Date('2026-11-20T00:00:00Z') },
    });
    expect(deliveryIds).toHaveLength(1);
    const id = deliveryIds[0] as number;
    const row = await settled(t, id, 1);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, lastStatusCode: 200, lastError: null });
    expect(row.deliveredAt?.toISOString()).toBe(clock.clock().toISOString());

    const [hit] = hitsAt('/signed');
    expect(hit).toBeDefined();
    const h = hit as Hit;
    expect(verifySignature(sub.secret, h.headers[SIGNATURE_HEADER] as string, h.body, clock.clock())).toBe(true);
    expect(verifySignature(`${sub.secret}x`, h.headers[SIGNATURE_HEADER] as string, h.body, clock.clock())).toBe(false);
    expect(verifySignature(sub.secret, h.headers[SIGNATURE_HEADER] as string, `${h.body} `, clock.clock())).toBe(false);
    expect(h.headers[SIGNATURE_HEADER]).toMatch(
      new RegExp(`^t=${Math.floor(clock.clock().getTime() / 1000)},v1=[0-9a-f]{64}$`),
    );
    expect(h.headers['x-atrium-event']).toBe('sample.order.created');
    expect(h.headers['x-atrium-event-id']).toBe(eventId);
    expect(h.headers['x-atrium-delivery']).toBe(String(id));
    expect(h.headers['content-type']).toBe('application/json');
    expect(h.headers['user-agent']).toMatch(/^Atrium-Webhooks\/\d+\.\d+\.\d+$/);
    expect(JSON.parse(h.body)).toEqual({
      id: eventId,
      type: 'sample.order.created',
      createdAt: clock.clock().toISOString(),
      tenantId: tenantId(),
      data: { orderNo: 'A-1', amount: 1999, at: '2026-11-20T00:00:00.000Z' },
    });

    const detail = await call(t.app, 'GET', `/api/open-platform/webhook-deliveries/${id}`, { token: await token() });
    expect(detail.statusCode).toBe(200);
    expect(detail.json().data).toMatchObject({
      id,
      subscriptionId: sub.id,
      appId,
      eventId,
      status: 'succeeded',
      payload: JSON.parse(h.body),
      attemptLog: [
        { attempt: 1, statusCode: 200, error: null, responseBody: 'thanks', url: `${receiver.origin}/signed` },
      ],
    });
  });

  it('goes to matching active subscriptions of active apps in the event’s tenant only', async () => {
    const exact = await subscribe('/match-exact', ['sample.order.paid']);
    const prefix = await subscribe('/match-prefix', ['sample.*']);
    const all = await subscribe('/match-all', ['*']);
    await subscribe('/match-other', ['other.thing.done']);
    const off = await subscribe('/match-off', ['sample.order.paid']);
    await call(t.app, 'PUT', `/api/open-platform/webhooks/${off.id}/status`, {
      token: await token(),
      body: { status: 'disabled' },
    });
    const disabledApp = await insertApp(t, tenantId(), { status: 'active' });
    await subscribe('/match-disabled-app', ['sample.order.paid'], disabledApp);
    await t.database.db.update(openApps).set({ status: 'disabled' }).where(eq(openApps.id, disabledApp));
    const other = await createTenant(t, 'wh-deliv-other');
    const otherApp = await insertApp(t, other.tenantId);
    await subscribe('/match-tenant', ['sample.order.paid'], otherApp, other.adminToken);

    const { deliveryIds } = await webhooks().emit({ tenantId: tenantId(), type: 'sample.order.paid', data: {} });
    const rows = await Promise.all(deliveryIds.map((id) => settled(t, id, 1)));
    expect(rows.map((r) => r.subscriptionId).sort()).toEqual([exact.id, prefix.id, all.id].sort());
    // one event, one id across subscriptions: receivers deduplicate on it
    expect(new Set(rows.map((r) => r.eventId)).size).toBe(1);
    for (const p of ['/match-exact', '/match-prefix', '/match-all']) expect(hitsAt(p)).toHaveLength(1);
    for (const p of ['/match-other', '/match-off', '/match-disabled-app', '/match-tenant'])
      expect(hitsAt(p)).toEqual([]);

    // appIds restricts to the named applications (the drive passes the apps granted a space)
    const app2 = await insertApp(t, tenantId());
    const only = await subscribe('/match-app2', ['sample.order.paid'], app2);
    const restricted = await webhooks().emit({
      tenantId: tenantId(),
      type: 'sample.order.paid',
      data: {},
      appIds: [app2],
    });
    expect(
      (await Promise.all(restricted.deliveryIds.map((id) => deliveryById(t, id)))).map((r) => r.subscriptionId),
    ).toEqual([only.id]);
    expect(
      (await webhooks().emit({ tenantId: tenantId(), type: 'sample.order.paid', data: {}, appIds: [] })).deliveryIds,
    ).toEqual([]);
  });

  it('emitWithin writes nothing and sends nothing when the transaction rolls back', async () => {
    await subscribe('/rollback', ['other.thing.done']);
    const before = await rowCount(t, openWebhookDeliveries);
    await expect(
      t.database.db.transaction(async (tx) => {
        const r = await webhooks().emitWithin(tx, { tenantId: tenantId(), type: 'other.thing.done', data: { n: 1 } });
        expect(r.deliveryIds).toHaveLength(1);
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    expect(await rowCount(t, openWebhookDeliveries)).toBe(before);
    // the same event committed afterwards arrives: what the rolled-back one would have done by then
    const committed = await webhooks().emit({ tenantId: tenantId(), type: 'other.thing.done', data: { n: 2 } });
    expect(committed.deliveryIds).toHaveLength(1);
    await deliver();
    await waitFor(async () => hitsAt('/rollback').length > 0, 'the committed delivery');
    expect(hitsAt('/rollback').map((h) => JSON.parse(h.body).data)).toEqual([{ n: 2 }]);
  });

  it('unregistered and test events cannot be emitted', async () => {
    await expect(webhooks().emit({ tenantId: tenantId(), type: 'nobody.registered', data: {} })).rejects.toThrow(
      'not registered',
    );
    await expect(webhooks().emit({ tenantId: tenantId(), type: 'webhook.test', data: {} })).rejects.toThrow();
  });
});

describe('retries', () => {
  it('a failing receiver gets 7 attempts on the 1m, 5m, 30m, 2h, 8h, 24h schedule, then the delivery fails', async () => {
    expect(RETRY_DELAYS_MS).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000]);
    const sub = await subscribe('/down', ['sample.order.created']);
    receiver.statusFor = (p) => (p === '/down' ? 500 : 200);
    const start = clock.clock().getTime();
    const [id] = (await webhooks().emit({ tenantId: tenantId(), type: 'sample.order.created', data: {} })).deliveryIds;
    let row = await settled(t, id as number, 1);
    expect(row).toMatchObject({ status: 'pending', lastStatusCode: 500, lastError: 'HTTP 500' });

    let due = start;
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      due += delay;
      expect(row.nextAttemptAt?.getTime()).toBe(due);
      clock.set(new Date(due - 1000).toISOString());
      await deliver();
      expect((await deliveryById(t, id as number)).attempts).toBe(i + 1); // not yet due
      clock.set(new Date(due).toISOString());
      await deliver();
      row = await settled(t, id as number, i + 2);
    }
    expect(row).toMatchObject({ status: 'failed', attempts: 7, nextAttemptAt: null, lastStatusCode: 500 });
    expect(hitsAt('/down')).toHaveLength(7);
    clock.advance(30 * 86_400_000 - 1);
    await deliver();
    expect(hitsAt('/down')).toHaveLength(7);

    const detail = (
      await call(t.app, 'GET', `/api/open-platform/webhook-deliveries/${id}`, { token: await token() })
    ).json().data;
    expect(detail.attemptLog.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode])).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => [n, 500]),
    );
    expect(detail.attemptLog[0].responseBody).toBe('receiver is down');
    // 7 failures over ~35 hours: under the 10-failure rule, the subscription stays active
    const s = await subscriptionById(t, sub.id);
    expect(s).toMatchObject({ status: 'active', consecutiveFailures: 7 });
    expect(s.failingSince?.getTime()).toBe(start);

    // a success resets the streak
    receiver.statusFor = () => 200;
    const [next] = (await webhooks().emit({ tenantId: tenantId(), type: 'sample.order.created', data: {} }))
      .deliveryIds;
    await settled(t, next as number, 1);
    expect(await subscriptionById(t, sub.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null });
  });

  it('a URL fixed meanwhile receives the pending retry', async () => {
    const sub = await subscribe('/moved-from', ['sample.order.paid']);
    receiver.statusFor = (p) => (p === '/moved-from' ? 404 : 200);
    const [id] = (await webhooks().emit({ tenantId: tenantId(), type: 'sample.order.paid', data: {} })).deliveryIds;
    await settled(t, id as number, 1);
    const put = await call(t.app, 'PUT', `/api/open-platform/webhooks/${sub.id}`, {
      token: await token(),
      body: { url: `${receiver.origin}/moved-to` },
    });
    expect(put.statusCode).toBe(200);
    clock.advance(60_000);
    await deliver();
    expect(await settled(t, id as number, 2)).toMatchObject({ status: 'succeeded' });
    expect(hitsAt('/moved-to')).toHaveLength(1);
  });

  it('a delivery whose instance died is taken again once its lease ends', async () => {
    await subscribe('/lease', ['other.thing.done']);
    const lost = await t.database.db.transaction(async (tx) => {
      const r = await webhooks().emitWithin(tx, { tenantId: tenantId(), type: 'other.thing.done', data: {} });
      // as if an instance claimed it and died: leased, attempt counted, nothing sent
      await tx
        .update(openWebhookDeliveries)
        .set({ attempts: 1, lockedUntil: new Date(clock.clock().getTime() + 5 * 60_000) })
        .where(eq(openWebhookDeliveries.id, r.deliveryIds[0] as number));
      return r.deliveryIds[0] as number;
    });
    await deliver();
    expect(hitsAt('/lease')).toEqual([]);
    clock.advance(5 * 60_000 + 1000);
    await deliver();
    expect(await settled(t, lost, 2)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(hitsAt('/lease')).toHaveLength(1);
  });
});

describe('auto-disable', () => {
  it('10 failures in a row over 24 hours disable the subscription and notify its owners once', async () => {
    const sub = await subscribe('/broken', ['other.thing.done']);
    receiver.statusFor = (p) => (p === '/broken' ? 503 : 200);
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      ids.push(...(await webhooks().emit({ tenantId: tenantId(), type: 'other.thing.done', data: { i } })).deliveryIds);
    }
    for (const id of ids) await settled(t, id, 1);
    // ten failures in a burst (a short outage) do not disable a receiver
    expect(await subscriptionById(t, sub.id)).toMatchObject({ status: 'active', consecutiveFailures: 10 });

    clock.advance(24 * 3_600_000);
    await deliver();
    for (const id of ids) await settled(t, id, 2);
    const s = await subscriptionById(t, sub.id);
    expect(s).toMatchObject({ status: 'disabled', disabledReason: 'failures' });
    expect(s.disabledAt?.toISOString()).toBe(clock.clock().toISOString());

    const outbox = await t.database.db
      .select()
      .from(notificationOutbox)
      .where(eq(notificationOutbox.eventKey, 'open-platform.webhook.delivery_failed'));
    expect(outbox).toHaveLength(1);
    const input = outbox[0]?.input as { recipients: unknown; variables: Record<string, unknown> };
    // the application's creator and the subscription's
    expect(input.recipients).toEqual([
      { type: 'user', id: creatorId },
      { type: 'user', id: demoAdminId },
    ]);
    expect(input.variables).toMatchObject({
      appName: 'Shop sync',
      url: `${receiver.origin}/broken`,
      error: 'HTTP 503',
    });
    expect(input.variables.failures).toBeGreaterThanOrEqual(11);
    await t.app.messaging.process(outbox[0]?.id as number);
    const inbox = await waitFor(async () => {
      const rows = await t.database.db
        .select()
        .from(inAppMessages)
        .where(and(eq(inAppMessages.userId, creatorId), eq(inAppMessages.tenantId, tenantId())));
      return rows.length ? rows : undefined;
    }, 'the in-app notification');
    expect(inbox[0]?.title).toBe('Webhook of Shop sync is failing');

    // disabled: new events are not recorded for it, pending retries wait
    const hits = hitsAt('/broken').length;
    const next = await webhooks().emit({ tenantId: tenantId(), type: 'other.thing.done', data: {} });
    expect(next.deliveryIds).toEqual([]);
    clock.advance(3 * 3_600_000);
    await deliver();
    expect(hitsAt('/broken')).toHaveLength(hits);

    // enabling resumes them
    receiver.statusFor = () => 200;
    const on = await call(t.app, 'PUT', `/api/open-platform/webhooks/${sub.id}/status`, {
      token: await token(),
      body: { status: 'active' },
    });
    expect(on.json().data).toMatchObject({ status: 'active', consecutiveFailures: 0 });
    await deliver();
    for (const id of ids)
      await waitFor(async () => (await deliveryById(t, id)).status === 'succeeded', `delivery ${id}`);
    expect(await subscriptionById(t, sub.id)).toMatchObject({ status: 'active', consecutiveFailures: 0 });
  });
});

describe('operator sends', () => {
  it('redelivery sends the same event again as a new delivery, now', async () => {
    const sub = await subscribe('/redeliver', ['sample.order.paid']);
    receiver.statusFor = (p) => (p === '/redeliver' ? 500 : 200);
    const { eventId, deliveryIds } = await webhooks().emit({
      tenantId: tenantId(),
      type: 'sample.order.paid',
      data: { orderNo: 'R-1' },
    });
    const original = deliveryIds[0] as number;
    await settled(t, original, 1);
    receiver.statusFor = () => 200;
    const res = await call(t.app, 'POST', `/api/open-platform/webhook-deliveries/${original}/redeliver`, {
      token: await token(),
    });
    expect(res.statusCode, res.body).toBe(201);
    const again = res.json().data;
    expect(again).toMatchObject({
      subscriptionId: sub.id,
      eventId,
      eventType: 'sample.order.paid',
      redeliveryOf: original,
      status: 'succeeded',
      attempts: 1,
      attemptLog: [{ attempt: 1, statusCode: 200 }],
    });
    expect(again.id).not.toBe(original);
    const [first, second] = hitsAt('/redeliver') as [Hit, Hit];
    expect(second.body).toBe(first.body);
    expect(second.headers['x-atrium-event-id']).toBe(eventId);
    expect(second.headers['x-atrium-delivery']).toBe(String(again.id));
    expect(verifySignature(sub.secret, second.headers[SIGNATURE_HEADER] as string, second.body, clock.clock())).toBe(
      true,
    );
    // the original keeps its own schedule
    expect((await deliveryById(t, original)).status).toBe('pending');
  });

  it('the test event is sent now and answers its outcome, success or failure', async () => {
    const sub = await subscribe('/ping', ['sample.order.paid']);
    const ok = await call(t.app, 'POST', `/api/open-platform/webhooks/${sub.id}/test`, { token: await token() });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().data).toMatchObject({ eventType: 'webhook.test', status: 'succeeded', lastStatusCode: 200 });
    const hit = hitsAt('/ping')[0] as Hit;
    expect(hit.headers['x-atrium-event']).toBe('webhook.test');
    expect(JSON.parse(hit.body).data).toMatchObject({ subscriptionId: sub.id });
    expect(verifySignature(sub.secret, hit.headers[SIGNATURE_HEADER] as string, hit.body, clock.clock())).toBe(true);

    receiver.statusFor = () => 502;
    const failed = await call(t.app, 'POST', `/api/open-platform/webhooks/${sub.id}/test`, { token: await token() });
    expect(failed.statusCode).toBe(201);
    expect(failed.json().data).toMatchObject({
      status: 'pending',
      lastStatusCode: 502,
      lastError: 'HTTP 502',
      nextAttemptAt: new Date(clock.clock().getTime() + 60_000).toISOString(),
    });
  });

  it('nothing is sent for a disabled application (409)', async () => {
    const app = await insertApp(t, tenantId());
    const sub = await subscribe('/app-off', ['*'], app);
    await t.database.db.update(openApps).set({ status: 'disabled' }).where(eq(openApps.id, app));
    const res = await call(t.app, 'POST', `/api/open-platform/webhooks/${sub.id}/test`, { token: await token() });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('open_platform.webhook_app_disabled');
    expect(hitsAt('/app-off')).toEqual([]);
  });
});

describe('secrets and the egress guard', () => {
  it('after a rotation both secrets verify until the grace period ends', async () => {
    const sub = await subscribe('/rotate', ['sample.order.paid']);
    const rotated = (
      await call(t.app, 'POST', `/api/open-platform/webhooks/${sub.id}/secret`, {
        token: await token(),
        body: { graceSeconds: 3600 },
      })
    ).json().data;
    await call(t.app, 'POST', `/api/open-platform/webhooks/${sub.id}/test`, { token: await token() });
    const during = hitsAt('/rotate')[0] as Hit;
    const header = during.headers[SIGNATURE_HEADER] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(rotated.secret, header, during.body, clock.clock())).toBe(true);
    expect(verifySignature(sub.secret, header, during.body, clock.clock())).toBe(true);

    clock.advance(3600_000);
    await call(t.app, 'POST', `/api/open-platform/webhooks/${sub.id}/test`, { token: await token() });
    const after = hitsAt('/rotate')[1] as Hit;
    const header2 = after.headers[SIGNATURE_HEADER] as string;
    expect(header2.match(/v1=/g)).toHaveLength(1);
    expect(verifySignature(rotated.secret, header2, after.body, clock.clock())).toBe(true);
    expect(verifySignature(sub.secret, header2, after.body, clock.clock())).toBe(false);
  });

  it('a destination refused at send time is recorded as a failed attempt and never reached', async () => {
    const sub = await subscribe('/ssrf', ['sample.order.paid']);
    // saved while allowed; the destination is now a private address the allow-list does not name
    // (an allow-list narrowed since, or a name that resolves elsewhere now)
    await t.database.db
      .update(openWebhookSubscriptions)
      .set({ url: `${refused.origin}/ssrf` })
      .where(eq(openWebhookSubscriptions.id, sub.id));
    const [id] = (await webhooks().emit({ tenantId: tenantId(), type: 'sample.order.paid', data: {} })).deliveryIds;
    const row = await settled(t, id as number, 1);
    expect(row).toMatchObject({ status: 'pending', lastStatusCode: null });
    expect(row.lastError).toMatch(/^egress\.blocked_address: /);
    // the refused address itself is not shown (the public message only)
    expect(row.lastError).not.toContain('127.0.0.1');
    expect(refused.hits).toEqual([]);
    expect((await subscriptionById(t, sub.id)).consecutiveFailures).toBe(1);
  });
});

describe('retention', () => {
  it('finished deliveries older than 30 days are purged; pending ones are kept', async () => {
    await subscribe('/purge', ['other.thing.done']);
    receiver.statusFor = (p) => (p === '/purge-never' ? 500 : 200);
    const [done] = (await webhooks().emit({ tenantId: tenantId(), type: 'other.thing.done', data: {} })).deliveryIds;
    await settled(t, done as number, 1);
    const pending = await t.database.db.transaction(async (tx) => {
      const r = await webhooks().emitWithin(tx, { tenantId: tenantId(), type: 'other.thing.done', data: {} });
      await tx
        .update(openWebhookDeliveries)
        .set({ nextAttemptAt: new Date(clock.clock().getTime() + 90 * 86_400_000) })
        .where(eq(openWebhookDeliveries.id, r.deliveryIds[0] as number));
      return r.deliveryIds[0] as number;
    });
    clock.advance(30 * 86_400_000 + 1000);
    const result = (await runTask(t, 'open-platform.purgeWebhookDeliveries')) as { deleted: number };
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    const left = await t.database.db.select({ id: openWebhookDeliveries.id }).from(openWebhookDeliveries);
    expect(left.map((r) => r.id)).not.toContain(done);
    expect(left.map((r) => r.id)).toContain(pending);
  });
});
