import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type TestApp } from '../helpers/app.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import {
  closeSims,
  configure,
  createOrder,
  deliver,
  eventsOf,
  formCallback,
  lastLogs,
  logsOf,
  notifyApp,
  orderRow,
  type Sims,
  startSims,
} from './notify-harness.ts';

/** Which configuration a callback belongs to: it names no tenant. */
let sims: Sims;
let t: TestApp;
let other: TenantFixture;

beforeAll(async () => {
  sims = await startSims();
  t = await notifyApp(sims);
  other = await createTenant(t);
  // one UnionPay merchant configured in two tenants: a genuine notice verifies under both
  await configure(t, t.demoAdminToken, sims, 'channel_c');
  await configure(t, other.adminToken, sims, 'channel_c');
  await configure(t, t.demoAdminToken, sims, 'channel_a');
});
afterAll(async () => {
  await t?.close();
  await closeSims(sims);
});

describe('callbacks across tenants', () => {
  it('the same merchant in two tenants: applied in the tenant holding the order, logged there', async () => {
    const order = await createOrder(t, other.adminToken, sims, 'channel_c', 700);
    const res = await deliver(t.app, 'channel_c', formCallback(sims.c.formBody(sims.c.pay(order.orderNo))));
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('ok');
    expect(await orderRow(t, order.id)).toMatchObject({ status: 'succeeded', tenantId: other.tenantId });
    expect(await eventsOf(t, 'order', order.id)).toHaveLength(1);
    const [log] = await logsOf(t, order.orderNo);
    expect(log).toMatchObject({ tenantId: other.tenantId, result: 'applied' });
  });

  it('a genuine callback for an order no tenant has: acknowledged (resending cannot help), logged not_found', async () => {
    const order = sims.c.open('NOSUCHORDER1', 100);
    const res = await deliver(t.app, 'channel_c', formCallback(sims.c.formBody(sims.c.pay(order.orderId))));
    expect(res.statusCode).toBe(200);
    expect((await logsOf(t, 'NOSUCHORDER1'))[0]).toMatchObject({ result: 'not_found', signatureValid: true });
  });

  it('a disabled configuration is not tried: a channel with none enabled answers 401', async () => {
    const id = await configure(t, other.adminToken, sims, 'channel_b');
    const off = await call(t.app, 'PUT', `/api/payment/channel-configs/${id}`, {
      token: other.adminToken,
      body: { status: 'disabled' },
    });
    expect(off.statusCode, off.body).toBe(200);
    const res = await deliver(t.app, 'channel_b', formCallback('app_id=1&sign=x'));
    expect(res.statusCode).toBe(401);
    expect((await lastLogs(t))[0]).toMatchObject({ message: 'no enabled configuration of channel_b', tenantId: null });
  });

  it('channel_a: a stale timestamp is refused with 401, its reason logged', async () => {
    const order = await createOrder(t, t.demoAdminToken, sims, 'channel_a', 900);
    sims.a.pay(order.orderNo);
    const cb = sims.a.paymentCallback(order.orderNo, { at: new Date(Date.now() - 10 * 60_000) });
    const res = await deliver(t.app, 'channel_a', cb);
    expect(res.statusCode).toBe(401);
    expect((await lastLogs(t))[0]?.message).toMatch(/stale timestamp/);
    expect(await orderRow(t, order.id)).toMatchObject({ status: 'paying' });
  });
});
