import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelAdapter } from '../../src/modules/messaging/channels/types.ts';
import { pushDevices, pushSendLogs } from '../../src/modules/messaging/push/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { type PushReceiver, pushDelivery, startPushReceiver } from './push-helpers.ts';

/** The push channel against a local provider that checks Basic authentication and records the body. */
const APP_KEY = 'demo-app-key';
const SECRET = 'demo-master-secret';

let t: TestApp;
let jpush: PushReceiver;
let push: ChannelAdapter;
let other: TenantFixture;
let ada: { userId: number; token: string };
let bob: { userId: number; token: string };

const bind = async (token: string, registrationId: string, platform = 'android') => {
  const res = await call(t.app, 'POST', '/api/push-devices', { token, body: { platform, registrationId } });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json().data.id as number;
};
const saveConfig = (token: string, body: Record<string, unknown>) =>
  call(t.app, 'PUT', '/api/push-config', { token, body });
const logsOf = (dispatchId: number) =>
  t.database.db.select().from(pushSendLogs).where(eq(pushSendLogs.dispatchId, dispatchId));

beforeAll(async () => {
  jpush = await startPushReceiver(APP_KEY, SECRET);
  t = await createTestApp({ env: { EGRESS_ALLOW_HOSTS: jpush.host } });
  push = t.app.messaging.channels.get('push') as ChannelAdapter;
  ({ other, nobody: ada } = await twoTenants(t));
  bob = await createUserWithPermissions(t, []);
});
afterAll(async () => {
  await t?.close();
  await jpush?.close();
});

