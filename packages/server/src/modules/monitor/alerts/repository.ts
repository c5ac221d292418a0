import { and, desc, eq, isNotNull, isNull, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { platformKey, sameTenantKey } from '../../../platform/db/tenant-key.ts';
import { type AlertCondition, errorAlertLogs, errorAlertRules } from './tables.ts';

/** Alert rules and their log; every tenant-facing query goes through the tenant scope. */
type TenantScope = Pick<Scope, 'tenantId'>;

export type AlertRuleRow = typeof errorAlertRules.$inferSelect;
export type AlertLogRow = typeof errorAlertLogs.$inferSelect;
export type HitGroup = { id: number; message: string; type: string; level: string };

const rules = scoped(errorAlertRules);
const logs = scoped(errorAlertLogs);

export const findRule = (db: Db, scope: TenantScope, id: number) => rules.findById(db, scope, id);

export function pageRules(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { enabled?: boolean; condition?: AlertCondition },
) {
  const filter = and(
    q.enabled !== undefined ? eq(errorAlertRules.enabled, q.enabled) : undefined,
    q.condition ? eq(errorAlertRules.condition, q.condition) : undefined,
  );
  return rules.page(db, scope, q, filter);
}

export const insertRule = (
  db: Db,
  scope: TenantScope,
  row: Omit<typeof errorAlertRules.$inferInsert, 'id' | 'tenantId'>,
) => rules.insert(db, scope, row);

export const updateRule = (db: Db, scope: TenantScope, id: number, patch: Partial<AlertRuleRow>) =>
  rules.update(db, scope, id, patch);

/** true when the rule existed */
export async function deleteRule(db: Db, scope: TenantScope, id: number): Promise<boolean> {
  const gone = await rules.deleteMany(db, scope, [id]);
  return gone.length > 0;
}

export function pageLogs(db: Db, scope: TenantScope, q: PageRequest & { ruleId?: number; test?: boolean }) {
  const filter = and(
    q.ruleId !== undefined ? eq(errorAlertLogs.ruleId, q.ruleId) : undefined,
    q.test !== undefined ? eq(errorAlertLogs.test, q.test) : undefined,
  );
  return logs.page(db, scope, q, filter, desc(errorAlertLogs.id));
}

export async function insertLog(db: Db, row: Omit<typeof errorAlertLogs.$inferInsert, 'id'>): Promise<AlertLogRow> {
  const [inserted] = await db
    .insert(errorAlertLogs)
    .values({ ...row, tenantId: platformKey(row.tenantId) })
    .returning();
  if (!inserted) throw new Error('alert log insert returned nothing');
  return inserted;
}

/** The enabled rules of one tenant (null: the platform), for the rule cache. */
export function enabledRules(db: Db, tenantId: number | null): Promise<AlertRuleRow[]> {
  return db
    .select()
    .from(errorAlertRules)
    .where(and(eq(errorAlertRules.enabled, true), sameTenantKey(errorAlertRules.tenantId, tenantId)))
    .orderBy(errorAlertRules.id);
}

/** Enabled rules of every tenant whose debounce window has passed. */
export function dueRules(db: Db, now: Date): Promise<AlertRuleRow[]> {
  return db
    .select()
    .from(errorAlertRules)
    .where(
      and(
        eq(errorAlertRules.enabled, true),
        sql`(${errorAlertRules.lastTriggeredAt} IS NULL OR ${errorAlertRules.lastTriggeredAt} <= ${now.toISOString()}::timestamptz - make_interval(mins => ${errorAlertRules.windowMinutes}))`,
      ),
    )
    .orderBy(errorAlertRules.id);
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

// What a rule counts: the monitor's error tables, read here for evaluation only.
type Row = Record<string, unknown>;
const rowsOf = (r: unknown) => (r as { rows: Row[] }).rows;

/** The rule's tenant and optional type/level filters, on a table aliased `x`. */
function filters(rule: AlertRuleRow): SQL {
  const parts = [sql`x.tenant_id = ${platformKey(rule.tenantId)}`];
  if (rule.errorType) parts.push(sql`x.type = ${rule.errorType}`);
  if (rule.level) parts.push(sql`x.level = ${rule.level}`);
  return sql.join(parts, sql` AND `);
}

const groupOf = (r: Row): HitGroup => ({
  id: Number(r.id),
  message: String(r.message),
  type: String(r.type),
  level: String(r.level),
});

/** Events matching the rule in (from, to]. */
export async function countEvents(db: Db, rule: AlertRuleRow, from: Date, to: Date): Promise<number> {
  const [r] = rowsOf(
    await db.execute(sql`SELECT count(*)::int AS n FROM error_events x WHERE ${filters(rule)}
      AND x.created_at > ${from.toISOString()}::timestamptz AND x.created_at <= ${to.toISOString()}::timestamptz`),
  );
  return Number(r?.n ?? 0);
}

/** The issues with the most matching events in (from, to], at most 10. */
export async function topGroups(db: Db, rule: AlertRuleRow, from: Date, to: Date): Promise<HitGroup[]> {
  const rows = rowsOf(
    await db.execute(sql`SELECT g.id, g.message, g.type, g.level FROM error_groups g
      JOIN (SELECT x.group_id, count(*) AS n FROM error_events x WHERE ${filters(rule)}
              AND x.created_at > ${from.toISOString()}::timestamptz AND x.created_at <= ${to.toISOString()}::timestamptz
            GROUP BY x.group_id ORDER BY n DESC, x.group_id LIMIT 10) c ON c.group_id = g.id
      ORDER BY c.n DESC, g.id`),
  );
  return rows.map(groupOf);
}

/** The matching issues first seen in (from, to], newest first, at most 10. */
export async function newGroups(db: Db, rule: AlertRuleRow, from: Date, to: Date): Promise<HitGroup[]> {
  const rows = rowsOf(
    await db.execute(sql`SELECT x.id, x.message, x.type, x.level FROM error_groups x WHERE ${filters(rule)}
        AND x.first_seen_at > ${from.toISOString()}::timestamptz AND x.first_seen_at <= ${to.toISOString()}::timestamptz
        ORDER BY x.first_seen_at DESC, x.id DESC LIMIT 10`),
  );
  return rows.map(groupOf);
}

/** Rules with a webhook URL and no signing secret: saved before alert webhooks were signed. */
export function rulesWithoutSecret(db: Db): Promise<AlertRuleRow[]> {
  return db
    .select()
    .from(errorAlertRules)
    .where(and(isNotNull(errorAlertRules.webhookUrl), isNull(errorAlertRules.secretEncrypted)));
}

/** Stores a first secret unless another instance stored one meanwhile; true when this one did. */
export async function setSecretIfMissing(db: Db, id: number, secret: Partial<AlertRuleRow>): Promise<boolean> {
  const rows = await db
    .update(errorAlertRules)
    .set(secret)
    .where(and(eq(errorAlertRules.id, id), isNull(errorAlertRules.secretEncrypted)))
    .returning({ id: errorAlertRules.id });
  return rows.length > 0;
}
