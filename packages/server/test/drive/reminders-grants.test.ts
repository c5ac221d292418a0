import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveNodePermissions, driveNodes } from '../../src/modules/drive/tables.ts';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { rowById } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { messagesOf } from '../messaging/inapp-helpers.ts';
import { waitFor } from '../open-platform/webhooks-helpers.ts';
import { type DriveUser, department, driveUser, file, folder, space } from './drive-fixtures.ts';
import { grant } from './permissions-helpers.ts';

/**
 * Temporary-grant expiry reminders (system task drive.grantExpiryReminders, setting
 * shareExpiryReminderHours): a grant expiring within the window is announced once
 * (drive.grant.expiring) to the users of its subject; the task is called with a `now`.
 */
let t: TestApp;
let a: TenantFixture;
let owner: DriveUser;
let sp: SpaceRow;
let docs: NodeRow;
const HOUR = 3_600_000;
const inHours = (h: number, from = new Date()) => new Date(from.getTime() + h * HOUR);

const run = (now = new Date()) => t.app.drive.reminders.remindExpiringGrants(now);

/** The drive.grant.expiring notifications of a tenant, oldest first. */
async function reminders(tenantId: number) {
  const rows = await t.database.db
    .select()
    .from(notificationOutbox)
    .where(and(eq(notificationOutbox.tenantId, tenantId), eq(notificationOutbox.eventKey, 'drive.grant.expiring')))
    .orderBy(notificationOutbox.id);
  return rows.map((r) => ({
    userIds: r.input.recipients.map((x) => (x.type === 'user' ? x.id : -1)).sort((x, y) => x - y),
    variables: r.input.variables,
    link: r.input.link,
  }));
}
const remindersTo = async (tenantId: number, userId: number) =>
  (await reminders(tenantId)).filter((r) => r.userIds.includes(userId));
const remindedAt = async (grantId: number) => (await rowById(t, driveNodePermissions, grantId))?.remindedAt;

async function setHours(tenant: TenantFixture, hours: number) {
  const res = await call(t.app, 'PUT', '/api/settings/drive', {
    token: tenant.adminToken,
    body: { shareExpiryReminderHours: hours },
  });
  expect(res.statusCode, res.body).toBe(200);
}

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  owner = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: owner.userId, name: 'Projects space' });
  docs = await folder(t, a.tenantId, sp.id, null, 'Docs');
});
afterAll(async () => t?.close());

const user = () => driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });

