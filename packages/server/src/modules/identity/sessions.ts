import type { FastifyRequest } from 'fastify';
import type { UserPrincipal } from '../../platform/auth/principal.ts';
import { type Cache, orWhenUnavailable } from '../../platform/cache/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import { randomToken, sha256 } from '../../platform/crypto/digest.ts';
import type { Db } from '../../platform/db/client.ts';
import type { AuthResolver } from '../../platform/http/authentication.ts';
import { accessTokens } from './access-token.ts';
import * as repo from './auth-repository.ts';
import { identityErrors } from './errors.ts';

/**
 * Sessions, token pairs and the principal of each request.
 *
 * The principal of a session is cached in the shared cache (Redis with several instances) with
 * the current authorization epoch. Any change to roles, menus, users or tenants bumps the epoch,
 * so every instance reloads permissions on the next request; a revoked session is deleted from
 * the cache and marked in the database, so a forced logout on one instance holds on all.
 *
 * While Redis is down, principals are read from PostgreSQL at every request and nothing is
 * cached; a deletion or epoch bump that could not be written is made good when Redis is back
 * (identity's index.ts bumps the epoch on `resync`), and a cached principal lives a minute anyway.
 */
type CachedPrincipal = { epoch: string; principal: Omit<UserPrincipal, 'permissions'> & { permissions: string[] } };

const EPOCH_KEY = 'authz:epoch';
const principalKey = (sid: number) => `authz:principal:${sid}`;
const PRINCIPAL_TTL = 60;
export const SESSION_CONTROL_CHANNEL = 'session-control';

/** A new authorization epoch: every cached principal, on every instance, is reloaded at its next request. */
export async function invalidatePermissions(cache: Cache): Promise<void> {
  await orWhenUnavailable(cache.set(EPOCH_KEY, `${Date.now()}-${randomToken(6)}`, 30 * 86_400), undefined);
}

export type TokenPair = {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  refreshToken: string;
  refreshExpiresIn: number;
};

