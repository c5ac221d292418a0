import { count, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/modules/messaging/channels/types.ts';
import { createInAppAdapter } from '../../src/modules/messaging/inapp/adapter.ts';
import { inAppMessages } from '../../src/modules/messaging/inapp/tables.ts';
import type { Db } from '../../src/platform/db/client.ts';
import { realtimeEvents } from '../../src/platform/realtime/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { connect, listenForSockets } from '../helpers/ws-client.ts';
import { inAppPush, messageById, messagesOf, userDelivery } from './inapp-helpers.ts';

/**
 * The inapp channel adapter, called the way the dispatcher calls it (a batch of deliveries of one
 * event and tenant), on a real database, with live pushes read by real WebSocket clients.
 */
let t: TestApp;
let other: TenantFixture;
let base: string;
let nextDispatch = 1;
const dispatchIds = (n: number) => Array.from({ length: n }, () => nextDispatch++);

const adapter = () => {
  const a = t.app.messaging.channels.get('inapp');
  if (!a) throw new Error('no inapp adapter registered');
  return a;
};

/** The adapter over a Db that counts the statements it starts (a window on "no per-row queries"). */
function countingAdapter() {
  const counts = { select: 0, insert: 0, update: 0, delete: 0, execute: 0 };
  const db = new Proxy(t.app.ctx.db, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in counts) counts[prop as keyof typeof counts]++;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Db;
  return { adapter: createInAppAdapter({ ...t.app.ctx, db }), counts };
}

async function rowsFor(dispatches: number[]) {
  return t.database.db
    .select()
    .from(inAppMessages)
    .where(
      inArray(
        inAppMessages.dedupeKey,
        dispatches.map((id) => `dispatch:${id}`),
      ),
    );
}

async function realtimeCount(): Promise<number> {
  const [r] = await t.database.db
    .select({ n: count() })
    .from(realtimeEvents)
    .where(eq(realtimeEvents.topic, 'inapp.message'));
  return Number(r?.n);
}

async function userIdOf(token: string): Promise<number> {
  return (await call(t.app, 'GET', '/api/auth/me', { token })).json().data.user.id;
}

beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
  base = await listenForSockets(t);
});
afterAll(async () => t?.close());

