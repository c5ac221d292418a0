import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentNotifyLogs } from '../../src/modules/payment/tables.ts';
import { PLATFORM_TENANT_ID } from '../../src/platform/db/tenant-key.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import {
  closeSims,
  configure,
  createOrder,
  deliver,
  formCallback,
  notifyApp,
  type Sims,
  startSims,
} from './notify-harness.ts';

/** GET /api/payment/notify-logs and /{id}: success, filters, bad input, another tenant, no permission. */
let sims: Sims;
let t: TestApp;
let token: string;
let other: TenantFixture;
let nobody: { token: string };
let viewer: { token: string };
let orderNo: string;

beforeAll(async () => {
  sims = await startSims();
  t = await notifyApp(sims);
  token = t.demoAdminToken;
  ({ other, nobody } = await twoTenants(t));
  viewer = await createUserWithPermissions(t, ['payment:notify-log:view']);
  await configure(t, token, sims, 'channel_c');
  const order = await createOrder(t, token, sims, 'channel_c', 800);
  orderNo = order.orderNo;
  await deliver(t.app, 'channel_c', formCallback(sims.c.formBody(sims.c.pay(orderNo))));
  await deliver(t.app, 'channel_c', formCallback('merId=1&txnAmt=1')); // verifies nowhere: tenant null
});
afterAll(async () => {
  await t?.close();
  await closeSims(sims);
});

const list = (query: string, as = token) => call(t.app, 'GET', `/api/payment/notify-logs${query}`, { token: as });

describe('callback log routes', () => {
  it('lists the tenant’s callbacks without bodies, filtered; reads one with its body and header digest', async () => {
    const res = await list(`?orderNo=${orderNo}&signatureValid=true&channel=channel_c`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json().data;
    expect(page.total).toBe(1);
    expect(page.list[0]).toMatchObject({ orderNo, result: 'applied', scene: 'payment', signatureValid: true });
    expect(page.list[0].rawBody).toBeUndefined();
    const one = await call(t.app, 'GET', `/api/payment/notify-logs/${page.list[0].id}`, { token: viewer.token });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().data.rawBody).toContain(`orderId=${orderNo}`);
    expect(one.json().data.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect((await list('?signatureValid=false')).json().data.total).toBe(0);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await list(`?from=${encodeURIComponent(future)}`)).json().data.total).toBe(0);
    expect((await list(`?to=${encodeURIComponent(future)}`)).json().data.total).toBe(1);
  });

  it('a callback nobody verified (tenant null) is seen at platform scope only', async () => {
    const platform = await call(t.app, 'GET', '/api/payment/notify-logs?signatureValid=false', {
      token: t.adminToken,
    });
    expect(platform.statusCode, platform.body).toBe(200);
    expect(platform.json().data.total).toBe(1);
    expect(platform.json().data.list[0]).toMatchObject({ tenantId: null, result: 'invalid_signature' });
  });

  it('refuses bad input naming the field', async () => {
    expectError(await list('?signatureValid=yes'), 400, 'request.validation_failed', 'signatureValid');
    expectError(await list('?channel=sandbox'), 400, 'request.validation_failed', 'channel');
    expectError(await list('?from=yesterday'), 400, 'request.validation_failed', 'from');
    expectError(
      await call(t.app, 'GET', '/api/payment/notify-logs/0', { token }),
      400,
      'request.validation_failed',
      'id',
    );
  });

  it('another tenant sees none of them; a user without the permission is refused', async () => {
    const [row] = await t.database.db.select().from(paymentNotifyLogs).limit(1);
    const theirs = await call(t.app, 'GET', `/api/payment/notify-logs/${row?.id}`, { token: other.adminToken });
    expectError(theirs, 404, 'payment.notify_log_not_found');
    expect((await list('', other.adminToken)).json().data.total).toBe(0);
    expect((await list('', nobody.token)).statusCode).toBe(403);
    const unsigned = await call(t.app, 'GET', '/api/payment/notify-logs');
    expect(unsigned.statusCode).toBe(401);
  });

  it('the daily sweep deletes rows past the 90-day retention only', async () => {
    const old = new Date(Date.now() - 91 * 86_400_000);
    const [row] = await t.database.db
      .insert(paymentNotifyLogs)
      .values({
        tenantId: PLATFORM_TENANT_ID,
        channel: 'channel_c',
        rawBody: 'old',
        headers: {},
        signatureValid: false,
        result: 'x',
        createdAt: old,
      })
      .returning();
    const before = (await t.database.db.select().from(paymentNotifyLogs)).length;
    expect(await t.app.payment.purgeNotifyLogs()).toEqual({ deleted: 1 });
    const after = await t.database.db.select().from(paymentNotifyLogs);
    expect(after).toHaveLength(before - 1);
    expect(after.some((r) => r.id === row?.id)).toBe(false);
  });
});
