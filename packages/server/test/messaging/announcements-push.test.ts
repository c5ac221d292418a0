import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcements } from '../../src/modules/messaging/announcements/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { rowById } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { connect, listenForSockets, type PushMessage } from '../helpers/ws-client.ts';
import { buildOrg, draft, inboxIds, type Org, published } from './announcements-helpers.ts';

/**
 * `announcement.published` over real sockets: the app listens on a free port and `ws` clients
 * connect to /api/ws like a browser. A targeted announcement reaches only its audience. Every wait
 * is for a message that must come; absence is proven by order (a socket gets events in publish
 * order, so once a later event arrived, an earlier one meant for it would have too).
 */
let t: TestApp;
let org: Org;
let other: TenantFixture;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  org = await buildOrg(t, t.demoAdminToken, 'demo');
  other = await createTenant(t);
  base = await listenForSockets(t);
});
afterAll(async () => t?.close());

const connectAs = (token: string) => connect(base, token);

const eventOf = (id: number) => (m: PushMessage) => m.topic === 'announcement.published' && m.data.id === id;

describe('announcement.published live push', () => {
  it('reaches the audience of a targeted announcement only, and everyone of the tenant for all', async () => {
    const [alice, bob, carol, admin, stranger] = await Promise.all(
      [org.alice, org.bob, org.carol]
        .map((u) => connectAs(u.token))
        .concat([connectAs(t.demoAdminToken), connectAs(other.adminToken)]),
    );

    const forEditors = await published(t, t.demoAdminToken, {
      title: 'Editors meeting',
      priority: 'high',
      targetType: 'targeted',
      targets: [{ type: 'role', id: org.editors }],
    });
    const forBackend = await published(t, t.demoAdminToken, {
      title: 'Backend only',
      targetType: 'targeted',
      targets: [{ type: 'dept', id: org.depts.backend }],
    });
    const forAll = await published(t, t.demoAdminToken, { title: 'Everyone', priority: 'urgent' });
    const theirs = await published(t, other.adminToken, { title: 'Other tenant' });

    const m = await bob.waitFor(eventOf(forEditors));
    expect(m).toMatchObject({ id: expect.any(Number), topic: 'announcement.published' });
    expect(m.data).toEqual({ id: forEditors, title: 'Editors meeting', priority: 'high' });
    await alice.waitFor(eventOf(forBackend));
    for (const c of [alice, bob, carol, admin]) {
      expect((await c.waitFor(eventOf(forAll))).data).toEqual({ id: forAll, title: 'Everyone', priority: 'urgent' });
    }
    await stranger.waitFor(eventOf(theirs));

    expect(alice.messages.some(eventOf(forEditors))).toBe(false);
    expect(bob.messages.some(eventOf(forBackend))).toBe(false);
    for (const c of [carol, admin]) {
      expect(c.messages.some(eventOf(forEditors)) || c.messages.some(eventOf(forBackend))).toBe(false);
    }
    expect(stranger.messages.some(eventOf(forAll))).toBe(false);
    for (const c of [alice, bob, carol, admin]) expect(c.messages.some(eventOf(theirs))).toBe(false);

    // A repeated publish changes nothing and pushes nothing: the next event comes first.
    await call(t.app, 'POST', `/api/announcements/${forAll}/publish`, { token: t.demoAdminToken });
    const next = await published(t, t.demoAdminToken, { title: 'Next' });
    await carol.waitFor(eventOf(next));
    expect(carol.messages.filter(eventOf(forAll))).toHaveLength(1);

    await Promise.all([alice, bob, carol, admin, stranger].map((c) => c.close()));
  });

  it('publishes even when the live push fails', async () => {
    // A real failure: the event store refuses this topic for a moment.
    await t.database.db.execute(
      sql`ALTER TABLE realtime_events ADD CONSTRAINT refuse_announcements CHECK (topic <> 'announcement.published') NOT VALID`,
    );
    try {
      const id = await draft(t, t.demoAdminToken, { title: 'Quiet' });
      const res = await call(t.app, 'POST', `/api/announcements/${id}/publish`, { token: t.demoAdminToken });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.publishStatus).toBe('published');
      expect((await rowById(t, announcements, id))?.publishStatus).toBe('published');
      expect(await inboxIds(t, org.carol.token)).toContain(id);
    } finally {
      await t.database.db.execute(sql`ALTER TABLE realtime_events DROP CONSTRAINT refuse_announcements`);
    }
  });
});
