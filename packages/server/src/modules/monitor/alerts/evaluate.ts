import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { errorAlertRules } from './tables.ts';

export type AlertRuleRow = typeof errorAlertRules.$inferSelect;
export type HitGroup = { id: number; message: string; type: string; level: string };
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

type Row = Record<string, unknown>;
const rowsOf = (r: unknown) => (r as { rows: Row[] }).rows;
const MINUTE = 60_000;

/** The rule's tenant and optional type/level filters, on a table aliased `x`. */
function filters(rule: AlertRuleRow): SQL {
  const parts = [sql`x.tenant_id IS NOT DISTINCT FROM ${rule.tenantId}`];
  if (rule.errorType) parts.push(sql`x.type = ${rule.errorType}`);
  if (rule.level) parts.push(sql`x.level = ${rule.level}`);
  return sql.join(parts, sql` AND `);
}

async function countEvents(db: Db, rule: AlertRuleRow, from: Date, to: Date): Promise<number> {
  const [r] = rowsOf(
    await db.execute(sql`SELECT count(*)::int AS n FROM error_events x WHERE ${filters(rule)}
      AND x.created_at > ${from.toISOString()}::timestamptz AND x.created_at <= ${to.toISOString()}::timestamptz`),
  );
  return Number(r?.n ?? 0);
}

async function topGroups(db: Db, rule: AlertRuleRow, from: Date, to: Date): Promise<HitGroup[]> {
  const rows = rowsOf(
    await db.execute(sql`SELECT g.id, g.message, g.type, g.level FROM error_groups g
      JOIN (SELECT x.group_id, count(*) AS n FROM error_events x WHERE ${filters(rule)}
              AND x.created_at > ${from.toISOString()}::timestamptz AND x.created_at <= ${to.toISOString()}::timestamptz
            GROUP BY x.group_id ORDER BY n DESC, x.group_id LIMIT 10) c ON c.group_id = g.id
      ORDER BY c.n DESC, g.id`),
  );
  return rows.map(groupOf);
}

const groupOf = (r: Row): HitGroup => ({
  id: Number(r.id),
  message: String(r.message),
  type: String(r.type),
  level: String(r.level),
});

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
    const rows = rowsOf(
      await db.execute(sql`SELECT x.id, x.message, x.type, x.level FROM error_groups x WHERE ${filters(rule)}
        AND x.first_seen_at > ${start.toISOString()}::timestamptz AND x.first_seen_at <= ${now.toISOString()}::timestamptz
        ORDER BY x.first_seen_at DESC, x.id DESC LIMIT 10`),
    );
    return rows.length ? { ...base, count: rows.length, groups: rows.map(groupOf) } : null;
  }
  const count = await countEvents(db, rule, start, now);
  if (count < rule.threshold) return null;
  if (rule.condition === 'threshold') return { ...base, count, groups: await topGroups(db, rule, start, now) };
  const previousCount = await countEvents(db, rule, new Date(start.getTime() - rule.windowMinutes * MINUTE), start);
  if (count <= 2 * previousCount) return null;
  return { ...base, count, previousCount, groups: await topGroups(db, rule, start, now) };
}

/** The debounce window of the rule's last firing has passed (the condition `claimFiring` applies). */
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

/**
 * The debounce (spec §4.6 rule 6): one atomic conditional update. Of several instances evaluating
 * the same rule at once, exactly one gets the row back and delivers; the rest see nothing. The row
 * is the rule as it is now: delivery follows its current channels and recipients, whatever copy
 * the caller evaluated.
 */
export async function claimFiring(db: Db, ruleId: number, now: Date): Promise<AlertRuleRow | null> {
  const at = now.toISOString();
  const [row] = await db
    .update(errorAlertRules)
    .set({ lastTriggeredAt: now })
    .where(
      and(
        eq(errorAlertRules.id, ruleId),
        eq(errorAlertRules.enabled, true),
        sql`(${errorAlertRules.lastTriggeredAt} IS NULL
             OR ${errorAlertRules.lastTriggeredAt} <= ${at}::timestamptz - make_interval(mins => ${errorAlertRules.windowMinutes}))`,
      ),
    )
    .returning();
  return row ?? null;
}