describe('system task drive.grantExpiryReminders', () => {
  it('is scheduled every 15 minutes and answers { reminded }', async () => {
    const task = t.app.ctx.jobs.systemTask('drive.grantExpiryReminders');
    expect(task?.schedule).toBe('*/15 * * * *');
    const r = await task?.handler({}, { trigger: 'manual', cronJobId: 0, runId: 0, log: t.app.ctx.log });
    expect(r).toEqual({ reminded: 0 });
  });

  it('reminds a grant expiring within the window once, in-app, and not again on the next run', async () => {
    const bob = await user();
    const now = new Date();
    const expiresAt = inHours(2, now);
    const g = await grant(t, a.tenantId, docs, { type: 'user', id: bob.userId }, 'viewer', expiresAt);

    expect(await run(now)).toEqual({ reminded: 1 });
    expect(await remindersTo(a.tenantId, bob.userId)).toEqual([
      {
        userIds: [bob.userId],
        variables: { nodeName: 'Docs', spaceName: 'Projects space', expiresAt: expiresAt.toISOString() },
        link: `/drive?space=${sp.id}&node=${docs.id}`,
      },
    ]);
    expect(await remindedAt(g.id)).toEqual(now);
    const inbox = await waitFor(async () => {
      const m = await messagesOf(t, bob.userId);
      return m.length ? m : undefined;
    }, 'the in-app message');
    expect(inbox.map((m) => m.title)).toEqual(['Your access to Docs expires soon']);

    // 15 minutes later: already reminded
    expect(await run(new Date(now.getTime() + HOUR / 4))).toEqual({ reminded: 0 });
    expect(await remindersTo(a.tenantId, bob.userId)).toHaveLength(1);
  });

  it('waits until a grant enters the window; permanent and expired grants are never reminded', async () => {
    const later = await user();
    const forever = await user();
    const gone = await user();
    const now = new Date();
    const g = await grant(t, a.tenantId, docs, { type: 'user', id: later.userId }, 'viewer', inHours(48, now));
    await grant(t, a.tenantId, docs, { type: 'user', id: forever.userId }, 'viewer', null);
    await grant(t, a.tenantId, docs, { type: 'user', id: gone.userId }, 'viewer', inHours(-1, now));

    expect(await run(now)).toEqual({ reminded: 0 });
    expect(await remindedAt(g.id)).toBeNull();
    expect(await remindersTo(a.tenantId, later.userId)).toEqual([]);

    // a day and a bit later it is 23 h away
    expect(await run(inHours(25, now))).toEqual({ reminded: 1 });
    expect(await remindersTo(a.tenantId, later.userId)).toHaveLength(1);
    expect(await remindersTo(a.tenantId, forever.userId)).toEqual([]);
    expect(await remindersTo(a.tenantId, gone.userId)).toEqual([]);
  });

  it('reminds every active member of a granted department, sub-departments included', async () => {
    const sales = await department(t, a.tenantId, { name: 'Sales' });
    const east = await department(t, a.tenantId, { name: 'Sales East', parent: sales });
    const s1 = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code, departmentId: sales.id });
    const e1 = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code, departmentId: east.id });
    const f = await folder(t, a.tenantId, sp.id, null, 'Sales docs');
    const now = new Date();
    await grant(t, a.tenantId, f, { type: 'department', id: sales.id }, 'editor', inHours(5, now));

    expect(await run(now)).toEqual({ reminded: 1 });
    const sent = (await reminders(a.tenantId)).filter((r) => r.link === `/drive?space=${sp.id}&node=${f.id}`);
    expect(sent.map((s) => s.userIds)).toEqual([[s1.userId, e1.userId].sort((x, y) => x - y)]);
    expect(sent[0]?.variables).toMatchObject({ nodeName: 'Sales docs' });
  });

  it('skips (and does not claim) grants on nodes in the recycle bin', async () => {
    const carol = await user();
    const binned = await file(t, a.tenantId, sp.id, null, 'binned.txt');
    const now = new Date();
    const g = await grant(t, a.tenantId, binned, { type: 'user', id: carol.userId }, 'viewer', inHours(3, now));
    await t.database.db
      .update(driveNodes)
      .set({ deletedAt: now, trashRootId: binned.id })
      .where(eq(driveNodes.id, binned.id));

    expect(await run(now)).toEqual({ reminded: 0 });
    expect(await remindedAt(g.id)).toBeNull();
    expect(await remindersTo(a.tenantId, carol.userId)).toEqual([]);
  });

  it('two runs at once remind each grant once', async () => {
    const people = await Promise.all([user(), user(), user(), user()]);
    const now = new Date();
    const grants = [];
    for (const p of people)
      grants.push(await grant(t, a.tenantId, docs, { type: 'user', id: p.userId }, 'viewer', inHours(1, now)));

    const [r1, r2] = await Promise.all([run(now), run(now)]);
    expect((r1?.reminded ?? 0) + (r2?.reminded ?? 0)).toBe(4);
    for (const p of people) expect(await remindersTo(a.tenantId, p.userId)).toHaveLength(1);
    for (const g of grants) expect(await remindedAt(g.id)).toEqual(now);
  });

  it('skips a grant another instance is claiming (no wait, no second reminder)', async () => {
    const [p1, p2] = [await user(), await user()];
    const now = new Date();
    const g1 = await grant(t, a.tenantId, docs, { type: 'user', id: p1.userId }, 'viewer', inHours(1, now));
    await grant(t, a.tenantId, docs, { type: 'user', id: p2.userId }, 'viewer', inHours(1, now));
    // the other instance has claimed g1 and not committed yet
    await t.database.db.transaction(async (tx) => {
      await tx.update(driveNodePermissions).set({ remindedAt: now }).where(eq(driveNodePermissions.id, g1.id));
      expect(await run(now)).toEqual({ reminded: 1 });
    });
    expect(await remindersTo(a.tenantId, p1.userId)).toEqual([]);
    expect(await remindersTo(a.tenantId, p2.userId)).toHaveLength(1);
    // once it committed, g1 counts as reminded
    expect(await run(now)).toEqual({ reminded: 0 });
  });
});

