import { randomBytes } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWebhookAttempts, openWebhookDeliveries } from '../../src/modules/open-platform/webhooks/tables.ts';
import { call, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app.ts';
import { testClock } from '../messaging/dispatch-helpers.ts';
import { insertApp, type Receiver, runTask, sampleEvents, startReceiver, waitFor } from './webhooks-helpers.ts';

/**
 * Two instances on one PostgreSQL database: the wake jobs and both instances' sweepers work on
 * the same deliveries at the same moment, and each delivery attempt still reaches the receiver
 * exactly once.
 */
describe('webhook deliveries on two instances', () => {
  let store: TestStore;
  let a: TestApp;
  let b: TestApp;
  let receiver: Receiver;
  let subscriptionId: number;
  const clock = testClock('2026-11-21T04:00:00.000Z');
  const EVENTS = 40;

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.delayMs = 20; // slow enough for the instances' claims to overlap
    store = await createTestStore();
    // instances share SECRET_KEYS (as in production): either one decrypts the signing secrets
    const env = {
      EGRESS_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
      SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    };
    // the catalog is in-process: every instance declares the same events at start
    const extraEvents = sampleEvents({ type: 'sample.job.done', description: 'x' });
    a = await createTestApp({ store, clock: clock.clock, env, extraEvents });
    b = await createTestApp({ store, clock: clock.clock, env, extraEvents });
    const appId = await insertApp(a, a.demoTenantId);
    const res = await call(a.app, 'POST', '/api/open-platform/webhooks', {
      token: a.demoAdminToken,
      body: { appId, url: `${receiver.origin}/hook`, events: ['sample.job.done'] },
    });
    expect(res.statusCode, res.body).toBe(201);
    subscriptionId = res.json().data.id;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await store?.drop();
    await receiver?.close();
  });

  const deliveriesOf = (ids: number[]) =>
    a.database.db.select().from(openWebhookDeliveries).where(inArray(openWebhookDeliveries.id, ids));
  const sweepBoth = () =>
    Promise.all([
      runTask(a, 'open-platform.deliverWebhooks'),
      runTask(b, 'open-platform.deliverWebhooks'),
      runTask(a, 'open-platform.deliverWebhooks'),
      runTask(b, 'open-platform.deliverWebhooks'),
    ]);

  it('wake jobs and both sweepers at once: every delivery is sent once', async () => {
    const emitted = await Promise.all(
      Array.from({ length: EVENTS }, (_, i) =>
        (i % 2 ? a : b).app.openPlatform.webhooks.emit({
          tenantId: a.demoTenantId,
          type: 'sample.job.done',
          data: { i },
        }),
      ),
    );
    const ids = emitted.flatMap((e) => e.deliveryIds);
    await sweepBoth();
    await waitFor(async () => (await deliveriesOf(ids)).every((r) => r.status === 'succeeded'), 'all deliveries');
    const sent = receiver.hits.map((h) => h.headers['x-atrium-delivery']);
    expect(sent).toHaveLength(EVENTS);
    expect(new Set(sent).size).toBe(EVENTS);
    expect((await deliveriesOf(ids)).every((r) => r.attempts === 1 && r.subscriptionId === subscriptionId)).toBe(true);
  });

  it('retries swept by both instances at once: one attempt each', async () => {
    receiver.hits.length = 0;
    receiver.statusFor = () => 500;
    const emitted = await Promise.all(
      Array.from({ length: EVENTS }, (_, i) =>
        a.app.openPlatform.webhooks.emit({ tenantId: a.demoTenantId, type: 'sample.job.done', data: { i } }),
      ),
    );
    const ids = emitted.flatMap((e) => e.deliveryIds);
    await waitFor(
      async () => (await deliveriesOf(ids)).every((r) => r.attempts === 1 && r.lockedUntil === null),
      'first attempts',
    );
    receiver.statusFor = () => 200;
    clock.advance(60_000);
    await sweepBoth();
    await waitFor(async () => (await deliveriesOf(ids)).every((r) => r.status === 'succeeded'), 'retries');
    expect(receiver.hits).toHaveLength(2 * EVENTS);
    const rows = await deliveriesOf(ids);
    expect(rows.every((r) => r.attempts === 2)).toBe(true);
    for (const id of ids.slice(0, 5)) {
      const log = await a.database.db
        .select({ attempt: openWebhookAttempts.attempt, statusCode: openWebhookAttempts.statusCode })
        .from(openWebhookAttempts)
        .where(eq(openWebhookAttempts.deliveryId, id))
        .orderBy(openWebhookAttempts.attempt);
      expect(log).toEqual([
        { attempt: 1, statusCode: 500 },
        { attempt: 2, statusCode: 200 },
      ]);
    }
  });
});