describe('push channel', () => {
  it('is unavailable without an enabled configuration', async () => {
    expect(await push.available(t.demoTenantId)).toBe(false);
    const res = await saveConfig(t.demoAdminToken, {
      endpoint: jpush.url,
      appKey: APP_KEY,
      masterSecret: SECRET,
      apnsProduction: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await push.available(t.demoTenantId)).toBe(true);
    expect(await push.available(other.tenantId)).toBe(false);
  });

  it("pushes to the recipient's active devices in one call: Basic auth, texts, extras", async () => {
    await bind(ada.token, 'ada-phone', 'android');
    await bind(ada.token, 'ada-tablet', 'ios');
    const stale = await bind(ada.token, 'ada-old', 'harmony');
    await t.database.db.update(pushDevices).set({ status: 'inactive' }).where(eq(pushDevices.id, stale));
    await bind(bob.token, 'bob-phone');

    const before = jpush.accepted.length;
    const [outcome] = await push.deliver([pushDelivery(t.demoTenantId, { id: ada.userId }, { dispatchId: 201 })]);
    expect(outcome).toEqual({ status: 'sent', providerMessageId: expect.stringMatching(/^\d+$/) });
    expect(jpush.accepted.length).toBe(before + 1);
    const { body, contentType } = jpush.accepted.at(-1) as PushReceiver['accepted'][number];
    expect(contentType).toBe('application/json');
    const title = 'Reminder: Expense #42';
    const content = 'Bob asks you to handle "Expense #42" (Expenses).';
    // the phone opens the deep link outside the console: absolute (here the development address)
    const extras = { eventKey: 'workflow.task.urged', link: 'http://127.0.0.1:3000/workflow/tasks/42' };
    expect({
      ...body,
      audience: { registration_id: [...(body.audience as { registration_id: string[] }).registration_id].sort() },
    }).toEqual({
      platform: 'all',
      audience: { registration_id: ['ada-phone', 'ada-tablet'] },
      notification: {
        alert: content,
        android: { title, alert: content, extras },
        ios: { alert: { title, body: content }, extras },
      },
      options: { apns_production: true },
    });

    const [log] = await logsOf(201);
    expect(log).toMatchObject({
      tenantId: t.demoTenantId,
      eventKey: 'workflow.task.urged',
      userId: ada.userId,
      status: 'sent',
      providerMessageId: (outcome as { providerMessageId: string }).providerMessageId,
      error: null,
    });
    expect([...(log?.registrationIds ?? [])].sort()).toEqual(['ada-phone', 'ada-tablet']);
  });

  it('one call per recipient in a batch', async () => {
    const before = jpush.accepted.length;
    const outcomes = await push.deliver([
      pushDelivery(t.demoTenantId, { id: ada.userId, key: `u:${ada.userId}` }, { dispatchId: 202 }),
      pushDelivery(t.demoTenantId, { id: bob.userId, key: `u:${bob.userId}` }, { dispatchId: 203, link: null }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['sent', 'sent']);
    expect(jpush.accepted.length).toBe(before + 2);
    const bobCall = jpush.accepted
      .slice(before)
      .map((a) => a.body as { audience: { registration_id: string[] }; notification: { android: { extras: object } } })
      .find((b) => b.audience.registration_id.includes('bob-phone'));
    expect(bobCall?.audience.registration_id).toEqual(['bob-phone']);
    expect(bobCall?.notification.android.extras).toEqual({ eventKey: 'workflow.task.urged' });
  });

  it('users without active devices, members and external recipients are unreachable; nothing is called', async () => {
    const nobody = await createUserWithPermissions(t, []);
    const before = jpush.accepted.length;
    const outcomes = await push.deliver([
      pushDelivery(t.demoTenantId, { id: nobody.userId }, { dispatchId: 204 }),
      pushDelivery(t.demoTenantId, { type: 'member', id: 7, key: 'm:7' }, { dispatchId: 205 }),
      pushDelivery(t.demoTenantId, { type: 'external', id: null, key: 'e:push:x', address: 'x' }, { dispatchId: 206 }),
      // Ada's devices are in the demo tenant, not in another one
      pushDelivery(other.tenantId, { id: ada.userId }, { dispatchId: 207 }),
    ]);
    expect(outcomes).toEqual([
      { status: 'unreachable', detail: 'no active bound device' },
      { status: 'unreachable', detail: expect.stringContaining('users only') },
      { status: 'unreachable', detail: expect.stringContaining('users only') },
      { status: 'unreachable', detail: 'no active bound device' },
    ]);
    expect(jpush.accepted.length).toBe(before);
    expect(await logsOf(204)).toEqual([]);
  });

  it('ids the provider does not know (1011) fail the push and turn the devices inactive', async () => {
    jpush.unknown.add('bob-phone');
    const [outcome] = await push.deliver([pushDelivery(t.demoTenantId, { id: bob.userId }, { dispatchId: 208 })]);
    expect(outcome).toEqual({ status: 'failed', error: expect.stringContaining('JPush 1011') });
    const [device] = await t.database.db.select().from(pushDevices).where(eq(pushDevices.registrationId, 'bob-phone'));
    expect(device?.status).toBe('inactive');
    expect((await logsOf(208))[0]).toMatchObject({ status: 'failed', registrationIds: ['bob-phone'] });
    // the next push finds no active device; binding again reactivates it
    const [next] = await push.deliver([pushDelivery(t.demoTenantId, { id: bob.userId }, { dispatchId: 209 })]);
    expect(next).toEqual({ status: 'unreachable', detail: 'no active bound device' });
    jpush.unknown.delete('bob-phone');
    await bind(bob.token, 'bob-phone');
    const [again] = await push.deliver([pushDelivery(t.demoTenantId, { id: bob.userId }, { dispatchId: 210 })]);
    expect(again?.status).toBe('sent');
  });

  it('a wrong master secret is refused by the provider: failed and logged', async () => {
    await saveConfig(t.demoAdminToken, { masterSecret: 'wrong-secret' });
    const rejected = jpush.rejected;
    const [outcome] = await push.deliver([pushDelivery(t.demoTenantId, { id: ada.userId }, { dispatchId: 211 })]);
    expect(outcome).toEqual({ status: 'failed', error: 'JPush 1004: Authen failed' });
    expect(jpush.rejected).toBe(rejected + 1);
    expect((await logsOf(211))[0]).toMatchObject({ status: 'failed', error: 'JPush 1004: Authen failed' });
    await saveConfig(t.demoAdminToken, { masterSecret: SECRET });
  });

  it("a tenant's own disabled configuration switches push off; without one the platform's applies", async () => {
    await saveConfig(t.adminToken, { endpoint: jpush.url, appKey: APP_KEY, masterSecret: SECRET });
    expect(await push.available(other.tenantId)).toBe(true);
    await bind(other.adminToken, 'other-admin-phone');
    const [outcome] = await push.deliver([
      pushDelivery(other.tenantId, { id: other.adminUserId }, { dispatchId: 212 }),
    ]);
    expect(outcome?.status).toBe('sent');
    expect((await logsOf(212))[0]?.tenantId).toBe(other.tenantId);

    await saveConfig(t.demoAdminToken, { enabled: false });
    expect(await push.available(t.demoTenantId)).toBe(false);
    await saveConfig(t.demoAdminToken, { enabled: true });
    expect(await push.available(t.demoTenantId)).toBe(true);
  });
});

describe('GET /api/push-send-logs', () => {
  it("lists the tenant's rows newest first, with filters", async () => {
    const res = await call(t.app, 'GET', `/api/push-send-logs?userId=${bob.userId}`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json().data.list as { dispatchId: number; status: string; userId: number }[];
    expect(list.map((l) => l.dispatchId)).toEqual([210, 208, 203]);
    const failed = await call(t.app, 'GET', '/api/push-send-logs?status=failed', { token: t.demoAdminToken });
    expect(failed.json().data.list.map((l: { dispatchId: number }) => l.dispatchId)).toEqual([211, 208]);
    const mineOnly = await call(t.app, 'GET', '/api/push-send-logs', { token: other.adminToken });
    expect(mineOnly.json().data.list.map((l: { dispatchId: number }) => l.dispatchId)).toEqual([212]);
    expectError(
      await call(t.app, 'GET', '/api/push-send-logs?from=yesterday', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'from',
    );
    const nobody = await createUserWithPermissions(t, []);
    expectError(
      await call(t.app, 'GET', '/api/push-send-logs', { token: nobody.token }),
      403,
      'auth.permission_denied',
    );
  });
});
