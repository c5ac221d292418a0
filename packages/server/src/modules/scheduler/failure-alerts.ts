import type { Db } from '../../platform/db/client.ts';
import type { Notifier } from '../messaging/index.ts';
import { type CronJobRow, latestFinishedStatuses } from './repository.ts';

/** Consecutive failed runs of one job that raise ops.scheduler.task_alert. */
const FAILURE_STREAK_ALERT = 3;

export type FailureAlertDeps = {
  db: Db;
  notify: Notifier['notify'];
  /** who platform-wide alerts go to (cron jobs are platform-level) */
  platformAdmins: () => Promise<number[]>;
};

/**
 * What a failed cron run tells the platform administrators (spec §6.2): every failure is
 * ops.scheduler.job_failed (the catalog's rate limit caps a noisy job), and a job whose last
 * FAILURE_STREAK_ALERT runs all failed raises ops.scheduler.task_alert once, when the streak
 * reaches that length: a job that keeps failing needs a person, not one more failure notice.
 */
export async function notifyRunFailed(deps: FailureAlertDeps, job: CronJobRow, runId: number, error: string) {
  const admins = await deps.platformAdmins();
  if (admins.length === 0) return;
  const recipients = admins.map((id) => ({ type: 'user' as const, id }));
  const link = `/monitor/cron-jobs?id=${job.id}`;
  await deps.notify('ops.scheduler.job_failed', {
    tenantId: null,
    recipients,
    variables: { jobName: job.name, error },
    link,
    idempotencyKey: `cron-run:${runId}`,
  });
  const latest = await latestFinishedStatuses(deps.db, job.id, FAILURE_STREAK_ALERT + 1);
  const streak = latest.findIndex((s) => s !== 'failed');
  if ((streak === -1 ? latest.length : streak) !== FAILURE_STREAK_ALERT) return;
  await deps.notify('ops.scheduler.task_alert', {
    tenantId: null,
    recipients,
    variables: { taskName: job.name, message: `the last ${FAILURE_STREAK_ALERT} runs failed; latest error: ${error}` },
    link,
    idempotencyKey: `cron-streak:${runId}`,
  });
}
