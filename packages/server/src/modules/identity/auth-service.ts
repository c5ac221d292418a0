import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { randomToken } from '../../platform/crypto/digest.ts';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../../platform/crypto/passwords.ts';
import type { Db } from '../../platform/db/client.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import * as repo from './auth-repository.ts';
import { identityErrors } from './errors.ts';
import { insertLoginLog } from './login-logs-repository.ts';
import type { SecuritySettings } from './security-settings.ts';
import type { Sessions, TokenPair } from './sessions.ts';

const CAPTCHA_TTL = 120;
const captchaKey = (id: string) => `captcha:${id}`;

export type LoginInput = {
  username: string;
  password: string;
  tenantCode?: string;
  captchaId?: string;
  captchaCode?: string;
};

export type ClientInfo = { ip: string; userAgent: string };

/** Sign-in, captcha, lock, password change (spec §5.1, §4.7). */
export function createAuthService({
  db,
  cache,
  clock,
  config,
  settings: settingsStore,
  sessions,
}: Pick<AppContext, 'db' | 'cache' | 'clock' | 'config' | 'settings'> & { sessions: Sessions }) {
  const security = (tenantId: number | null) => settingsStore.effective<SecuritySettings>('security', tenantId);

  async function limit(key: string, max: number) {
    const { count, ttl } = await cache.rateCount(key, 60);
    if (count > max) throw httpErrors.rateLimited(ttl);
  }

  async function tenantIdOf(code: string | undefined): Promise<number | null | undefined> {
    if (!code) return null;
    const t = await repo.findTenantByCode(db, code);
    return t ? t.id : undefined;
  }

  return {
    async captcha(tenantCode: string | undefined) {
      const tenantId = (await tenantIdOf(tenantCode)) ?? null;
      if (!(await security(tenantId)).captchaEnabled) return { enabled: false as const };
      const c = (await loadSvgCaptcha()).create({ size: 4, noise: 2, ignoreChars: '0oO1ilI' });
      const captchaId = randomToken(16);
      await cache.set(captchaKey(captchaId), c.text.toLowerCase(), CAPTCHA_TTL);
      return {
        enabled: true as const,
        captchaId,
        image: `data:image/svg+xml;base64,${Buffer.from(c.data).toString('base64')}`,
        expiresIn: CAPTCHA_TTL,
      };
    },

    async login(
      input: LoginInput,
      client: ClientInfo,
    ): Promise<TokenPair & { user: { id: number; username: string; nickname: string; tenantId: number | null } }> {
      const tenantId = await tenantIdOf(input.tenantCode);
      const settings = await security(tenantId ?? null);
      if (settings.captchaEnabled) {
        // Single use: the answer is taken out of the cache whether it matches or not.
        const answer = input.captchaId ? await cache.take(captchaKey(input.captchaId)) : null;
        if (!answer || answer !== (input.captchaCode ?? '').trim().toLowerCase())
          throw identityErrors.captchaRequired(!input.captchaId || !input.captchaCode);
      }
      await limit(
        `ratelimit:login:account:${tenantId ?? 'unknown'}:${input.username}`,
        config.loginAccountLimitPerMinute,
      );

      const now = clock();
      // A failed attempt commits its own writes (log, counter, lock) before the error is thrown,
      // so the rejection never rolls them back.
      const fail = (userId: number | null, reason: string, tx: Db = db) =>
        insertLoginLog(tx, {
          tenantId: tenantId ?? null,
          userId,
          username: input.username,
          ...client,
          success: false,
          reason,
        });

      const user = tenantId === undefined ? null : await repo.findUserForLogin(db, tenantId, input.username);
      if (!user) {
        await burnPasswordCheck(input.password);
        await fail(null, 'invalid_credentials');
        throw identityErrors.invalidCredentials();
      }
      if (user.lockedUntil && user.lockedUntil > now) {
        await fail(user.id, 'account_locked');
        throw identityErrors.accountLocked(user.lockedUntil);
      }
      if (!(await verifyPassword(user.passwordHash, input.password))) {
        const r = await db.transaction(async (tx) => {
          const counted = await repo.recordFailedLogin(tx, user.id, settings.lockThreshold, settings.lockMinutes, now);
          await fail(user.id, 'invalid_credentials', tx);
          return counted;
        });
        if (r?.lockedUntil && r.lockedUntil > now) throw identityErrors.accountLocked(r.lockedUntil);
        throw identityErrors.invalidCredentials();
      }
      if (user.status !== 'active') {
        await fail(user.id, 'account_disabled');
        throw identityErrors.accountDisabled();
      }
      if (user.tenantId !== null && !(await repo.tenantIsUsable(db, user.tenantId, now))) {
        await fail(user.id, 'tenant_unavailable');
        throw identityErrors.tenantUnavailable();
      }
      // The session, its refresh token, the counters and the log commit together or not at all.
      const pair = await db.transaction(async (tx) => {
        await repo.recordSuccessfulLogin(tx, user.id, client.ip, now);
        const started = await sessions.start(tx, user, client.ip, client.userAgent);
        await insertLoginLog(tx, {
          tenantId: user.tenantId,
          userId: user.id,
          username: user.username,
          ...client,
          success: true,
          reason: 'ok',
        });
        return started;
      });
      return {
        ...pair,
        user: { id: user.id, username: user.username, nickname: user.nickname, tenantId: user.tenantId },
      };
    },

    async changePassword(scope: Scope, oldPassword: string, newPassword: string) {
      const p = scope.principal;
      if (p?.kind !== 'user') throw httpErrors.unauthenticated();
      const user = await repo.findUserById(db, p.userId);
      if (!user) throw httpErrors.unauthenticated();
      const { passwordMinLength } = await security(user.tenantId);
      if (newPassword.length < passwordMinLength) throw identityErrors.weakPassword('newPassword', passwordMinLength);
      if (!(await verifyPassword(user.passwordHash, oldPassword))) throw identityErrors.wrongPassword();
      if (oldPassword === newPassword) throw identityErrors.samePassword();
      await repo.setPasswordHash(db, user.id, await hashPassword(newPassword), clock());
      // Other sign-ins end: a changed password must lock out whoever knew the old one.
      await sessions.revoke({ userIds: [user.id], exceptSessionId: p.sessionId }, 'password_changed');
    },

    async unlock(userId: number) {
      await repo.clearLock(db, userId);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

let svgCaptchaLoad: Promise<typeof import('svg-captcha')> | undefined;
/** svg-captcha parses its font when imported (~2 MB of heap): done with the first captcha, not at start. */
function loadSvgCaptcha() {
  svgCaptchaLoad ??= import('svg-captcha');
  return svgCaptchaLoad;
}
