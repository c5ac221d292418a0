import type { AppContext } from '../../platform/context.ts';
import { reminderDue } from '../../platform/jobs/reminders.ts';
import { type AlertDeps, adminRecipients } from './server-alerts.ts';

/** Reminders before the licence expires, in days (ops.license.expiring); 0: it has (ops.license.invalid). */
const LICENSE_REMINDER_DAYS = [30, 7, 1, 0] as const;

/**
 * The daily licence check (spec §6.2 ops.license.*): the platform administrators hear 30, 7 and
 * 1 days before the licence expires and when it has (an expired licence turns every gated
 * feature off, decision 0003). A licence that cannot be read stops the start, so "invalid" at
 * run time means expired.
 */
export async function checkLicense(ctx: Pick<AppContext, 'license' | 'clock'>, deps: AlertDeps) {
  const { licensee, expiresAt } = ctx.license;
  if (!expiresAt) return { notified: null };
  const days = reminderDue(expiresAt, LICENSE_REMINDER_DAYS, ctx.clock());
  if (days === null) return { notified: null };
  const date = expiresAt.toISOString().slice(0, 10);
  const common = {
    tenantId: null,
    recipients: await adminRecipients(deps),
    link: '/monitor/license',
    idempotencyKey: `license:${expiresAt.toISOString()}:${days}`,
  };
  if (days === 0)
    await deps.notify('ops.license.invalid', { ...common, variables: { reason: `the licence expired on ${date}` } });
  else await deps.notify('ops.license.expiring', { ...common, variables: { licensee, expiresAt: date } });
  return { notified: days };
}
