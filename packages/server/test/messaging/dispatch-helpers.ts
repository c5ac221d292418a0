import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asc, eq, sql } from 'drizzle-orm';
import { users } from '../../src/modules/identity/tables.ts';
import {
  type DispatchRow,
  notificationDispatches,
  notificationOutbox,
} from '../../src/modules/messaging/dispatch/tables.ts';
import type { TestApp } from '../helpers/app.ts';

/** A clock the test moves by hand: quiet hours, windows and digests without sleeping. */
export function testClock(start: string) {
  let now = new Date(start);
  return {
    clock: () => new Date(now),
    set: (iso: string) => {
      now = new Date(iso);
    },
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

/**
 * Waits until an outbox row is expanded and nothing of it is in flight. Processing here as well
 * as in the queue worker is safe: whoever claims first does the work, the other finds nothing.
 */
export async function settle(t: TestApp, outboxId: number): Promise<DispatchRow[]> {
  await t.app.messaging.process(outboxId);
  for (let i = 0; i < 800; i++) {
    const [row] = await t.database.db.select().from(notificationOutbox).where(eq(notificationOutbox.id, outboxId));
    const rows = await dispatchesOf(t, outboxId);
    if (row?.status === 'done' && !rows.some((r) => r.decision === 'pending')) return rows;
    await new Promise((r) => setTimeout(r, 25));
  }
  const left = (await dispatchesOf(t, outboxId)).filter((r) => r.decision === 'pending');
  const state = left.map((r) => `${r.id}:${r.channel}:attempts=${r.attempts}:locked=${r.lockedUntil?.toISOString()}`);
  throw new Error(`outbox ${outboxId} did not settle; pending: ${state.slice(0, 5).join(' ')} (${left.length})`);
}

export async function dispatchesOf(t: TestApp, outboxId: number): Promise<DispatchRow[]> {
  return t.database.db
    .select()
    .from(notificationDispatches)
    .where(eq(notificationDispatches.outboxId, outboxId))
    .orderBy(asc(notificationDispatches.recipientKey), asc(notificationDispatches.channel));
}

/** `channel → decision/reason` of one recipient: what a reader of the trace checks. */
export const outcomes = (rows: DispatchRow[], recipientKey?: string) =>
  Object.fromEntries(
    rows
      .filter((r) => !recipientKey || r.recipientKey === recipientKey)
      .map((r) => [r.channel, r.reasonCode ? `${r.decision}/${r.reasonCode}` : r.decision]),
  );

export async function setContact(
  t: TestApp,
  userId: number,
  contact: { email?: string | null; phone?: string | null },
) {
  await t.database.db.update(users).set(contact).where(eq(users.id, userId));
}

export async function runTask(t: TestApp, name: string): Promise<unknown> {
  const task = t.app.ctx.jobs.systemTask(name);
  if (!task) throw new Error(`no system task ${name}`);
  return task.handler({}, { trigger: 'manual', cronJobId: 0, runId: 0, log: t.app.ctx.log });
}

export async function count(
  t: TestApp,
  table: 'notification_outbox' | 'notification_dispatches' | 'notification_preferences',
) {
  const res = (await t.database.db.execute(
    sql`select count(*)::int as n from ${sql.identifier(table)}`,
  )) as unknown as {
    rows: { n: number }[];
  };
  return res.rows[0]?.n ?? 0;
}

/** A local HTTP receiver answering `status` and keeping what arrived. */
export async function receiver(status = 200) {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, port, received, close: () => new Promise((r) => server.close(r)) };
}
