import type { Db } from '../../platform/db/client.ts';
import { reminderDue } from '../../platform/jobs/reminders.ts';
import type { Notifier } from '../messaging/index.ts';
import { tenantAdminIds, tenantsExpiringBetween } from './tenant-expiry-repository.ts';

const DAY_MS = 86_400_000;
/** Reminders before expiry, in days (identity.tenant.expiring); 0 is the expiry itself (identity.tenant.expired). */
const EXPIRY_REMINDER_DAYS = [30, 7, 1, 0] as const;

/**
 * Tells each tenant's administrators that its subscription is about to end, or has ended
 * (spec §6.2 identity.tenant.*), once per threshold (reminderDue); the idempotency key
 * (tenant, expiry, threshold) makes a second run of the same day send nothing new, and a renewed
 * expiry is a new key.
 */
export async function notifyTenantExpiry(deps: { db: Db; notify: Notifier['notify'] }, now: Date) {
  const horizon = EXPIRY_REMINDER_DAYS[0] * DAY_MS;
  const due = await tenantsExpiringBetween(
    deps.db,
    new Date(now.getTime() - DAY_MS),
    new Date(now.getTime() + horizon),
  );
  let sent = 0;
  for (const tenant of due) {
    const expiresAt = tenant.expiresAt as Date;
    const days = reminderDue(expiresAt, EXPIRY_REMINDER_DAYS, now);
    if (days === null) continue;
    const admins = await tenantAdminIds(deps.db, tenant.id);
    if (admins.length === 0) continue;
    const common = {
      tenantId: tenant.id,
      recipients: admins.map((id) => ({ type: 'user' as const, id })),
      idempotencyKey: `tenant-expiry:${tenant.id}:${expiresAt.toISOString()}:${days}`,
    };
    const date = expiresAt.toISOString().slice(0, 10);
    if (days === 0)
      await deps.notify('identity.tenant.expired', {
        ...common,
        variables: { tenantName: tenant.name, expiresAt: date },
      });
    else
      await deps.notify('identity.tenant.expiring', {
        ...common,
        variables: { tenantName: tenant.name, expiresAt: date, daysLeft: days },
      });
    sent++;
  }
  return { notified: sent };
}
