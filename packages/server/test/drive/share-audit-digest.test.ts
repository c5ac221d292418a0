import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import { createTwoInstances, type TestApp, usingRedis } from '../helpers/app.ts';
import { catalog } from '../helpers/catalog.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { shareLink } from './public-fixtures.ts';
import { accessRecord, DAY } from './share-audit-helpers.ts';

/**
 * The link owners' digest (system task drive.linkDigest): each creator whose links were used on
 * the previous UTC day gets one drive.link.digest notification summarising each link; two
 * instances running it at once send it once.
 */
let pair: Awaited<ReturnType<typeof createTwoInstances>>;
let t: TestApp;
let a: TenantFixture;
let alice: DriveUser;
let bob: DriveUser;
let quiet: DriveUser;
const now = new Date();
const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
const yesterday = new Date(today.getTime() - DAY);
const day = yesterday.toISOString().slice(0, 10);
const at = (hours: number) => new Date(yesterday.getTime() + hours * 3_600_000);

async function digests(tenantId: number) {
  const rows = await t.database.db
    .select()
    .from(notificationOutbox)
    .where(and(eq(notificationOutbox.tenantId, tenantId), eq(notificationOutbox.eventKey, 'drive.link.digest')))
    .orderBy(notificationOutbox.id);
  return rows.map((r) => ({
    userIds: r.input.recipients.map((x) => (x.type === 'user' ? x.id : -1)),
    variables: r.input.variables,
  }));
}

beforeAll(async () => {
  pair = await createTwoInstances();
  t = pair.a;
  a = await createTenant(t);
  const user = () => driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  alice = await user();
  bob = await user();
  quiet = await user();
  const sp = await space(t, a.tenantId, { type: 'team', ownerUserId: alice.userId });
  const offers = await folder(t, a.tenantId, sp.id, null, 'Offers');
  const doc = await file(t, a.tenantId, sp.id, offers, 'offer.pdf');
  const l1 = await shareLink(t, doc, alice.userId);
  const l2 = await shareLink(t, offers, alice.userId, { title: 'Drop box', kind: 'collect' });
  const l3 = await shareLink(t, doc, bob.userId);
  const l4 = await shareLink(t, doc, quiet.userId);
  await accessRecord(t, l1, 'access', { at: at(1), ip: '198.51.100.1' });
  await accessRecord(t, l1, 'access', { at: at(2), ip: '198.51.100.1' });
  await accessRecord(t, l1, 'access', { at: at(3), ip: '198.51.100.2' });
  await accessRecord(t, l1, 'download', { at: at(4), ip: '198.51.100.2' });
  await accessRecord(t, l1, 'wrong_password', { at: at(5), ip: '203.0.113.9' });
  await accessRecord(t, l2, 'upload', { at: at(6), ip: '192.0.2.1' });
  await accessRecord(t, l3, 'access', { at: at(23.9), ip: '192.0.2.2' });
  // outside the period: today and the day before yesterday
  await accessRecord(t, l3, 'access', { at: new Date(today.getTime() + 60_000), ip: '192.0.2.3' });
  await accessRecord(t, l4, 'access', { at: at(-1), ip: '192.0.2.4' });
});
afterAll(async () => pair?.close());

describe('system task drive.linkDigest', () => {
  it('is scheduled daily; drive.link.digest is in-app by default, email available', () => {
    expect(t.app.ctx.jobs.systemTask('drive.linkDigest')?.schedule).toBe('13 1 * * *');
    const def = catalog.get('drive.link.digest');
    expect(def?.defaultChannels).toEqual(['inapp']);
    expect(def?.availableChannels).toEqual(['inapp', 'email']);
  });

  // the test's name says which it was, so a run without Redis does not pass as a two-instance test
  it(`sends each creator one summary of the previous UTC day, once ${
    usingRedis ? 'across two instances' : 'on one instance run twice (no TEST_REDIS_URL)'
  }`, async () => {
    const [r1, r2] = await Promise.all([
      pair.a.app.drive.linkDigest.sendDigests(now),
      // the claim lives in the shared cache: without Redis the second run is on the same instance
      (usingRedis ? pair.b : pair.a).app.drive.linkDigest.sendDigests(now),
    ]);
    expect(r1.period).toBe(day);
    expect(r1.sent + r2.sent).toBe(2);
    const sent = await digests(a.tenantId);
    expect(sent).toHaveLength(2);
    expect(sent.map((s) => s.userIds.length)).toEqual([1, 1]);
    const toAlice = sent.find((s) => s.userIds[0] === alice.userId);
    expect(toAlice?.variables).toEqual({
      day,
      links: 2,
      opens: 3,
      summary:
        '"offer.pdf": 3 opens from 3 addresses, 1 download, 1 wrong password, 0 uploads\n' +
        '"Drop box": 0 opens from 1 address, 0 downloads, 0 wrong passwords, 1 upload',
    });
    const toBob = sent.find((s) => s.userIds[0] === bob.userId);
    expect(toBob?.variables).toMatchObject({ links: 1, opens: 1 });
    expect(sent.some((s) => s.userIds.includes(quiet.userId))).toBe(false);

    // a later run for the same day sends nothing more
    expect((await t.app.drive.linkDigest.sendDigests(now)).sent).toBe(0);
    expect(await digests(a.tenantId)).toHaveLength(2);
  });
});
