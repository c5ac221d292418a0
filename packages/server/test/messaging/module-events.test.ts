import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/modules/identity/tables.ts';
import { PLATFORM_TENANT_ID } from '../../src/platform/db/tenant-key.ts';
import { defineSystemTask } from '../../src/platform/jobs/define.ts';
import { tenants } from '../../src/platform/tenancy/tables.ts';
import { ADMIN_PASSWORD, call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';
import { runTask, waitFor } from '../open-platform/webhooks-helpers.ts';
import { testClock } from './dispatch-helpers.ts';
import { messagesOf } from './inapp-helpers.ts';

/**
 * Every catalog event of a module that exists is emitted (spec §6.2), end to end through the
 * real app: the module's task, runner or route → notify → an in-app message in the inbox of the
 * recipients the decision records name (docs/decisions/0008).
 */
const DAY = 86_400_000;
const clock = testClock('2026-09-01T12:00:00.000Z');
const licenseExpiry = new Date(clock.clock().getTime() + 7 * DAY - 3_600_000);
let t: TestApp;
/** a tenant created through the API, with its provisioned administrator */
let tenant: { id: number; name: string; adminId: number };
let platformAdminId: number;
/** fresh tokens: the clock moves past access-token lifetimes */
const adminToken = () => login(t.app, 'admin', ADMIN_PASSWORD);

/** the titles in a user's inbox once it holds `count` messages (delivery is asynchronous) */
async function titlesOnce(userId: number, count: number): Promise<string[]> {
  const rows = await waitFor(async () => {
    const r = await messagesOf(t, userId);
    return r.length >= count ? r : undefined;
  }, `${count} in-app messages`);
  return rows.map((r) => r.title);
}

beforeAll(async () => {
  t = await createTestApp({
    clock: clock.clock,
    license: JSON.stringify({ licensee: 'Acme', features: ['drive'], expiresAt: licenseExpiry.toISOString() }),
  });
  const created = await call(t.app, 'POST', '/api/tenants', {
    token: t.adminToken,
    body: { code: 'expiring', name: 'Expiring Ltd', adminUsername: 'boss', adminPassword: ADMIN_PASSWORD },
  });
  expect(created.statusCode, created.body).toBe(201);
  const { id, admin } = created.json().data;
  tenant = {
    id,
    name: 'Expiring Ltd',
    adminId: admin.id,
  };
  const [superAdmin] = await t.database.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.tenantId, PLATFORM_TENANT_ID), eq(users.isSuper, true)));
  platformAdminId = superAdmin?.id as number;
});
afterAll(async () => t?.close());

describe('identity.tenant.expiring / expired', () => {
  const setExpiry = (at: Date) => t.database.db.update(tenants).set({ expiresAt: at }).where(eq(tenants.id, tenant.id));

  it('reach the tenant’s administrators once per threshold, then when it has expired', async () => {
    const expiresAt = new Date(clock.clock().getTime() + 7 * DAY - 3_600_000);
    await setExpiry(expiresAt);
    expect(await runTask(t, 'identity.notifyTenantExpiry')).toEqual({ notified: 1 });
    const date = expiresAt.toISOString().slice(0, 10);
    expect(await titlesOnce(tenant.adminId, 1)).toEqual([`Tenant ${tenant.name} expires on ${date}`]);
    const [first] = await messagesOf(t, tenant.adminId);
    expect(first?.content).toContain('(7 days left)');

    // the same day again: the idempotency key holds it back
    await runTask(t, 'identity.notifyTenantExpiry');
    // the next day no threshold was crossed
    clock.advance(DAY);
    expect(await runTask(t, 'identity.notifyTenantExpiry')).toEqual({ notified: 0 });

    await setExpiry(new Date(clock.clock().getTime() - 3_600_000));
    expect(await runTask(t, 'identity.notifyTenantExpiry')).toEqual({ notified: 1 });
    const titles = await titlesOnce(tenant.adminId, 2);
    expect(titles).toEqual([`Tenant ${tenant.name} expires on ${date}`, `Tenant ${tenant.name} has expired`]);
  });
});

