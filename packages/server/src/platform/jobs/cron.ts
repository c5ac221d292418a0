import { CronExpressionParser } from 'cron-parser';

/**
 * Cron expressions and time zones, checked the way the scheduler (pg-boss, cron-parser) reads
 * them. Schedules fire at most once a minute, so an expression has the five classic fields
 * (minute hour day-of-month month day-of-week) or is one of the @-aliases; a seconds field would
 * promise ticks that never happen.
 */
const ALIASES = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** The canonical IANA name of a time zone (`asia/shanghai` → `Asia/Shanghai`), or null. */
export function canonicalTimezone(tz: string): string | null {
  // Offsets (+05:00) and abbreviations with digits are not zone names.
  if (!/^[A-Za-z][A-Za-z_]*(?:\/[A-Za-z0-9_+-]+)*$/.test(tz)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Why an expression cannot be scheduled, or null when it can. */
export function cronProblem(cron: string, timezone = 'UTC'): string | null {
  const text = cron.trim();
  if (!ALIASES.has(text.toLowerCase()) && text.split(/\s+/).length !== 5) {
    return 'must have 5 fields (minute hour day-of-month month day-of-week) or be an @-alias such as @daily';
  }
  try {
    CronExpressionParser.parse(text, { tz: timezone, strict: false });
    return null;
  } catch (err) {
    return `is not a valid cron expression: ${(err as Error).message}`;
  }
}

/** The next `count` fire times after `from`. */
export function nextRuns(cron: string, timezone: string, from: Date, count: number): Date[] {
  const it = CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: from, strict: false });
  return it.take(count).map((d) => d.toDate());
}

/** The tick a run started at `at` belongs to: the last fire time at or before it. */
export function tickAt(cron: string, timezone: string, at: Date): Date {
  const it = CronExpressionParser.parse(cron.trim(), {
    tz: timezone,
    currentDate: new Date(at.getTime() + 1),
    strict: false,
  });
  return it.prev().toDate();
}
