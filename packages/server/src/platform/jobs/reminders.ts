const DAY_MS = 86_400_000;

/**
 * For a daily task that reminds of an expiry: the reminder (days before `expiresAt`, 0 for the
 * expiry itself) whose moment fell within the last day, or null. Each moment is crossed by one
 * daily run, so each reminder goes out once; callers add an idempotency key against reruns.
 */
export function reminderDue(expiresAt: Date, daysBefore: readonly number[], now: Date): number | null {
  const from = now.getTime() - DAY_MS;
  for (const days of daysBefore) {
    const moment = expiresAt.getTime() - days * DAY_MS;
    if (moment > from && moment <= now.getTime()) return days;
  }
  return null;
}
