/**
 * The delivery policy, in one place (documented in docs/webhooks.md).
 *
 * Retries: the first attempt goes out right after the emitting transaction commits; a failed
 * attempt is retried after 1 min, 5 min, 30 min, 2 h, 8 h and 24 h (7 attempts over about
 * 35 hours), then the delivery is `failed`. Like Svix's schedule, without jitter: the sweeper
 * runs once a minute, which spreads retries enough.
 */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000, 24 * 3_600_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * Auto-disable: a subscription is disabled once it has failed DISABLE_AFTER_FAILURES attempts in
 * a row AND has not succeeded for DISABLE_AFTER_FAILING_MS. The count alone would disable a busy
 * receiver after a one-minute outage (ten events fail at once); the time alone would disable a
 * quiet one over a single bad event. Stripe and Svix also disable only after days of failure.
 */
export const DISABLE_AFTER_FAILURES = 10;
export const DISABLE_AFTER_FAILING_MS = 24 * 3_600_000;

/* Each attempt's deadline (10 s) and answer cap (1 MiB) are the kernel's: platform/egress/webhook.ts. */
/** How much of the answer the attempt log keeps. */
export const RESPONSE_EXCERPT_BYTES = 2048;
/** How long a claimed delivery is this instance's; after it, the sweeper may take it again. */
export const LEASE_MS = 5 * 60_000;
/** Finished deliveries (and their attempts) are kept this long. */
export const RETENTION_MS = 30 * 86_400_000;

/** When the attempt numbered `attempt` failed: the next one's time, or null when it was the last. */
export function nextAttemptAt(attempt: number, now: Date): Date | null {
  const delay = RETRY_DELAYS_MS[attempt - 1];
  return delay === undefined ? null : new Date(now.getTime() + delay);
}
