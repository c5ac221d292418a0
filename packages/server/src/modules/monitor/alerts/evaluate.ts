import type { Db } from '../../../platform/db/client.ts';
import { type AlertRuleRow, countEvents, type HitGroup, newGroups, topGroups } from './repository.ts';

/** What made a rule fire, kept on the alert log row. */
export type Hits = {
  trigger: 'report' | 'task' | 'test';
  condition: string;
  windowStart: string;
  windowEnd: string;
  count: number;
  previousCount?: number;
  /** the new issues (new_error) or the issues with the most events in the window, at most 10 */
  groups: HitGroup[];
};

const MINUTE = 60_000;

/**
 * Whether the rule hits at `now` (spec §4.6 rule 6), looking back one window:
 * new_error — an issue first seen in the window; threshold — events in the window ≥ threshold;
 * spike — that, and more than twice the events of the window before. Null when it does not hit.
 */
export async function evaluateRule(
  db: Db,
  rule: AlertRuleRow,
  now: Date,
  trigger: Hits['trigger'],
): Promise<Hits | null> {
  const start = new Date(now.getTime() - rule.windowMinutes * MINUTE);
  const base = { trigger, condition: rule.condition, windowStart: start.toISOString(), windowEnd: now.toISOString() };
  if (rule.condition === 'new_error') {
    const groups = await newGroups(db, rule, start, now);
    return groups.length ? { ...base, count: groups.length, groups } : null;
  }
  const count = await countEvents(db, rule, start, now);
  if (count < rule.threshold) return null;
  if (rule.condition === 'threshold') return { ...base, count, groups: await topGroups(db, rule, start, now) };
  const previousCount = await countEvents(db, rule, new Date(start.getTime() - rule.windowMinutes * MINUTE), start);
  if (count <= 2 * previousCount) return null;
  return { ...base, count, previousCount, groups: await topGroups(db, rule, start, now) };
}

/** The debounce window of the rule's last firing has passed (the condition the repository's `claimFiring` applies). */
export function isDue(rule: AlertRuleRow, now: Date): boolean {
  const last = rule.lastTriggeredAt;
  return last === null || last.getTime() <= now.getTime() - rule.windowMinutes * MINUTE;
}

/** A just-reported occurrence matches the rule's tenant and filters. */
export function reportMatches(
  rule: AlertRuleRow,
  r: { tenantId: number | null; type: string; level: string },
): boolean {
  return (
    rule.tenantId === r.tenantId &&
    (!rule.errorType || rule.errorType === r.type) &&
    (!rule.level || rule.level === r.level)
  );
}
