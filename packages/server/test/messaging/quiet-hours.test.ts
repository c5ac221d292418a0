import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions, USER_PASSWORD } from '../helpers/fixtures.ts';
import { dispatchesOf, outcomes, runTask, settle, testClock } from './dispatch-helpers.ts';

/** Quiet hours (spec §2.3): deferred inside the recipient's window, delivered at its end. */
let t: TestApp;
let night: { userId: number; token: string; username: string };
let newYork: { userId: number; token: string; username: string };
const clock = testClock('2026-11-21T15:30:00Z'); // 23:30 in Asia/Shanghai

beforeAll(async () => {
  t = await createTestApp({ clock: clock.clock });
  night = await createUserWithPermissions(t, []);
  newYork = await createUserWithPermissions(t, []);
  const quiet = await call(t.app, 'PUT', '/api/notification-preferences/settings', {
    token: night.token,
    body: { quietStart: '22:00', quietEnd: '07:00' },
  });
  expect(quiet.json().data).toMatchObject({ timezone: 'Asia/Shanghai', quietStart: '22:00', quietEnd: '07:00' });
  await call(t.app, 'PUT', '/api/notification-preferences/settings', {
    token: newYork.token,
    body: { quietStart: '22:00', quietEnd: '07:00', timezone: 'America/New_York' },
  });
});
afterAll(async () => t?.close());

const cc = { taskTitle: 'Offsite budget', processName: 'Expense' };
/** The user's inbox, signed in afresh: the test clock moves past access-token lifetimes. */
const inbox = async (user: { username: string }) => {
  const token = await login(t.app, user.username, USER_PASSWORD, 'demo');
  return (await call(t.app, 'GET', '/api/in-app-messages', { token })).json().data.list as { title: string }[];
};

describe('quiet hours', () => {
  it('defers inside a window crossing midnight and delivers at its end, once', async () => {
    clock.set('2026-11-21T15:30:00Z');
    const id = await t.app.messaging.notify('workflow.task.cc', {
      tenantId: t.demoTenantId,
      recipients: [{ type: 'user', id: night.userId }],
      variables: cc,
    });
    const [row] = await settle(t, id);
    expect(outcomes(row ? [row] : [])).toEqual({ inapp: 'deferred/quiet_hours' });
    expect(row?.deliverAfter?.toISOString()).toBe('2026-11-21T23:00:00.000Z'); // 07:00 local
    expect(await inbox(night)).toEqual([]);

    clock.set('2026-11-21T22:59:00Z');
    expect(await runTask(t, 'messaging.deliverDeferred')).toEqual({ released: 0 });
    clock.set('2026-11-21T23:00:00Z');
    expect(await runTask(t, 'messaging.deliverDeferred')).toEqual({ released: 1 });
    expect(await runTask(t, 'messaging.deliverDeferred')).toEqual({ released: 0 });
    const [after] = await dispatchesOf(t, id);
    // the reason code stays: the trace shows it was held for quiet hours, then sent
    expect(after).toMatchObject({ decision: 'sent', reasonCode: 'quiet_hours' });
    expect(after?.deliveredAt?.toISOString()).toBe('2026-11-21T23:00:00.000Z');
    expect((await inbox(night)).map((m) => m.title)).toEqual(['For your information: Offsite budget']);
  });

  it('critical events pass through quiet hours', async () => {
    clock.set('2026-11-21T16:00:00Z');
    const rows = await settle(
      t,
      await t.app.messaging.notify('identity.tenant.expired', {
        tenantId: t.demoTenantId,
        recipients: [{ type: 'user', id: night.userId }],
        variables: { tenantName: 'Demo', expiresAt: '2026-11-21' },
        channels: { only: ['inapp'] },
      }),
    );
    expect(outcomes(rows)).toEqual({ inapp: 'sent' });
  });

  it('outside the window nothing waits', async () => {
    clock.set('2026-11-21T05:00:00Z'); // 13:00 local
    const rows = await settle(
      t,
      await t.app.messaging.notify('workflow.task.cc', {
        tenantId: t.demoTenantId,
        recipients: [{ type: 'user', id: night.userId }],
        variables: cc,
      }),
    );
    expect(outcomes(rows)).toEqual({ inapp: 'sent' });
  });

  it('uses the recipient’s own time zone, daylight saving included', async () => {
    clock.set('2026-03-08T04:00:00Z'); // 23:00 EST; clocks move to EDT at 02:00
    const [row] = await settle(
      t,
      await t.app.messaging.notify('workflow.task.cc', {
        tenantId: t.demoTenantId,
        recipients: [{ type: 'user', id: newYork.userId }],
        variables: cc,
      }),
    );
    expect(row).toMatchObject({ decision: 'deferred', reasonCode: 'quiet_hours' });
    expect(row?.deliverAfter?.toISOString()).toBe('2026-03-08T11:00:00.000Z'); // 07:00 EDT
  });
});
