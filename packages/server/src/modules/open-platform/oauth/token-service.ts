import { randomToken, sha256 } from '../../../platform/crypto/digest.ts';
import type { Db } from '../../../platform/db/client.ts';
import { clientTokenWriter } from './client-token-writer.ts';
import * as codes from './code-repository.ts';
import * as consents from './consent-repository.ts';
import * as repo from './token-repository.ts';

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
 * Issuing tokens: opaque random values out, only their SHA-256 digests stored. Each issue that
 * consumes something (a code, a refresh token) claims it and writes the new tokens in one
 * transaction, so of concurrent presentations exactly one wins.
 */
export function createTokenService(deps: { db: Db; lifetimes: Lifetimes }) {
  const { db, lifetimes } = deps;
  const clientTokens = clientTokenWriter(db);
  const introspection = repo.prepareIntrospection(db);

  async function issue(tx: Db, input: IssueInput, now: Date): Promise<Issued> {
    const accessToken = randomToken();
    const refreshToken = input.withRefresh ? randomToken() : null;
    const base = { tenantId: input.tenantId, appId: input.appId, userId: input.userId, familyId: input.familyId };
    await repo.insertTokens(tx, [
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
  }

  return {
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

    /** The tokens of an authorization code; null when a concurrent redemption claimed the code first. */
    redeemCode(codeId: number, input: IssueInput, now: Date): Promise<Issued | null> {
      return db.transaction(async (tx) => {
        // the conditional update is the single-use guarantee: of two concurrent redemptions one claims
        if (!(await codes.claimCode(tx, codeId, now))) return null;
        return issue(tx, input, now);
      });
    },

    /**
     * Replaces a refresh token by new tokens of its family: the access token narrowed to
     * `requested` when given, the refresh token keeping the original grant. Null when the token
     * is no longer usable (a concurrent presentation consumed it).
     */
    rotateRefreshToken(
      token: string,
      grant: { appId: number; familyId: string; requested: string[] },
      now: Date,
    ): Promise<Issued | null> {
      return db.transaction(async (tx) => {
        // the conditional update decides: of concurrent presentations exactly one consumes the token
        const old = await repo.consumeRefreshToken(tx, token, grant.appId, now);
        if (!old) return null;
        return issue(
          tx,
          {
            tenantId: old.tenantId,
            appId: grant.appId,
            userId: old.userId,
            scopes: grant.requested.length ? grant.requested : old.scopes,
            refreshScopes: old.scopes,
            familyId: grant.familyId,
            withRefresh: true,
          },
          now,
        );
      });
    },

    /** Everything of one application goes when it is deleted, in the deleting transaction (its webhooks are the webhooks area's). */
    async deleteAppGrants(tx: Db, appId: number): Promise<void> {
      await repo.deleteAppTokens(tx, appId);
      await codes.deleteAppCodes(tx, appId);
      await consents.deleteAppConsents(tx, appId);
    },

    /** Tokens and codes that expired more than a day ago (used refresh tokens are kept until then for replay detection). */
    async purgeExpired(now: Date): Promise<{ tokens: number; codes: number }> {
      const cutoff = new Date(now.getTime() - 86_400_000);
      const tokens = await repo.deleteTokensExpiredBefore(db, cutoff);
      return { tokens, codes: await codes.deleteCodesExpiredBefore(db, cutoff) };
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