describe('inapp channel adapter', () => {
  it('is registered, always available (the switch is the dispatcher’s) and takes batches of 500', async () => {
    expect(adapter().channel).toBe('inapp');
    expect(await adapter().available(t.demoTenantId)).toBe(true);
    expect(adapter().batchSize).toBe(500);
  });

  it('writes one message per user with the event’s built-in text; others are unreachable', async () => {
    const [d1, d2, d3, d4] = dispatchIds(4) as [number, number, number, number];
    const user = await createUserWithPermissions(t, []);
    const asUser = userDelivery(d3, t.demoTenantId, 42);
    const member: Delivery = { ...asUser, contact: { ...asUser.contact, type: 'member', key: 'm:42' } };
    const external: Delivery = {
      ...userDelivery(d4, t.demoTenantId, 42),
      contact: { ...asUser.contact, type: 'external', id: null, key: 'e:inapp:ops', address: 'ops' },
    };
    const outcomes = await adapter().deliver([
      userDelivery(d1, t.demoTenantId, user.userId),
      member,
      userDelivery(d2, t.demoTenantId, user.userId, { variables: { docTitle: 'Policy', actorName: 'Bo' } }),
      external,
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['sent', 'unreachable', 'sent', 'unreachable']);

    const rows = await messagesOf(t, user.userId);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      tenantId: t.demoTenantId,
      title: 'Handbook was published',
      content: 'Ann published "Handbook".',
      type: 'notification',
      source: 'wiki.doc.published',
      eventKey: 'wiki.doc.published',
      link: '/wiki/docs/handbook',
      dedupeKey: `dispatch:${d1}`,
      isRead: false,
      readAt: null,
      senderId: null,
      templateId: null,
    });
    expect(rows[1]?.title).toBe('Policy was published');
    expect(outcomes[0]).toEqual({ status: 'sent', providerMessageId: String(rows[0]?.id) });
    expect(await rowsFor([d3, d4])).toEqual([]);

    // and the user reads it in their inbox
    const inbox = await call(t.app, 'GET', '/api/in-app-messages', { token: user.token });
    expect(inbox.json().data.list.map((m: { title: string }) => m.title)).toEqual([
      'Policy was published',
      'Handbook was published',
    ]);
  });

  it('1,000 recipients: one insert and one push; the same batch again writes and pushes nothing', async () => {
    const ids = dispatchIds(1000);
    const batch = ids.map((id, i) => userDelivery(id, t.demoTenantId, 500_000 + i));
    const { adapter: counted, counts } = countingAdapter();
    const pushesBefore = await realtimeCount();

    const first = await counted.deliver(batch);
    expect(counts).toEqual({ select: 0, insert: 1, update: 0, delete: 0, execute: 0 });
    expect(first.every((o) => o.status === 'sent')).toBe(true);
    const rows = await rowsFor(ids);
    expect(rows).toHaveLength(1000);
    expect(new Set(rows.map((r) => r.userId)).size).toBe(1000);
    expect(await realtimeCount()).toBe(pushesBefore + 1);
    const [push] = await t.database.db
      .select()
      .from(realtimeEvents)
      .where(eq(realtimeEvents.topic, 'inapp.message'))
      .orderBy(realtimeEvents.id)
      .offset(pushesBefore);
    expect(push?.userIds).toHaveLength(1000);
    expect(push?.tenantId).toBe(t.demoTenantId);

    // a retry (the dispatcher crashed before recording the outcomes): nothing twice, same message ids
    const again = await counted.deliver(batch);
    expect(again).toEqual(first);
    expect(counts.insert).toBe(2);
    expect(counts.select).toBe(1); // the ids of the rows written the first time, in one query
    expect(await rowsFor(ids)).toHaveLength(1000);
    expect(await realtimeCount()).toBe(pushesBefore + 1);
  });

  it('a partly delivered batch, retried, writes and pushes only the missing messages', async () => {
    const ids = dispatchIds(4);
    const batch = ids.map((id, i) => userDelivery(id, t.demoTenantId, 600_000 + i));
    await adapter().deliver(batch.slice(0, 2));
    const pushesBefore = await realtimeCount();
    const outcomes = await adapter().deliver(batch);
    expect(outcomes.every((o) => o.status === 'sent')).toBe(true);
    expect(await rowsFor(ids)).toHaveLength(4);
    const [push] = await t.database.db
      .select()
      .from(realtimeEvents)
      .where(eq(realtimeEvents.topic, 'inapp.message'))
      .orderBy(realtimeEvents.id)
      .offset(pushesBefore);
    expect(push?.userIds).toEqual([600_002, 600_003]);
  });

  it('renders the in-app template named by code: the tenant’s beats the platform’s', async () => {
    const platformTpl = await call(t.app, 'POST', '/api/in-app-templates', {
      token: t.adminToken,
      body: {
        code: 'doc-published',
        title: 'Platform: {{docTitle}}',
        content: 'P {{actorName}}',
        variables: ['docTitle', 'actorName'],
        type: 'system',
      },
    });
    expect(platformTpl.statusCode, platformTpl.body).toBe(201);
    const tenantTpl = await call(t.app, 'POST', '/api/in-app-templates', {
      token: t.demoAdminToken,
      body: {
        code: 'doc-published',
        title: 'Tenant: {{docTitle}}',
        content: 'T {{actorName}}',
        variables: ['docTitle', 'actorName'],
      },
    });
    expect(tenantTpl.statusCode, tenantTpl.body).toBe(201);
    const overrideTpl = await call(t.app, 'POST', '/api/in-app-templates', {
      token: t.demoAdminToken,
      body: { code: 'doc-override', title: 'Override: {{docTitle}}', content: 'O', variables: ['docTitle'] },
    });
    const byCode = { channelOptions: { templates: { inapp: 'doc-published' } } };
    const event = { ...userDelivery(0, null, 0).event, templates: { inapp: 'doc-published' } };
    const [a, b, c, d, e] = dispatchIds(5) as [number, number, number, number, number];

    await adapter().deliver([
      userDelivery(a, t.demoTenantId, 700_001, byCode),
      userDelivery(b, t.demoTenantId, 700_002, { event }),
      userDelivery(c, t.demoTenantId, 700_003, { event, channelOptions: { templates: { inapp: 'doc-override' } } }),
      userDelivery(d, t.demoTenantId, 700_004, { channelOptions: { templates: { inapp: 'no-such-code' } } }),
    ]);
    await adapter().deliver([userDelivery(e, other.tenantId, 700_005, byCode)]);

    const byKey = new Map((await rowsFor([a, b, c, d, e])).map((r) => [r.dedupeKey, r]));
    expect(byKey.get(`dispatch:${a}`)).toMatchObject({
      title: 'Tenant: Handbook',
      content: 'T Ann',
      templateId: tenantTpl.json().data.id,
      type: 'notification',
    });
    expect(byKey.get(`dispatch:${b}`)?.title).toBe('Tenant: Handbook');
    expect(byKey.get(`dispatch:${c}`)).toMatchObject({
      title: 'Override: Handbook',
      templateId: overrideTpl.json().data.id,
    });
    expect(byKey.get(`dispatch:${d}`)).toMatchObject({ title: 'Handbook was published', templateId: null });
    // a tenant without its own template uses the platform's
    expect(byKey.get(`dispatch:${e}`)).toMatchObject({
      title: 'Platform: Handbook',
      content: 'P Ann',
      type: 'system',
      tenantId: other.tenantId,
    });

    // a disabled tenant template falls back to the platform's
    await call(t.app, 'PUT', `/api/in-app-templates/${tenantTpl.json().data.id}`, {
      token: t.demoAdminToken,
      body: { status: 'disabled' },
    });
    const [f] = dispatchIds(1) as [number];
    await adapter().deliver([userDelivery(f, t.demoTenantId, 700_006, byCode)]);
    expect((await rowsFor([f]))[0]?.title).toBe('Platform: Handbook');
  });

  it('pushes inapp.message live to the recipients only, once per batch', async () => {
    const reader = await createUserWithPermissions(t, []);
    const bystander = await createUserWithPermissions(t, []);
    const adminId = await userIdOf(t.demoAdminToken);
    const clients = await Promise.all(
      [t.demoAdminToken, reader.token, bystander.token].map((tok) => connect(base, tok)),
    );
    const [adminWs, readerWs, bystanderWs] = clients as [(typeof clients)[0], (typeof clients)[0], (typeof clients)[0]];

    const [d1, d2] = dispatchIds(2) as [number, number];
    const title = 'Live handbook';
    await adapter().deliver([
      userDelivery(d1, t.demoTenantId, adminId, { variables: { docTitle: title, actorName: 'Ann' } }),
      userDelivery(d2, t.demoTenantId, reader.userId, { variables: { docTitle: title, actorName: 'Ann' } }),
    ]);
    for (const ws of [adminWs, readerWs]) {
      const m = await ws.waitFor(inAppPush(`${title} was published`));
      expect(m.data).toEqual({
        eventKey: 'wiki.doc.published',
        title: `${title} was published`,
        link: '/wiki/docs/handbook',
        type: 'notification',
      });
    }

    // events reach a socket in publish order: once the bystander has its own, the first would have arrived
    const [d3] = dispatchIds(1) as [number];
    await adapter().deliver([
      userDelivery(d3, t.demoTenantId, bystander.userId, { variables: { docTitle: 'Own', actorName: 'Ann' } }),
    ]);
    await bystanderWs.waitFor(inAppPush('Own was published'));
    expect(bystanderWs.messages.some(inAppPush(`${title} was published`))).toBe(false);
    expect(readerWs.messages.some(inAppPush('Own was published'))).toBe(false);
    await Promise.all(clients.map((c) => c.close()));
  });

  it('a failed push does not fail the delivery: the messages stay written', async () => {
    const failing = createInAppAdapter({
      ...t.app.ctx,
      realtime: {
        ...t.app.ctx.realtime,
        publish: async () => {
          throw new Error('pub/sub down');
        },
      },
    });
    const [d] = dispatchIds(1) as [number];
    const outcomes = await failing.deliver([userDelivery(d, t.demoTenantId, 800_001)]);
    const [row] = await rowsFor([d]);
    expect(outcomes).toEqual([{ status: 'sent', providerMessageId: String(row?.id) }]);
    expect(await messageById(t, row?.id as number)).toMatchObject({ userId: 800_001 });
  });
});
