import { and, desc, eq, gt, isNull, max, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { openApps } from '../apps/tables.ts';
import { oauthConsents, oauthTokens } from './tables.ts';

/** Queries of consents: what a user granted an application, kept across authorizations. */
export type NewConsent = typeof oauthConsents.$inferInsert;

/** The scopes a user granted an application before, if any. */
export async function findConsentScopes(db: Db, userId: number, appId: number): Promise<string[] | null> {
  const [consent] = await db
    .select({ scopes: oauthConsents.scopes })
    .from(oauthConsents)
    .where(sql`${oauthConsents.userId} = ${userId} and ${oauthConsents.appId} = ${appId}`);
  return consent?.scopes ?? null;
}

/** Records a consent; an existing one grows: scopes granted before stay granted. */
export async function mergeConsent(tx: Db, row: NewConsent, now: Date): Promise<void> {
  await tx
    .insert(oauthConsents)
    .values({ ...row, tenantId: platformKey(row.tenantId) })
    .onConflictDoUpdate({
      target: [oauthConsents.userId, oauthConsents.appId],
      set: {
        scopes: sql`array(select distinct unnest(${oauthConsents.scopes} || excluded.scopes) order by 1)`,
        updatedAt: now,
      },
    });
}

/** Deletes one user's consent to one application; answers whether there was one. */
export async function deleteUserAppConsent(tx: Db, userId: number, appId: number): Promise<boolean> {
  const rows = await tx
    .delete(oauthConsents)
    .where(and(eq(oauthConsents.userId, userId), eq(oauthConsents.appId, appId)))
    .returning({ id: oauthConsents.id });
  return rows.length > 0;
}

export async function deleteAppConsents(tx: Db, appId: number): Promise<void> {
  await tx.delete(oauthConsents).where(eq(oauthConsents.appId, appId));
}

/** A user's consents, newest change first, with each application and when its newest live token was issued. */
export async function listUserConsents(db: Db, userId: number, now: Date) {
  const c = oauthConsents;
  const t = oauthTokens;
  const live = db
    .select({ appId: t.appId, last: max(t.createdAt).as('last') })
    .from(t)
    .where(and(eq(t.userId, userId), isNull(t.revokedAt), isNull(t.usedAt), gt(t.expiresAt, now)))
    .groupBy(t.appId)
    .as('live');
  return db
    .select({ consent: c, app: openApps, last: live.last })
    .from(c)
    .innerJoin(openApps, eq(openApps.id, c.appId))
    .leftJoin(live, eq(live.appId, c.appId))
    .where(eq(c.userId, userId))
    .orderBy(desc(c.updatedAt));
}

export type ConsentWithApp = Awaited<ReturnType<typeof listUserConsents>>[number];
