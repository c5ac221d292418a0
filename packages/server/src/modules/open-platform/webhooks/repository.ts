import { and, arrayOverlaps, asc, desc, eq, inArray, isNull, like, lt, ne, or, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped, tenantFilter } from '../../../platform/db/scoped.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { openApps } from '../apps/tables.ts';
import { entriesMatching } from './events.ts';
import {
  type DeliveryStatus,
  openWebhookAttempts,
  openWebhookDeliveries,
  openWebhookSubscriptions,
  type SubscriptionStatus,
} from './tables.ts';

/** Queries of webhook subscriptions and deliveries; every admin query goes through the tenant scope. */
export const subscriptions = scoped(openWebhookSubscriptions);
export const deliveries = scoped(openWebhookDeliveries);
type TenantScope = Pick<Scope, 'tenantId'>;
const s = openWebhookSubscriptions;
const d = openWebhookDeliveries;

/** `appless`: only the subscriptions of no application (a module's own: the payment center's). */
export type SubscriptionFilter = PageRequest & { appId?: number; appless?: boolean; status?: SubscriptionStatus };

export function pageSubscriptions(db: Db, scope: TenantScope, q: SubscriptionFilter) {
  const conds: SQL[] = [];
  if (q.appId !== undefined) conds.push(eq(s.appId, q.appId));
  if (q.appless) conds.push(isNull(s.appId));
  if (q.status) conds.push(eq(s.status, q.status));
  return subscriptions.page(db, scope, q, conds.length ? and(...conds) : undefined, asc(s.id));
}

export type DeliveryFilter = PageRequest & {
  subscriptionId?: number;
  appId?: number;
  /** only deliveries to subscriptions of no application */
  appless?: boolean;
  /** only event types starting with one of these (`payment.`) */
  eventPrefixes?: string[];
  status?: DeliveryStatus;
  eventType?: string;
  eventId?: string;
};

/** Event types under the prefixes; a prefix holds no LIKE wildcard (event types are dotted words). */
const typeUnder = (prefixes: string[]) => or(...prefixes.map((p) => like(d.eventType, `${p}%`)));

/** Newest first; the payload stays out of the list (GET one delivery for it). */
export async function pageDeliveries(db: Db, scope: TenantScope, q: DeliveryFilter) {
  const conds: SQL[] = [];
  if (q.subscriptionId !== undefined) conds.push(eq(d.subscriptionId, q.subscriptionId));
  if (q.appId !== undefined) conds.push(eq(d.appId, q.appId));
  if (q.appless) conds.push(isNull(d.appId));
  if (q.eventPrefixes) conds.push(typeUnder(q.eventPrefixes) ?? sql`false`);
  if (q.status) conds.push(eq(d.status, q.status));
  if (q.eventType) conds.push(eq(d.eventType, q.eventType));
  if (q.eventId) conds.push(eq(d.eventId, q.eventId));
  return deliveries.page(db, scope, q, conds.length ? and(...conds) : undefined, desc(d.id));
}

export function attemptsOf(db: Db, deliveryId: number) {
  return db
    .select()
    .from(openWebhookAttempts)
    .where(eq(openWebhookAttempts.deliveryId, deliveryId))
    .orderBy(asc(openWebhookAttempts.attempt));
}

/** The application's state as far as webhooks care; null when it does not exist (in that tenant). */
export async function appOf(db: Db, scope: TenantScope, appId: number) {
  const [row] = await db
    .select({ id: openApps.id, name: openApps.name, status: openApps.status, createdBy: openApps.createdBy })
    .from(openApps)
    .where(and(eq(openApps.id, appId), tenantFilter(openApps, scope)))
    .limit(1);
  return row ?? null;
}

/** The subscription's application is active (or it has none: the payment center's own). */
export const appActive = (appId: typeof s.appId): SQL =>
  sql`(${appId} is null or exists (select 1 from ${openApps} where ${openApps.id} = ${appId} and ${openApps.status} = 'active'))`;

/** Active subscriptions of active applications in the tenant that take events of `type`. */
export function subscribersOf(tx: Db, tenantId: number | null, type: string, appIds?: number[]) {
  return tx
    .select({ id: s.id, appId: s.appId })
    .from(s)
    .where(
      and(
        tenantFilter(s, { tenantId }),
        eq(s.status, 'active'),
        arrayOverlaps(s.events, entriesMatching(type)),
        appIds ? inArray(s.appId, appIds) : undefined,
        appActive(s.appId),
      ),
    )
    .orderBy(asc(s.id));
}

/** New deliveries (one per receiving subscription); answers their ids. */
export async function insertDeliveries(tx: Db, rows: Omit<typeof d.$inferInsert, 'id'>[]): Promise<number[]> {
  const inserted = await tx
    .insert(d)
    .values(rows.map((r) => ({ ...r, tenantId: platformKey(r.tenantId ?? null) })))
    .returning({ id: d.id });
  return inserted.map((r) => r.id);
}

/** An application's subscriptions (their deliveries and attempts cascade), in the deleting transaction. */
export async function deleteSubscriptionsOfApp(tx: Db, appId: number) {
  await tx.delete(s).where(eq(s.appId, appId));
}

/** Deletes finished deliveries (their attempts cascade) created before `cutoff`; answers how many. */
export async function purgeFinished(db: Db, cutoff: Date): Promise<number> {
  const rows = await db
    .delete(d)
    .where(and(ne(d.status, 'pending'), lt(d.createdAt, cutoff)))
    .returning({ id: d.id });
  return rows.length;
}
