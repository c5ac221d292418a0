import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/modules/identity/tables.ts';
import {
  notificationDispatches,
  notificationOutbox,
  notificationRecipientSettings,
} from '../../src/modules/messaging/dispatch/tables.ts';
import { inAppMessages } from '../../src/modules/messaging/inapp/tables.ts';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app.ts';
import { runTask, settle, testClock } from './dispatch-helpers.ts';
import { type SmtpReceiver, saveConfig, startSmtp } from './email-helpers.ts';

/**
 * Two instances on one PostgreSQL database: the claims of the notification center (outbox
 * expansion, delivery leases, quiet-hours release, digest folding, the rate-limit count) hold
 * when both work on the same rows at the same moment.
 */
describe('the notification center on two instances', () => {
  let store: TestStore;
  let a: TestApp;
  let b: TestApp;
  let smtp: SmtpReceiver;
  let ids: number[] = [];
  const clock = testClock('2026-11-21T04:00:00Z');

  beforeAll(async () => {
    smtp = await startSmtp();
    store = await createTestStore();
    a = await createTestApp({ store, clock: clock.clock });
    b = await createTestApp({ store, clock: clock.clock });
    await saveConfig(a, a.demoAdminToken, smtp.port);
    const rows = await a.database.db
      .insert(users)
      .values(
        Array.from({ length: 40 }, (_, i) => ({
          tenantId: a.demoTenantId,
          username: `two-${i}`,
          passwordHash: 'x',
          nickname: `Two ${i}`,
          email: `two-${i}@example.com`,
        })),
      )
      .returning({ id: users.id });
    ids = rows.map((r) => r.id);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await store?.drop();
    await smtp?.close();
  });

  const inboxRows = async (outboxIds: number[]) => {
    const rows = await a.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(inAppMessages)
      .where(
        sql`${inAppMessages.dedupeKey} in (select 'dispatch:' || id from ${notificationDispatches} where ${notificationDispatches.outboxId} in ${outboxIds})`,
      );
    return rows[0]?.n ?? 0;
  };

  it('one outbox row processed by both at once: one row per pair, one message per user', async () => {
    const id = await a.app.messaging.notify('wiki.doc.published', {
      tenantId: a.demoTenantId,
      recipients: ids.map((id) => ({ type: 'user' as const, id })),
      variables: { docTitle: 'Onboarding', actorName: 'Ivy' },
    });
    await Promise.all([a.app.messaging.process(id), b.app.messaging.process(id), a.app.messaging.process(id)]);
    const rows = await settle(a, id);
    expect(rows).toHaveLength(40);
    expect(rows.every((r) => r.decision === 'sent')).toBe(true);
    expect(await inboxRows([id])).toBe(40);
  });

  it('quiet-hours release on both at once delivers each deferred row once', async () => {
    clock.set('2026-11-21T15:30:00Z'); // 23:30 in Shanghai
    await a.database.db.insert(notificationRecipientSettings).values(
      ids.slice(0, 20).map((id) => ({
        tenantId: a.demoTenantId,
        recipientKey: `u:${id}`,
        quietStart: '22:00',
        quietEnd: '07:00',
      })),
    );
    const id = await a.app.messaging.notify('wiki.doc.published', {
      tenantId: a.demoTenantId,
      recipients: ids.slice(0, 20).map((id) => ({ type: 'user' as const, id })),
      variables: { docTitle: 'Night shift', actorName: 'Ivy' },
    });
    expect((await settle(a, id)).every((r) => r.decision === 'deferred')).toBe(true);
    clock.set('2026-11-21T23:00:00Z');
    const [ra, rb] = (await Promise.all([
      runTask(a, 'messaging.deliverDeferred'),
      runTask(b, 'messaging.deliverDeferred'),
    ])) as { released: number }[];
    expect((ra?.released ?? 0) + (rb?.released ?? 0)).toBe(20);
    const rows = await settle(a, id);
    expect(rows.every((r) => r.decision === 'sent')).toBe(true);
    expect(await inboxRows([id])).toBe(20);
  });

  it('the rate limit holds when both instances count at the same moment', async () => {
    const urge = (t: TestApp) =>
      t.app.messaging.notify('workflow.task.urged', {
        tenantId: a.demoTenantId,
        recipients: [{ type: 'user', id: ids[30] as number }],
        variables: { taskTitle: 'Invoice', processName: 'Finance' },
        channels: { only: ['inapp'] },
      });
    const outboxIds = await Promise.all([urge(a), urge(b), urge(a), urge(b), urge(a), urge(b)]);
    await Promise.all(outboxIds.flatMap((id) => [a.app.messaging.process(id), b.app.messaging.process(id)]));
    const decisions = (await Promise.all(outboxIds.map((id) => settle(a, id)))).flat().map((r) => r.decision);
    expect(decisions.filter((d) => d === 'sent')).toHaveLength(3);
    expect(decisions.filter((d) => d === 'suppressed')).toHaveLength(3);
  });

  it('digest folding on both at once makes one digest per recipient and period', async () => {
    clock.set('2026-11-22T02:00:00Z');
    await a.database.db
      .update(notificationRecipientSettings)
      .set({ digestMode: 'hourly', quietStart: null, quietEnd: null })
      .where(eq(notificationRecipientSettings.tenantId, a.demoTenantId));
    const recipients = ids.slice(0, 20).map((id) => ({ type: 'user' as const, id }));
    for (const title of ['One', 'Two']) {
      await settle(
        a,
        await a.app.messaging.notify('workflow.instance.approved', {
          tenantId: a.demoTenantId,
          recipients,
          variables: { instanceTitle: title, processName: 'Leave' },
          channels: { only: ['email'] },
        }),
      );
    }
    clock.set('2026-11-22T03:00:00Z');
    await Promise.all([runTask(a, 'messaging.sendDigests'), runTask(b, 'messaging.sendDigests')]);
    const digests = await a.database.db
      .select({ id: notificationOutbox.id })
      .from(notificationOutbox)
      .where(and(eq(notificationOutbox.eventKey, 'messaging.digest'), eq(notificationOutbox.tenantId, a.demoTenantId)));
    expect(digests).toHaveLength(20);
    const folded = await a.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(notificationDispatches)
      .where(
        and(eq(notificationDispatches.reasonCode, 'digest'), sql`${notificationDispatches.deliveredAt} is not null`),
      );
    expect(folded[0]?.n).toBe(40);
  });
});
