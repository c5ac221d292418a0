import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { hashSecret, newClientId } from '../../src/modules/open-platform/apps/secrets.ts';
import { openApps } from '../../src/modules/open-platform/apps/tables.ts';
import {
  type DeliveryRow,
  openWebhookDeliveries,
  openWebhookSubscriptions,
} from '../../src/modules/open-platform/webhooks/tables.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import type { WebhookEventDef } from '../../src/platform/events/types.ts';
import type { TestApp } from '../helpers/app.ts';

/** A webhook receiver on 127.0.0.1: records every request; answers `statusFor(path)` after `delayMs`. */
/** Webhook events of a module that does not exist yet, declared for a test app (`extraEvents`). */
export const sampleEvents = (...webhooks: WebhookEventDef[]) => [{ notifications: {}, webhooks }];

export type Hit = { path: string; headers: IncomingHttpHeaders; body: string };
export type Receiver = {
  origin: string;
  port: number;
  hits: Hit[];
  /** default: 200 for every path */
  statusFor: (path: string) => number;
  delayMs: number;
  close(): Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = req.url ?? '/';
      receiver.hits.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (receiver.delayMs) await new Promise((r) => setTimeout(r, receiver.delayMs));
      const status = receiver.statusFor(path);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'thanks' : 'receiver is down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits: [],
    statusFor: () => 200,
    delayMs: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** An application row (the apps admin API is built separately; this is test setup, not behaviour). */
export async function insertApp(
  t: TestApp,
  tenantId: number | null,
  opts: { createdBy?: number | null; status?: 'active' | 'disabled'; name?: string } = {},
): Promise<number> {
  const [row] = await t.database.db
    .insert(openApps)
    .values({
      tenantId: platformKey(tenantId),
      name: opts.name ?? `app-${randomUUID().slice(0, 8)}`,
      clientId: newClientId(),
      clientType: 'confidential',
      secretHash: hashSecret('not-used'),
      grantTypes: ['client_credentials'],
      status: opts.status ?? 'active',
      createdBy: opts.createdBy ?? null,
    })
    .returning({ id: openApps.id });
  if (!row) throw new Error('app insert failed');
  return row.id;
}

/** A finished delivery row of a subscription, for fixtures that must not send anything. */
export async function deliveryRow(
  t: TestApp,
  tenantId: number,
  subscriptionId: number,
  eventType = 'webhook.test',
): Promise<number> {
  const eventId = randomUUID();
  const [row] = await t.database.db
    .insert(openWebhookDeliveries)
    .values({
      tenantId,
      subscriptionId,
      eventId,
      eventType,
      payload: { id: eventId, type: eventType, createdAt: new Date().toISOString(), tenantId, data: {} },
      status: 'failed',
      attempts: 7,
    })
    .returning({ id: openWebhookDeliveries.id });
  if (!row) throw new Error('delivery insert failed');
  return row.id;
}

/** Polls until `check` answers a value (not undefined/false), or fails after ~10 s. */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function deliveryById(t: TestApp, id: number): Promise<DeliveryRow> {
  const [row] = await t.database.db.select().from(openWebhookDeliveries).where(eq(openWebhookDeliveries.id, id));
  if (!row) throw new Error(`no delivery ${id}`);
  return row;
}

/** Waits until the delivery has made `attempts` attempts and no instance holds it. */
export function settled(t: TestApp, id: number, attempts: number): Promise<DeliveryRow> {
  return waitFor(async () => {
    const row = await deliveryById(t, id);
    return row.attempts >= attempts && row.lockedUntil === null ? row : undefined;
  }, `delivery ${id} to finish attempt ${attempts}`);
}

export async function subscriptionById(t: TestApp, id: number) {
  const [row] = await t.database.db.select().from(openWebhookSubscriptions).where(eq(openWebhookSubscriptions.id, id));
  if (!row) throw new Error(`no subscription ${id}`);
  return row;
}

/** Runs a system task's handler here and now, as the cron admin's "run now" does. */
export async function runTask(t: TestApp, name: string): Promise<unknown> {
  const task = t.app.ctx.jobs.systemTask(name);
  if (!task) throw new Error(`no system task ${name}`);
  return task.handler({}, { trigger: 'manual', cronJobId: 0, runId: 0, log: t.app.ctx.log });
}
