import type { AppContext } from '../../platform/context.ts';
import { hashPassword } from '../../platform/crypto/passwords.ts';
import * as repo from './auth-repository.ts';
import { createSessions } from './sessions.ts';

export type PasswordResetTarget = { tenantCode: string | null; username: string };
export type PasswordResetResult = PasswordResetTarget & { reset: boolean };

/**
 * The operator's way back into an install (`npm run admin -- reset-password`): sets the password
 * of accounts named by tenant and username, lifts a lock-out, and ends their sessions. It runs
 * outside any request, so no principal is checked: whoever reaches the database may do it.
 * An account that does not exist is reported, not created.
 */
export async function resetPasswords(
  ctx: Pick<AppContext, 'db' | 'cache' | 'clock' | 'config'>,
  targets: PasswordResetTarget[],
  password: string,
): Promise<PasswordResetResult[]> {
  const sessions = createSessions(ctx);
  const hash = await hashPassword(password);
  const results: PasswordResetResult[] = [];
  for (const target of targets) {
    const tenant = target.tenantCode === null ? null : await repo.findTenantByCode(ctx.db, target.tenantCode);
    const user =
      target.tenantCode !== null && !tenant
        ? null
        : await repo.findUserForLogin(ctx.db, tenant?.id ?? null, target.username);
    if (user) {
      await ctx.db.transaction(async (tx) => {
        await repo.setPasswordHash(tx, user.id, hash, ctx.clock());
        await repo.clearLock(tx, user.id);
      });
      await sessions.revoke({ userIds: [user.id] }, 'password_reset');
    }
    results.push({ ...target, reset: user !== null });
  }
  return results;
}
