import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { connect, listenForSockets, type PushMessage } from '../helpers/ws-client.ts';

/**
 * Live push over a real socket: the app listens on a free port and `ws` clients connect to
 * /api/ws like a browser would. No timing: every wait is for a message that must come.
 */
let t: TestApp;
let other: TenantFixture;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
  base = await listenForSockets(t);
});
afterAll(async () => t?.close());

const connectAs = (token: string, lastEventId?: number) => connect(base, token, lastEventId);

async function publishNotice(token: string, title: string): Promise<{ id: number; publishedAt: string }> {
  const created = await call(t.app, 'POST', '/api/notices', { token, body: { title, content: `<p>${title}</p>` } });
  expect(created.statusCode, created.body).toBe(201);
  const published = await call(t.app, 'POST', `/api/notices/${created.json().data.id}/publish`, { token });
  expect(published.statusCode, published.body).toBe(200);
  return { id: published.json().data.id, publishedAt: published.json().data.publishedAt };
}

const noticeEvent = (id: number) => (m: PushMessage) => m.topic === 'notice.published' && m.data.id === id;

describe('notice.published live push', () => {
  it('reaches every signed-in user of the tenant, and no one of another tenant', async () => {
    const reader = await createUserWithPermissions(t, []);
    const admin = await connectAs(t.demoAdminToken);
    const user = await connectAs(reader.token);
    const stranger = await connectAs(other.adminToken);

    const notice = await publishNotice(t.demoAdminToken, 'Live one');
    for (const c of [admin, user]) {
      const m = await c.waitFor(noticeEvent(notice.id));
      expect(m).toMatchObject({ id: expect.any(Number), topic: 'notice.published' });
      expect(m.data).toEqual({ id: notice.id, title: 'Live one', type: 'notice', publishedAt: notice.publishedAt });
    }

    // Events reach a socket in publish order: once the stranger has its own tenant's later
    // notice, the demo notice would already have arrived had it been sent there.
    const own = await publishNotice(other.adminToken, 'Other tenant');
    await stranger.waitFor(noticeEvent(own.id));
    expect(stranger.messages.some(noticeEvent(notice.id))).toBe(false);
    expect(admin.messages.some(noticeEvent(own.id))).toBe(false);

    await Promise.all([admin.close(), user.close(), stranger.close()]);
  });

  it('replays what a client missed while disconnected when it reconnects with lastEventId', async () => {
    const first = await connectAs(t.demoAdminToken);
    const seen = await publishNotice(t.demoAdminToken, 'Seen live');
    const lastSeen = await first.waitFor(noticeEvent(seen.id));
    await first.close();

    const missed = await publishNotice(t.demoAdminToken, 'Published while away');

    const again = await connectAs(t.demoAdminToken, lastSeen.id);
    const replayed = await again.waitFor(noticeEvent(missed.id));
    expect(replayed.data).toMatchObject({ title: 'Published while away', publishedAt: missed.publishedAt });
    expect(replayed.id).toBeGreaterThan(lastSeen.id as number);
    // The replay comes before `ready`, and what was already seen is not sent again.
    const topics = again.messages.map((m) => (m.topic === 'ready' ? 'ready' : m.data.id));
    expect(topics.indexOf(missed.id)).toBeLessThan(topics.indexOf('ready'));
    expect(again.messages.some(noticeEvent(seen.id))).toBe(false);
    await again.close();
  });

  it('refuses a socket without a valid token', async () => {
    const ws = new WebSocket(`${base}/api/ws?access_token=not-a-token`);
    const code = await new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
    expect(code).toBe(4401);
  });
});
