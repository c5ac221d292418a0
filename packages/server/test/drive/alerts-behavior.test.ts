import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import { call, createTwoInstances, type TestApp, usingRedis } from '../helpers/app.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, space } from './drive-fixtures.ts';
import { member } from './nodes-fixtures.ts';
import { shareLink } from './public-fixtures.ts';
import { setDriveSettings } from './shares-helpers.ts';

/**
 * Abnormal-behaviour alerts (settings alertWindowMinutes, alertBulkDownloadCount,
 * alertShareFailureCount; platform values, 0 = off): downloads by one user in a space, downloads
 * through one link and wrong passwords on one link are counted in the shared cache; the
 * increment that reaches the threshold raises drive.behavior.abnormal to the space managers —
 * once per window, however the requests are spread over two instances.
 */
let pair: Awaited<ReturnType<typeof createTwoInstances>>;
let t: TestApp;
let a: TenantFixture;
const u: Record<'owner' | 'manager' | 'editor' | 'viewer', DriveUser> = {} as never;
let sp: SpaceRow;
let doc: NodeRow;
// a week: the longest window, so a test never straddles two windows
const WINDOW = 10080;

// the counters live in the shared cache: without Redis each instance counts alone, so the
// requests then all go to one instance (the once-per-window rule is still what is tested)
const instances = () => (usingRedis ? [pair.a, pair.b] : [pair.a, pair.a]);
// the test's name says which it was, so a run without Redis does not pass as a two-instance test
const ACROSS = usingRedis ? 'across two instances' : 'on one instance (no TEST_REDIS_URL)';
async function alerts(tenantId: number) {
  const rows = await t.database.db
    .select()
    .from(notificationOutbox)
    .where(and(eq(notificationOutbox.tenantId, tenantId), eq(notificationOutbox.eventKey, 'drive.behavior.abnormal')))
    .orderBy(notificationOutbox.id);
  return rows.map((r) => ({
    userIds: r.input.recipients.map((x) => (x.type === 'user' ? x.id : -1)).sort((x, y) => x - y),
    variables: r.input.variables as { actorName: string; behavior: string; count: number; minutes: number },
  }));
}
async function setAlerts(body: object) {
  // on both instances, so neither reads its cached settings
  for (const x of instances()) await setDriveSettings(x, x.adminToken, body);
}
const download = (x: TestApp, token: string, nodeId: number) =>
  call(x.app, 'GET', `/api/drive/nodes/${nodeId}/content?download=true`, { token });
const publicGet = (x: TestApp, url: string, remoteAddress = '203.0.113.10') =>
  x.app.inject({ method: 'GET', url, remoteAddress });
const wrongPassword = (x: TestApp, token: string, remoteAddress: string) =>
  x.app.inject({
    method: 'POST',
    url: `/api/drive/public/shares/${token}/password`,
    payload: { password: 'not-the-password' },
    remoteAddress,
  });

beforeAll(async () => {
  pair = await createTwoInstances();
  t = pair.a;
  a = await createTenant(t);
  const user = () => driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  u.owner = await user();
  u.manager = await user();
  u.editor = await user();
  u.viewer = await user();
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId, name: 'Sales' });
  await member(t, a.tenantId, sp.id, { type: 'user', id: u.manager.userId }, 'manager');
  await member(t, a.tenantId, sp.id, { type: 'user', id: u.editor.userId }, 'editor');
  await member(t, a.tenantId, sp.id, { type: 'user', id: u.viewer.userId }, 'viewer');
  doc = await file(t, a.tenantId, sp.id, null, 'offer.pdf', 'offer content');
});
afterAll(async () => pair?.close());

const managers = () => [u.owner.userId, u.manager.userId].sort((x, y) => x - y);

describe('abnormal-behaviour alerts', () => {
  it('are off while the settings are 0 (the default)', async () => {
    for (let i = 0; i < 4; i++) expect((await download(t, u.editor.token, doc.id)).statusCode).toBe(200);
    const l = await shareLink(t, doc, u.owner.userId, { password: 'Secret#123' });
    for (let i = 0; i < 4; i++) expect((await wrongPassword(t, l.token, `198.51.100.${i}`)).statusCode).toBe(401);
    expect(await alerts(a.tenantId)).toEqual([]);
  });

  it(`raise one alert to the space managers when a user’s downloads reach the threshold, ${ACROSS}`, async () => {
    await setAlerts({ alertWindowMinutes: WINDOW, alertBulkDownloadCount: 3, alertShareFailureCount: 0 });
    // previews do not count
    const preview = await call(instances()[1].app, 'GET', `/api/drive/nodes/${doc.id}/content`, {
      token: u.viewer.token,
    });
    expect(preview.statusCode, preview.body).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => download(instances()[i % 2] as TestApp, u.viewer.token, doc.id)),
    );
    // a viewer may not download: refused downloads are not downloads
    expect(results.every((r) => r.statusCode === 403)).toBe(true);
    expect(await alerts(a.tenantId)).toEqual([]);

    const ok = await Promise.all(
      Array.from({ length: 8 }, (_, i) => download(instances()[i % 2] as TestApp, u.editor.token, doc.id)),
    );
    expect(ok.every((r) => r.statusCode === 200)).toBe(true);
    const sent = await alerts(a.tenantId);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.userIds).toEqual(managers());
    expect(sent[0]?.variables).toMatchObject({ count: 3, minutes: WINDOW });
    expect(sent[0]?.variables.behavior).toContain('"Sales"');
  });

  it('count downloads through one share link and wrong passwords on one link separately, once each', async () => {
    await setAlerts({ alertWindowMinutes: WINDOW, alertBulkDownloadCount: 4, alertShareFailureCount: 2 });
    const before = (await alerts(a.tenantId)).length;
    const l = await shareLink(t, doc, u.editor.userId, { title: 'Offer for ACME' });
    const got = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        publicGet(instances()[i % 2] as TestApp, `/api/drive/public/shares/${l.token}/content?nodeId=${doc.id}`),
      ),
    );
    expect(got.every((r) => r.statusCode === 200)).toBe(true);
    const locked = await shareLink(t, doc, u.editor.userId, { password: 'Secret#123' });
    const wrong = await Promise.all(
      Array.from({ length: 5 }, (_, i) => wrongPassword(instances()[i % 2] as TestApp, locked.token, `192.0.2.${i}`)),
    );
    expect(wrong.every((r) => r.statusCode === 401)).toBe(true);

    const sent = (await alerts(a.tenantId)).slice(before);
    expect(sent).toHaveLength(2);
    const byLink = sent.find((s) => s.variables.actorName.includes('Offer for ACME'));
    expect(byLink).toMatchObject({
      userIds: managers(),
      variables: { count: 4, behavior: 'was used for many downloads' },
    });
    const failures = sent.find((s) => s.variables.actorName.includes(`(#${locked.id})`));
    expect(failures).toMatchObject({
      userIds: managers(),
      variables: { count: 2, behavior: 'received many wrong passwords' },
    });
    // neither the downloader nor the link's creator (an editor) is told
    for (const s of sent) expect(s.userIds).not.toContain(u.editor.userId);
  });
});
