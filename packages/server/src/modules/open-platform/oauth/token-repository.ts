import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { sha256 } from '../../../platform/crypto/digest.ts';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { acceptsProof } from '../apps/client-repository.ts';
import { openApps } from '../apps/tables.ts';
import { oauthTokens, type TokenKind } from './tables.ts';

/**
 * Queries of access and refresh tokens: opaque random tokens out, SHA-256 digests in. Every
 * lookup is one indexed query on the digest; revocation is immediate because nothing is cached.
 */
export type TokenRecord = typeof oauthTokens.$inferSelect;
export type NewToken = typeof oauthTokens.$inferInsert;

/** One client_credentials access token to write, with what its client authentication relied on. */
export type ClientTokenRow = {
  tokenHash: string;
  appId: number;
  /** SHA-256 of the secret the client presented, already matched against the cached record */
  proof: string;
  scopes: string[];
  expiresAt: Date;
  now: Date;
};

export async function insertTokens(tx: Db, rows: NewToken[]): Promise<void> {
  await tx.insert(oauthTokens).values(rows.map((r) => ({ ...r, tenantId: platformKey(r.tenantId) })));
}

type Rows<T> = { rows: T[] };

/**
 * client_credentials access tokens as one JSON parameter expanded by the database (as notification
 * dispatches are written). Each row is written only if its application, as its row is now, is
 * active, still accepts the proof, the grant and the scopes; answers the digests written.
 */
export async function insertClientTokens(db: Db, rows: ClientTokenRow[]): Promise<Set<string>> {
  const json = JSON.stringify(
    rows.map((r) => ({
      token_hash: r.tokenHash,
      app_id: r.appId,
      proof: r.proof,
      scopes: r.scopes,
      expires_at: r.expiresAt.toISOString(),
      now: r.now.toISOString(),
    })),
  );
  const result = (await db.execute(sql`
    insert into oauth_tokens (token_hash, kind, tenant_id, app_id, scopes, expires_at)
    select t.token_hash, 'access', ${openApps.tenantId}, ${openApps.id}, t.scopes, t.expires_at
    from jsonb_to_recordset(${json}::jsonb)
      as t(token_hash text, app_id int, proof text, scopes text[], expires_at timestamptz, now timestamptz)
    join ${openApps} on ${openApps.id} = t.app_id and ${acceptsProof(openApps, sql`t.proof`, sql`t.now`)}
      and ${openApps.clientType} = 'confidential' and 'client_credentials' = any(${openApps.grantTypes})
      and t.scopes <@ ${openApps.allowedScopes}
    returning token_hash`)) as unknown as Rows<{ token_hash: string }>;
  return new Set(result.rows.map((r) => r.token_hash));
}

/**
 * Introspection's one statement, prepared once (PostgreSQL plans it once per connection): the
 * caller's application as it is now, and the live token (not expired, revoked or used) with the
 * client_id of its application if that is active. Placeholders: callerId, proof, tokenHash, now.
 */
export function prepareIntrospection(db: Db) {
  const caller = alias(openApps, 'caller');
  const owner = alias(openApps, 'owner');
  const t = oauthTokens;
  const now = sql.placeholder('now');
  return db
    .select({ token: t, clientId: owner.clientId })
    .from(caller)
    .leftJoin(
      t,
      and(eq(t.tokenHash, sql.placeholder('tokenHash')), isNull(t.revokedAt), isNull(t.usedAt), gt(t.expiresAt, now)),
    )
    .leftJoin(owner, and(eq(owner.id, t.appId), eq(owner.status, 'active')))
    .where(and(eq(caller.id, sql.placeholder('callerId')), acceptsProof(caller, sql.placeholder('proof'), now)))
    .limit(1)
    .prepare('oauth_introspection');
}

/** A token by its value, whatever its state (null when unknown). */
export async function findToken(db: Db, token: string): Promise<TokenRecord | null> {
  const [row] = await db
    .select()
    .from(oauthTokens)
    .where(eq(oauthTokens.tokenHash, sha256(token)))
    .limit(1);
  return row ?? null;
}

/** A live token (not expired, not revoked, refresh not used) of an active application, with its client_id. */
export async function findLiveToken(db: Db, token: string, now: Date, kind?: TokenKind) {
  const t = oauthTokens;
  const [row] = await db
    .select({ token: t, clientId: openApps.clientId })
    .from(t)
    .innerJoin(openApps, and(eq(openApps.id, t.appId), eq(openApps.status, 'active')))
    .where(
      and(
        eq(t.tokenHash, sha256(token)),
        kind ? eq(t.kind, kind) : undefined,
        isNull(t.revokedAt),
        isNull(t.usedAt),
        gt(t.expiresAt, now),
      ),
    )
    .limit(1);
  return row ?? null;
}

/**
 * Marks one refresh token used, if it still is usable: the one conditional update that makes
 * concurrent presentations of the same token produce exactly one winner.
 */
export async function consumeRefreshToken(tx: Db, token: string, appId: number, now: Date) {
  const t = oauthTokens;
  const [row] = await tx
    .update(t)
    .set({ usedAt: now })
    .where(
      and(
        eq(t.tokenHash, sha256(token)),
        eq(t.kind, 'refresh'),
        eq(t.appId, appId),
        isNull(t.usedAt),
        isNull(t.revokedAt),
        gt(t.expiresAt, now),
      ),
    )
    .returning();
  return row ?? null;
}

/** Revokes every token of a family (refresh replay, code reuse, refresh token revocation). */
export async function revokeFamily(db: Db, familyId: string, now: Date): Promise<number> {
  const rows = await db
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.familyId, familyId), isNull(oauthTokens.revokedAt)))
    .returning({ id: oauthTokens.id });
  return rows.length;
}

export async function revokeTokenById(db: Db, id: number, now: Date): Promise<void> {
  await db
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.id, id), isNull(oauthTokens.revokedAt)));
}

/** Revokes the tokens one user granted one application; answers how many were live. */
export async function revokeUserAppTokens(tx: Db, userId: number, appId: number, now: Date): Promise<number> {
  const rows = await tx
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.userId, userId), eq(oauthTokens.appId, appId), isNull(oauthTokens.revokedAt)))
    .returning({ id: oauthTokens.id });
  return rows.length;
}

export async function deleteAppTokens(tx: Db, appId: number): Promise<void> {
  await tx.delete(oauthTokens).where(eq(oauthTokens.appId, appId));
}

export async function deleteTokensExpiredBefore(db: Db, cutoff: Date): Promise<number> {
  const rows = await db
    .delete(oauthTokens)
    .where(sql`${oauthTokens.expiresAt} < ${cutoff}`)
    .returning({ id: oauthTokens.id });
  return rows.length;
}

/**
 * After an application's allowed scopes shrink, tokens holding a scope it may no longer grant
 * stop working at once (the consent keeps its history; a new authorization asks again).
 */
export async function revokeTokensOutsideScopes(tx: Db, appId: number, allowed: string[], now: Date): Promise<number> {
  const rows = await tx
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(
      and(
        eq(oauthTokens.appId, appId),
        isNull(oauthTokens.revokedAt),
        sql`not (${oauthTokens.scopes} <@ ${sql.param(allowed)}::text[])`,
      ),
    )
    .returning({ id: oauthTokens.id });
  return rows.length;
}
