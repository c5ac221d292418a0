import { expect } from 'vitest';
import { call, type TestApp } from '../helpers/app.ts';

/** A sandbox configuration of the caller's tenant; returns its id. */
export async function sandboxConfig(t: TestApp, token: string, name = 'Sandbox'): Promise<number> {
  const res = await call(t.app, 'POST', '/api/payment/channel-configs', { token, body: { channel: 'sandbox', name } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

let seq = 0;
export const orderNo = (prefix = 'O') => `${prefix}-${Date.now().toString(36)}-${++seq}`;

/** A sandbox order (paying); returns the answered order. */
export async function sandboxOrder(t: TestApp, token: string, amount = 1000, no = orderNo()) {
  const res = await call(t.app, 'POST', '/api/payment/orders', {
    token,
    body: { orderNo: no, amount, channel: 'sandbox', subject: 'Test order' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; orderNo: string; status: string; amount: number };
}

/** A sandbox order, paid. */
export async function paidOrder(t: TestApp, token: string, amount = 1000) {
  const order = await sandboxOrder(t, token, amount);
  const res = await call(t.app, 'POST', `/api/payment/orders/${order.id}/sandbox/pay`, { token });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().data.order.status).toBe('succeeded');
  return order;
}
