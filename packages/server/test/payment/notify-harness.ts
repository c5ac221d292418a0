import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { paymentEventRecords, paymentNotifyLogs, paymentOrders } from '../../src/modules/payment/tables.ts';
import { call, createTestApp, createTwoInstances, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { configBodies, type Sims, simulatorHosts } from './simulator/sims.ts';

export { closeSims, type Sims, startSims } from './simulator/sims.ts';

/**
 * The callback route against the three channel simulators: the app's egress allow-list names
 * the simulators' loopback ports (EGRESS_ALLOW_HOSTS), the demo tenant holds one configuration
 * of each channel pointing at its simulator, and callbacks are injected with exactly the bytes
 * and headers the simulators produce.
 */
const SHARED_SECRET_KEY = `test:${randomBytes(32).toString('base64')}`;

function appOptions(s: Sims): TestAppOptions {
  // one field-encryption key for both instances: each opens the configuration secrets the other sealed
  return { env: { EGRESS_ALLOW_HOSTS: simulatorHosts(s), SECRET_KEYS: SHARED_SECRET_KEY } };
}

export const notifyApp = (s: Sims) => createTestApp(appOptions(s));
export const notifyInstances = (s: Sims) => createTwoInstances(appOptions(s));

export type Channel = 'channel_a' | 'channel_b' | 'channel_c';

export async function configure(t: TestApp, token: string, s: Sims, channel: Channel, name: string = channel) {
  const res = await call(t.app, 'POST', '/api/payment/channel-configs', {
    token,
    body: { channel, name, ...configBodies(s)[channel] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as number;
}

let seq = 0;
/** An order number every channel takes (channel_c: 8–32 letters and digits). */
export const channelOrderNo = () => `N${Date.now().toString(36)}${String(++seq).padStart(4, '0')}`.toUpperCase();

export type CreatedOrder = { id: number; orderNo: string; amount: number; createdAt: string; status: string };

/** An order created through the API at the channel; channel_c's gateway order is opened at the simulator as the payer's browser would. */
export async function createOrder(t: TestApp, token: string, s: Sims, channel: Channel, amount = 1999) {
  const res = await call(t.app, 'POST', '/api/payment/orders', {
    token,
    body: { orderNo: channelOrderNo(), amount, channel, subject: 'Atrium order' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const order = res.json().data as CreatedOrder;
  expect(order.status).toBe('paying');
  if (channel === 'channel_c') s.c.open(order.orderNo, amount, new Date(order.createdAt));
  if (channel === 'channel_b') s.b.scan(order.orderNo);
  return order;
}

export type Callback = { rawBody: Buffer; headers: Record<string, string> };

export const formCallback = (body: string, charset = 'utf-8'): Callback => ({
  rawBody: Buffer.from(body, 'utf8'),
  headers: { 'content-type': `application/x-www-form-urlencoded; charset=${charset}` },
});

/** The payer pays at the simulator; the callback the channel then sends (and sends again). */
export function paidCallback(s: Sims, channel: Channel, orderNo: string): Callback {
  if (channel === 'channel_a') {
    s.a.pay(orderNo);
    return s.a.paymentCallback(orderNo);
  }
  if (channel === 'channel_b') return formCallback(s.b.pay(orderNo));
  return formCallback(s.c.formBody(s.c.pay(orderNo)), 'UTF-8');
}

/** Posts a callback exactly as received from the channel. */
export function deliver(app: TestApp['app'], channel: Channel, cb: Callback) {
  return app.inject({
    method: 'POST',
    url: `/api/public/payment/notify/${channel}`,
    headers: cb.headers,
    payload: cb.rawBody,
  });
}

export async function orderRow(t: TestApp, id: number) {
  const [row] = await t.database.db.select().from(paymentOrders).where(eq(paymentOrders.id, id));
  return row;
}

export async function eventsOf(t: TestApp, aggregateType: 'order' | 'refund', id: number) {
  const rows = await t.database.db.select().from(paymentEventRecords).where(eq(paymentEventRecords.aggregateId, id));
  return rows.filter((r) => r.aggregateType === aggregateType);
}

export async function logsOf(t: TestApp, orderNo: string) {
  return t.database.db.select().from(paymentNotifyLogs).where(eq(paymentNotifyLogs.orderNo, orderNo));
}

/** The newest log rows (invalid ones carry no order number). */
export async function lastLogs(t: TestApp, n = 1) {
  const rows = await t.database.db.select().from(paymentNotifyLogs);
  return rows.sort((x, y) => y.id - x.id).slice(0, n);
}