export function createSessions({ db, cache, clock, config }: Pick<AppContext, 'db' | 'cache' | 'clock' | 'config'>) {
  const access = accessTokens(config.jwtSecret, config.accessTokenTtlSeconds);

  /** The epoch and the cached principal; null when Redis does not answer (read the database, cache nothing). */
  async function cachedEntry(sessionId: number): Promise<{ epoch: string; cached: string | null } | null> {
    const read = Promise.all([cache.get(EPOCH_KEY), cache.get(principalKey(sessionId))]);
    const found = await orWhenUnavailable(read, null);
    return found && { epoch: found[0] ?? '0', cached: found[1] };
  }

  async function loadPrincipal(sessionId: number, userId: number): Promise<UserPrincipal | null> {
    const now = clock();
    const entry = await cachedEntry(sessionId);
    const cached = entry?.cached;
    if (entry && cached) {
      const c = JSON.parse(cached) as CachedPrincipal;
      if (c.epoch === entry.epoch && c.principal.userId === userId) {
        return { ...c.principal, permissions: new Set(c.principal.permissions) };
      }
    }
    const session = await repo.findLiveSession(db, sessionId, now);
    if (!session || session.userId !== userId) return null;
    const user = await repo.findUserById(db, userId);
    if (user?.status !== 'active') return null;
    if (user.tenantId !== null && !(await repo.tenantIsUsable(db, user.tenantId, now))) return null;
    const perms = user.isSuper ? [] : (await repo.loadPermissions(db, user.id)).codes;
    const principal: CachedPrincipal['principal'] = {
      kind: 'user',
      userId: user.id,
      tenantId: user.tenantId,
      username: user.username,
      isSuper: user.isSuper,
      permissions: perms,
      sessionId,
    };
    // Last activity is refreshed at most once per cache period: "online" without a write per
    // request. Without Redis neither is done: a Redis outage must not add a write to every request.
    if (entry)
      await Promise.all([
        orWhenUnavailable(
          cache.set(principalKey(sessionId), JSON.stringify({ epoch: entry.epoch, principal }), PRINCIPAL_TTL),
          undefined,
        ),
        repo.touchSession(db, sessionId, now),
      ]);
    return { ...principal, permissions: new Set(perms) };
  }

  const resolveAuth: AuthResolver = async (token: string, req: FastifyRequest) => {
    const claims = await access.verify(token, clock());
    if (!claims) return null;
    const principal = await loadPrincipal(claims.sessionId, claims.userId);
    if (!principal) return null;
    let tenantId = principal.tenantId;
    // A super administrator works at platform scope, or inside one tenant named by X-Tenant-Id.
    const header = req.headers['x-tenant-id'];
    if (principal.isSuper && typeof header === 'string' && header !== '') {
      const id = Number(header);
      if (!Number.isInteger(id) || id < 1 || !(await repo.findTenantById(db, id))) throw identityErrors.unknownTenant();
      tenantId = id;
    }
    return { principal, tenantId };
  };

  async function issue(tx: Db, sessionId: number, userId: number, tenantId: number | null): Promise<TokenPair> {
    const refreshToken = randomToken();
    await repo.insertRefreshToken(tx, { id: sessionId, tenantId }, sha256(refreshToken));
    return {
      accessToken: await access.sign({ userId, sessionId, tenantId }, clock()),
      tokenType: 'Bearer',
      expiresIn: access.ttlSeconds,
      refreshToken,
      refreshExpiresIn: config.refreshTokenTtlSeconds,
    };
  }

  async function revoke(where: Parameters<typeof repo.revokeSessions>[1], reason: string): Promise<number[]> {
    const ids = await repo.revokeSessions(db, where, reason, clock());
    if (ids.length) {
      // the rows are revoked; a cached principal Redis could not drop now goes at the epoch bump after the outage
      await orWhenUnavailable(cache.del(...ids.map(principalKey)), undefined);
      await cache.publish(SESSION_CONTROL_CHANNEL, JSON.stringify({ revoked: ids }));
    }
    return ids;
  }

  return {
    resolveAuth,
    revoke,

    /** Starts a session inside the caller's transaction (sign-in commits it with its other writes). */
    async start(
      tx: Db,
      user: { id: number; tenantId: number | null },
      ip: string,
      userAgent: string,
    ): Promise<TokenPair> {
      const now = clock();
      const session = await repo.insertSession(tx, {
        tenantId: user.tenantId,
        userId: user.id,
        ip,
        userAgent: userAgent.slice(0, 512),
        expiresAt: new Date(now.getTime() + config.refreshTokenTtlSeconds * 1000),
      });
      return issue(tx, session.id, user.id, user.tenantId);
    },

    /**
     * Rotates a refresh token. A token can be used once; presenting a used one again means it
     * leaked, so the whole session is revoked (OAuth 2.0 Security BCP §4.14).
     */
    async refresh(refreshToken: string): Promise<TokenPair> {
      const hash = sha256(refreshToken);
      const now = clock();
      const sessionId = await repo.consumeRefreshToken(db, hash, now);
      if (sessionId === null) {
        const reusedSession = await repo.findUsedRefreshToken(db, hash);
        if (reusedSession !== null) {
          await revoke({ sessionId: reusedSession }, 'refresh_token_reuse');
          throw identityErrors.refreshTokenReused();
        }
        throw identityErrors.invalidRefreshToken();
      }
      const session = await repo.findLiveSession(db, sessionId, now);
      if (!session) throw identityErrors.invalidRefreshToken();
      const principal = await loadPrincipal(session.id, session.userId);
      if (!principal) throw identityErrors.invalidRefreshToken();
      await repo.touchSession(db, session.id, now, new Date(now.getTime() + config.refreshTokenTtlSeconds * 1000));
      return issue(db, session.id, session.userId, session.tenantId);
    },

    /** Any change to roles, menus, users or tenants: every cached principal reloads. */
    invalidatePermissions: () => invalidatePermissions(cache),
  };
}

export type Sessions = ReturnType<typeof createSessions>;
