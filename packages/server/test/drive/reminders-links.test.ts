import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveShareLinks } from '../../src/modules/drive/tables.ts';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { rowById } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, space } from './drive-fixtures.ts';
import { shareLink } from './public-fixtures.ts';
import { createLink, setDriveSettings } from './shares-helpers.ts';

/**
 * Share-link expiry reminders (system task drive.linkExpiryReminders, setting
 * shareExpiryReminderHours): an active link expiring within the window is announced once
 * (drive.link.expiring) to its creator; a new expiry arms the reminder again; 0 turns it off.
 */
let t: TestApp;
let a: TenantFixture;
let owner: DriveUser;
let sp: SpaceRow;
let doc: NodeRow;
const HOUR = 3_600_000;
const inHours = (h: number, from = new Date()) => new Date(from.getTime() + h * HOUR);

const run = (now = new Date()) => t.app.drive.reminders.remindExpiringLinks(now);
const remindedAt = async (id: number) => (await rowById(t, driveShareLinks, id))?.remindedAt ?? null;

/** The drive.link.expiring notifications of a tenant, oldest first. */
async function reminders(tenantId: number) {
  const rows = await t.database.db
    .select()
    .from(notificationOutbox)
    .where(and(eq(notificationOutbox.tenantId, tenantId), eq(notificationOutbox.eventKey, 'drive.link.expiring')))
    .orderBy(notificationOutbox.id);
  return rows.map((r) => ({ recipients: r.input.recipients, variables: r.input.variables, link: r.input.link }));
}
const remindersOf = async (tenantId: number, linkId: number) =>
  (await reminders(tenantId)).filter((r) => r.link === `/drive/share-links?id=${linkId}`);

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  owner = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: owner.userId, name: 'Sales' });
  doc = await file(t, a.tenantId, sp.id, null, 'offer.pdf');
});
afterAll(async () => t?.close());

describe('system task drive.linkExpiryReminders', () => {
  it('is scheduled every 15 minutes and answers { reminded }', async () => {
    const task = t.app.ctx.jobs.systemTask('drive.linkExpiryReminders');
    expect(task?.schedule).toBe('*/15 * * * *');
    const r = await task?.handler({}, { trigger: 'manual', cronJobId: 0, runId: 0, log: t.app.ctx.log });
    expect(r).toEqual({ reminded: 0 });
  });

  it('reminds the creator of a link expiring within the window once, even with two runs at once', async () => {
    const now = new Date();
    const due = await shareLink(t, doc, owner.userId, { expiresAt: inHours(3, now) });
    const later = await shareLink(t, doc, owner.userId, { expiresAt: inHours(30, now) });
    const revoked = await shareLink(t, doc, owner.userId, { expiresAt: inHours(2, now), status: 'revoked' });
    const expired = await shareLink(t, doc, owner.userId, { expiresAt: inHours(-1, now) });
    const forever = await shareLink(t, doc, owner.userId);

    const [r1, r2] = await Promise.all([run(now), run(now)]);
    expect(r1.reminded + r2.reminded).toBe(1);
    const sent = await remindersOf(a.tenantId, due.id);
    expect(sent).toEqual([
      {
        recipients: [{ type: 'user', id: owner.userId }],
        variables: { nodeName: 'offer.pdf', spaceName: 'Sales', expiresAt: inHours(3, now).toISOString() },
        link: `/drive/share-links?id=${due.id}`,
      },
    ]);
    expect(await remindedAt(due.id)).not.toBeNull();
    for (const l of [later, revoked, expired, forever]) {
      expect(await remindersOf(a.tenantId, l.id)).toEqual([]);
      expect(await remindedAt(l.id)).toBeNull();
    }
    expect(await run(now)).toEqual({ reminded: 0 });
    expect(await remindersOf(a.tenantId, due.id)).toHaveLength(1);
  });

  it('re-arms when the expiry is changed through PUT /share-links/{id}, then reminds again', async () => {
    const now = new Date();
    const res = await createLink(t, owner.token, { nodeId: doc.id, expiresAt: inHours(2, now).toISOString() });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data.id as number;
    expect(await run(now)).toEqual({ reminded: 1 });

    const title = await call(t.app, 'PUT', `/api/drive/share-links/${id}`, {
      token: owner.token,
      body: { title: 'x' },
    });
    expect(title.statusCode, title.body).toBe(200);
    expect(await remindedAt(id)).not.toBeNull();

    const put = await call(t.app, 'PUT', `/api/drive/share-links/${id}`, {
      token: owner.token,
      body: { expiresAt: inHours(5, now).toISOString() },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(await remindedAt(id)).toBeNull();
    expect(await run(now)).toEqual({ reminded: 1 });
    const sent = await remindersOf(a.tenantId, id);
    expect(sent.map((s) => s.variables.expiresAt)).toEqual([
      inHours(2, now).toISOString(),
      inHours(5, now).toISOString(),
    ]);
  });

  it('sends nothing while shareExpiryReminderHours is 0, and the link stays armed', async () => {
    const b = await createTenant(t);
    const bOwner = await driveUser(t, { tenantId: b.tenantId, tenantCode: b.code });
    const bsp = await space(t, b.tenantId, { type: 'team', ownerUserId: bOwner.userId });
    const bdoc = await file(t, b.tenantId, bsp.id, null, 'b.txt');
    await setDriveSettings(t, b.adminToken, { shareExpiryReminderHours: 0 });
    const l = await shareLink(t, bdoc, bOwner.userId, { expiresAt: inHours(1) });
    expect(await run()).toEqual({ reminded: 0 });
    expect(await reminders(b.tenantId)).toEqual([]);
    expect(await remindedAt(l.id)).toBeNull();
    await setDriveSettings(t, b.adminToken, { shareExpiryReminderHours: 24 });
    expect(await run()).toEqual({ reminded: 1 });
  });
});