describe('the tenant setting shareExpiryReminderHours', () => {
  it('0 turns the reminders off; a larger tenant value reminds earlier; other tenants keep theirs', async () => {
    const off = await createTenant(t);
    const early = await createTenant(t);
    await setHours(off, 0);
    await setHours(early, 72);
    const world = async (tenant: TenantFixture) => {
      const o = await driveUser(t, { tenantId: tenant.tenantId, tenantCode: tenant.code });
      const grantee = await driveUser(t, { tenantId: tenant.tenantId, tenantCode: tenant.code });
      const s = await space(t, tenant.tenantId, { ownerUserId: o.userId });
      const n = await folder(t, tenant.tenantId, s.id, null, 'Shared');
      return { grantee, n };
    };
    const wOff = await world(off);
    const wEarly = await world(early);
    const dflt = await user();
    const now = new Date();
    const gOff = await grant(
      t,
      off.tenantId,
      wOff.n,
      { type: 'user', id: wOff.grantee.userId },
      'viewer',
      inHours(2, now),
    );
    await grant(t, early.tenantId, wEarly.n, { type: 'user', id: wEarly.grantee.userId }, 'viewer', inHours(48, now));
    await grant(t, a.tenantId, docs, { type: 'user', id: dflt.userId }, 'viewer', inHours(48, now));

    expect(await run(now)).toEqual({ reminded: 1 });
    expect(await reminders(off.tenantId)).toEqual([]);
    expect(await remindedAt(gOff.id)).toBeNull();
    expect((await reminders(early.tenantId)).map((r) => r.userIds)).toEqual([[wEarly.grantee.userId]]);
    // tenant a keeps the platform default (24 h): its 48 h grant waits
    expect(await remindersTo(a.tenantId, dflt.userId)).toEqual([]);
  });
});

describe('PUT /api/drive/nodes/{id}/permissions/{grantId}', () => {
  it('a new expiry re-arms the reminder; a role change alone does not', async () => {
    const dave = await user();
    const now = new Date();
    const g = await grant(t, a.tenantId, docs, { type: 'user', id: dave.userId }, 'viewer', inHours(2, now));
    expect(await run(now)).toEqual({ reminded: 1 });
    const put = (body: object) =>
      call(t.app, 'PUT', `/api/drive/nodes/${docs.id}/permissions/${g.id}`, { token: owner.token, body });

    const role = await put({ role: 'editor' });
    expect(role.statusCode, role.body).toBe(200);
    expect(await remindedAt(g.id)).toEqual(now);
    expect(await run(now)).toEqual({ reminded: 0 });

    const expiresAt = inHours(10, now);
    const res = await put({ expiresAt: expiresAt.toISOString() });
    expect(res.statusCode, res.body).toBe(200);
    expect(await remindedAt(g.id)).toBeNull();
    expect(await run(now)).toEqual({ reminded: 1 });
    const sent = await remindersTo(a.tenantId, dave.userId);
    expect(sent.map((s) => s.variables.expiresAt)).toEqual([inHours(2, now).toISOString(), expiresAt.toISOString()]);
  });
});
