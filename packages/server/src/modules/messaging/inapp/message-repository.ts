import { and, count, desc, eq, gte, inArray, lt, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { contains } from '../../../platform/db/sql.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { type InAppMessageType, inAppMessages } from './tables.ts';

/** Queries of in-app messages; every one goes through the tenant scope. */
export const messageRows = scoped(inAppMessages);
export type MessageRow = typeof inAppMessages.$inferSelect;
export type NewMessage = typeof inAppMessages.$inferInsert;
type TenantScope = Pick<Scope, 'tenantId'>;

/** Whose messages an operation touches: one user's (`userId`), or the whole tenant's (null). */
export type Owner = { userId: number | null };
const ofOwner = (owner: Owner, extra?: SQL) =>
  owner.userId === null ? extra : and(eq(inAppMessages.userId, owner.userId), extra);

export type MessageFilter = {
  userId?: number;
  isRead?: boolean;
  type?: InAppMessageType;
  source?: string;
  keyword?: string;
  from?: string;
  to?: string;
};

export function pageMessages(db: Db, scope: TenantScope, owner: Owner, q: PageRequest & MessageFilter) {
  const filters: (SQL | undefined)[] = [];
  if (q.userId !== undefined) filters.push(eq(inAppMessages.userId, q.userId));
  if (q.isRead !== undefined) filters.push(eq(inAppMessages.isRead, q.isRead));
  if (q.type) filters.push(eq(inAppMessages.type, q.type));
  if (q.source) filters.push(eq(inAppMessages.source, q.source));
  if (q.keyword) filters.push(or(contains(inAppMessages.title, q.keyword), contains(inAppMessages.content, q.keyword)));
  if (q.from) filters.push(gte(inAppMessages.createdAt, new Date(q.from)));
  if (q.to) filters.push(lt(inAppMessages.createdAt, new Date(q.to)));
  return messageRows.page(db, scope, q, ofOwner(owner, and(...filters)), desc(inAppMessages.id));
}

export async function unreadCount(db: Db, scope: TenantScope, userId: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(inAppMessages)
    .where(messageRows.where(scope, and(eq(inAppMessages.userId, userId), eq(inAppMessages.isRead, false))));
  return Number(row?.n ?? 0);
}

export async function findMessage(db: Db, scope: TenantScope, owner: Owner, id: number): Promise<MessageRow | null> {
  const rows = await db
    .select()
    .from(inAppMessages)
    .where(messageRows.where(scope, ofOwner(owner, eq(inAppMessages.id, id))))
    .limit(1);
  return rows[0] ?? null;
}

/** The given ids that exist among the owner's messages (to name the missing ones of a batch). */
export async function existingIds(db: Db, scope: TenantScope, owner: Owner, ids: number[]): Promise<number[]> {
  const rows = await db
    .select({ id: inAppMessages.id })
    .from(inAppMessages)
    .where(messageRows.where(scope, ofOwner(owner, inArray(inAppMessages.id, ids))));
  return rows.map((r) => r.id);
}

/**
 * Marks unread messages read by conditional update, so `read_at` is set once and a repeat changes
 * nothing. `ids` null = all of the owner's. Returns the messages newly marked.
 */
export async function markRead(
  db: Db,
  scope: TenantScope,
  owner: Owner,
  ids: number[] | null,
  now: Date,
): Promise<MessageRow[]> {
  const which = ids === null ? undefined : inArray(inAppMessages.id, ids);
  return db
    .update(inAppMessages)
    .set({ isRead: true, readAt: now })
    .where(messageRows.where(scope, ofOwner(owner, and(eq(inAppMessages.isRead, false), which))))
    .returning();
}

/** Deletes the owner's messages among `ids`; returns the ids deleted. */
export async function deleteMessages(db: Db, scope: TenantScope, owner: Owner, ids: number[]): Promise<number[]> {
  const rows = await db
    .delete(inAppMessages)
    .where(messageRows.where(scope, ofOwner(owner, inArray(inAppMessages.id, ids))))
    .returning({ id: inAppMessages.id });
  return rows.map((r) => r.id);
}

/**
 * One multi-row insert; rows whose dedupe key exists already are skipped (ON CONFLICT DO NOTHING),
 * so a retried delivery writes nothing twice. Returns the rows actually written.
 */
export async function insertMessages(db: Db, rows: NewMessage[]) {
  if (rows.length === 0) return [];
  return db
    .insert(inAppMessages)
    .values(rows.map((r) => ({ ...r, tenantId: platformKey(r.tenantId) })))
    .onConflictDoNothing()
    .returning({ id: inAppMessages.id, userId: inAppMessages.userId, dedupeKey: inAppMessages.dedupeKey });
}

/** Ids of messages already written under these dedupe keys (the rows a retry skipped). */
export async function idsByDedupeKey(db: Db, tenantId: number | null, keys: string[]) {
  if (keys.length === 0) return [];
  return db
    .select({ id: inAppMessages.id, dedupeKey: inAppMessages.dedupeKey })
    .from(inAppMessages)
    .where(messageRows.where({ tenantId }, inArray(inAppMessages.dedupeKey, keys)));
}