describe('ops.scheduler.job_failed / task_alert', () => {
  it('every failed run tells the platform administrators; the third failure in a row raises a task alert', async () => {
    t.app.ctx.jobs.register({
      alwaysFails: defineSystemTask({
        name: 'test.alwaysFails',
        handler: async () => {
          throw new Error('disk on fire');
        },
      }),
    });
    const token = await adminToken();
    const before = (await messagesOf(t, platformAdminId)).length;
    const job = await call(t.app, 'POST', '/api/cron-jobs', {
      token,
      body: { name: 'Nightly sync', handler: 'test.alwaysFails', cron: '0 3 * * *', enabled: false },
    });
    expect(job.statusCode, job.body).toBe(201);
    const id = job.json().data.id;
    for (let i = 1; i <= 3; i++) {
      expect((await call(t.app, 'POST', `/api/cron-jobs/${id}/run`, { token })).statusCode).toBeLessThan(300);
      await titlesOnce(platformAdminId, before + i);
    }
    const titles = (await titlesOnce(platformAdminId, before + 4)).slice(before);
    expect(titles.filter((x) => x === 'Job failed: Nightly sync')).toHaveLength(3);
    expect(titles.filter((x) => x === 'Task alert: Nightly sync')).toHaveLength(1);
  });
});

describe('ops.monitor.alert / alert_test', () => {
  const setDisk = async (percent: number) => {
    const res = await call(t.app, 'PUT', '/api/settings/ops', {
      token: await adminToken(),
      body: { diskAlertPercent: percent },
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  it('the thresholds are settings of module ops, off by default', async () => {
    const res = await call(t.app, 'GET', '/api/settings/ops', { token: await adminToken() });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.values).toEqual({ cpuAlertPercent: 0, memoryAlertPercent: 0, diskAlertPercent: 0 });
  });

  it('alerts the platform administrators once per crossing, not at every check', async () => {
    const before = (await messagesOf(t, platformAdminId)).length;
    await setDisk(0.01); // any disk in use is above it
    expect(await runTask(t, 'ops.checkServerThresholds')).toEqual({ alerts: 1 });
    expect(await runTask(t, 'ops.checkServerThresholds')).toEqual({ alerts: 0 });
    const [title] = (await titlesOnce(platformAdminId, before + 1)).slice(before);
    expect(title).toMatch(/^\[critical\] disk on /);

    await setDisk(100); // back below
    expect(await runTask(t, 'ops.checkServerThresholds')).toEqual({ alerts: 0 });
    await setDisk(0.01); // a new crossing
    expect(await runTask(t, 'ops.checkServerThresholds')).toEqual({ alerts: 1 });
    await titlesOnce(platformAdminId, before + 2);
    await setDisk(0);
  });

  it('"send test alert" puts the test alert in the caller’s inbox', async () => {
    const token = await login(t.app, 'admin', ADMIN_PASSWORD, 'demo');
    const me = (await call(t.app, 'GET', '/api/auth/me', { token })).json().data.user.id;
    const before = (await messagesOf(t, me)).length;
    const res = await call(t.app, 'POST', '/api/monitor/server/test-alert', { token });
    expect(res.statusCode, res.body).toBe(200);
    const [title] = (await titlesOnce(me, before + 1)).slice(before);
    expect(title).toMatch(/^Test alert from /);
  });

  it('"send test alert" needs monitor:server:view: 403, and nothing is sent', async () => {
    const nobody = await createUserWithPermissions(t, []);
    const before = (await messagesOf(t, nobody.userId)).length;
    const res = await call(t.app, 'POST', '/api/monitor/server/test-alert', { token: nobody.token });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('auth.permission_denied');
    expect(await call(t.app, 'POST', '/api/monitor/server/test-alert')).toMatchObject({ statusCode: 401 });
    expect((await messagesOf(t, nobody.userId)).length).toBe(before);
  });
});

describe('ops.license.expiring / invalid', () => {
  it('remind the platform administrators before the licence expires, and when it has', async () => {
    clock.set(new Date(licenseExpiry.getTime() - 7 * DAY + 3_600_000).toISOString());
    const before = (await messagesOf(t, platformAdminId)).length;
    expect(await runTask(t, 'ops.checkLicense')).toEqual({ notified: 7 });
    const date = licenseExpiry.toISOString().slice(0, 10);
    expect((await titlesOnce(platformAdminId, before + 1)).slice(before)).toEqual([`The licence expires on ${date}`]);

    clock.set(new Date(licenseExpiry.getTime() + 3_600_000).toISOString());
    expect(await runTask(t, 'ops.checkLicense')).toEqual({ notified: 0 });
    const titles = (await titlesOnce(platformAdminId, before + 2)).slice(before);
    expect(titles).toEqual([`The licence expires on ${date}`, 'The licence is invalid']);
  });
});
