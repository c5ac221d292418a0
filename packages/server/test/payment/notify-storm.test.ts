import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentNotifyLogs } from '../../src/modules/payment/tables.ts';
import type { TestApp } from '../helpers/app.ts';
import {
  closeSims,
  configure,
  createOrder,
  deliver,
  eventsOf,
  formCallback,
  notifyInstances,
  orderRow,
  type Sims,
  startSims,
} from './notify-harness.ts';

/** 200 concurrent copies of one genuine callback across two service instances on one database. */
let sims: Sims;
let a: TestApp;
let b: TestApp;
let close: () => Promise<void>;

beforeAll(async () => {
  sims = await startSims();
  ({ a, b, close } = await notifyInstances(sims));
  await configure(a, a.demoAdminToken, sims, 'channel_c');
  await configure(a, a.demoAdminToken, sims, 'channel_a');
});
afterAll(async () => {
  await close?.();
  await closeSims(sims);
});

describe('duplicate storms on two instances', () => {
  it('channel_c: 200 copies → every one acknowledged, one state change, one outbox event', async () => {
    const order = await createOrder(a, a.demoAdminToken, sims, 'channel_c', 4200);
    const cb = formCallback(sims.c.formBody(sims.c.pay(order.orderNo)));
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => deliver((i % 2 ? a : b).app, 'channel_c', cb)),
    );
    expect(answers.map((r) => `${r.statusCode} ${r.body}`)).toEqual(Array(200).fill('200 ok'));
    expect(await orderRow(a, order.id)).toMatchObject({ status: 'succeeded', version: 2 });
    expect(await eventsOf(a, 'order', order.id)).toHaveLength(1);
    const logs = await a.database.db
      .select()
      .from(paymentNotifyLogs)
      .where(eq(paymentNotifyLogs.orderNo, order.orderNo));
    expect(logs).toHaveLength(200);
    expect(logs.filter((l) => l.result === 'applied')).toHaveLength(1);
    expect(logs.filter((l) => l.result === 'duplicate')).toHaveLength(199);
  });

  it('channel_a (certificates downloaded once per instance first): 200 copies → one change, one event', async () => {
    const order = await createOrder(a, a.demoAdminToken, sims, 'channel_a', 4300);
    sims.a.pay(order.orderNo);
    // each instance warms its certificate cache with a callback of another order (the shared
    // throttle would otherwise refuse the second instance's download in the same minute)
    const warm = await createOrder(a, a.demoAdminToken, sims, 'channel_a', 100);
    sims.a.pay(warm.orderNo);
    expect((await deliver(a.app, 'channel_a', sims.a.paymentCallback(warm.orderNo))).statusCode).toBe(204);
    expect((await deliver(b.app, 'channel_a', sims.a.paymentCallback(warm.orderNo))).statusCode).toBe(204);
    const cb = sims.a.paymentCallback(order.orderNo);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => deliver((i % 2 ? a : b).app, 'channel_a', cb)),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(200).fill(204));
    expect(await orderRow(a, order.id)).toMatchObject({ status: 'succeeded', version: 2 });
    expect(await eventsOf(a, 'order', order.id)).toHaveLength(1);
  });
});
