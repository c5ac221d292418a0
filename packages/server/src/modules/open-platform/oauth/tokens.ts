import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { randomToken, sha256 } from '../../../platform/crypto/digest.ts';
import type { Db } from '../../../platform/db/client.ts';
import { acceptsProof } from '../apps/clients.ts';
import { openApps } from '../apps/tables.ts';
import { clientTokenWriter } from './client-token-writer.ts';
import { oauthCodes, oauthConsents, oauthTokens, type TokenKind } from './tables.ts';

export type TokenRecord = typeof oauthTokens.$inferSelect;

export type Lifetimes = { accessSeconds: number; refreshSeconds: number };

export type IssueInput = {
  tenantId: number | null;
  appId: number;
  userId: number | null;
  scopes: string[];
  familyId: string | null;
  withRefresh: boolean;
  /** scopes of the refresh token when they differ from the access token's (narrowed refresh) */
  refreshScopes?: string[];
};

export type Issued = { accessToken: string; refreshToken: string | null; expiresIn: number; scopes: string[] };

const after = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

/**
 * The token store: opaque random tokens out, SHA-256 digests in. Every lookup is one indexed
 * query on the digest; revocation is immediate because nothing is cached.
 */
export function tokenStore(db: Db, lifetimes: Lifetimes) {
  const clientTokens = clientTokenWriter(db);
  const introspection = introspectionQuery(db);
  return {
    lifetimes,

    /**
     * A client_credentials access token for the application `proof` authenticated, written with
     * the concurrent ones (client-token-writer.ts); null when the application no longer accepts
     * the proof or the scopes.
     */
    async issueClientToken(
      input: { appId: number; proof: string; scopes: string[] },
      now: Date,
    ): Promise<Issued | null> {
      const accessToken = randomToken();
      const written = await clientTokens.write({
        ...input,
        tokenHash: sha256(accessToken),
        expiresAt: after(now, lifetimes.accessSeconds),
        now,
      });
      return written
        ? { accessToken, refreshToken: null, expiresIn: lifetimes.accessSeconds, scopes: input.scopes }
        : null;
    },

    /**
     * The token as introspection sees it, if the caller (`callerId`, authenticated by `proof` from
     * a cached record) is still accepted by its application's row: null when it no longer is;
     * `token: null` when the token is unknown, dead, or of a disabled application.
     */
    async introspect(callerId: number, proof: string, token: string, now: Date) {
      const [row] = await introspection.execute({
        callerId,
        proof,
        tokenHash: sha256(token),
        now: now.toISOString(),
      });
      if (!row) return null;
      return { token: row.token && row.clientId !== null ? { token: row.token, clientId: row.clientId } : null };
    },

    async issue(tx: Db, input: IssueInput, now: Date): Promise<Issued> {
      const accessToken = randomToken();
      const refreshToken = input.withRefresh ? randomToken() : null;
      const base = { tenantId: input.tenantId, appId: input.appId, userId: input.userId, familyId: input.familyId };
      await tx.insert(oauthTokens).values([
        {
          ...base,
          tokenHash: sha256(accessToken),
          kind: 'access' as const,
          scopes: input.scopes,
          expiresAt: after(now, lifetimes.accessSeconds),
        },
        ...(refreshToken
          ? [
              {
                ...base,
                tokenHash: sha256(refreshToken),
                kind: 'refresh' as const,
                scopes: input.refreshScopes ?? input.scopes,
                expiresAt: after(now, lifetimes.refreshSeconds),
              },
            ]
          : []),
      ]);
      return { accessToken, refreshToken, expiresIn: lifetimes.accessSeconds, scopes: input.scopes };
    },
  };
}

export type TokenStore = ReturnType<typeof tokenStore>;

/**
 * Introspection's one statement, prepared once (PostgreSQL plans it once per connection): the
 * caller's application as it is now, and the live token (not expired, revoked or used) with the
 * client_id of its application if that is active.
 */
function introspectionQuery(db: Db) {
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

/**
 * Ends what a user granted an application: the consent, every token and every open code.
 * Answers whether there was anything to end.
 */
export async function revokeUserApp(db: Db, userId: number, appId: number, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const consents = await tx
      .delete(oauthConsents)
      .where(and(eq(oauthConsents.userId, userId), eq(oauthConsents.appId, appId)))
      .returning({ id: oauthConsents.id });
    const tokens = await tx
      .update(oauthTokens)
      .set({ revokedAt: now })
      .where(and(eq(oauthTokens.userId, userId), eq(oauthTokens.appId, appId), isNull(oauthTokens.revokedAt)))
      .returning({ id: oauthTokens.id });
    await tx
      .update(oauthCodes)
      .set({ usedAt: now })
      .where(and(eq(oauthCodes.userId, userId), eq(oauthCodes.appId, appId), isNull(oauthCodes.usedAt)));
    return consents.length + tokens.length > 0;
  });
}

/** Everything of one application goes when it is deleted (its webhooks are the webhooks area's). */
export async function deleteAppGrants(tx: Db, appId: number): Promise<void> {
  await tx.delete(oauthTokens).where(eq(oauthTokens.appId, appId));
  await tx.delete(oauthCodes).where(eq(oauthCodes.appId, appId));
  await tx.delete(oauthConsents).where(eq(oauthConsents.appId, appId));
}

/** Tokens and codes that expired more than a day ago (used refresh tokens are kept until then for replay detection). */
export async function purgeExpired(db: Db, now: Date): Promise<{ tokens: number; codes: number }> {
  const cutoff = new Date(now.getTime() - 86_400_000);
  const tokens = await db
    .delete(oauthTokens)
    .where(sql`${oauthTokens.expiresAt} < ${cutoff}`)
    .returning({ id: oauthTokens.id });
  const codes = await db
    .delete(oauthCodes)
    .where(sql`${oauthCodes.expiresAt} < ${cutoff}`)
    .returning({ id: oauthCodes.id });
  return { tokens: tokens.length, codes: codes.length };
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
