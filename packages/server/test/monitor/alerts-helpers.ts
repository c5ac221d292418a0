import { desc, eq } from 'drizzle-orm';
import { errorAlertLogs, errorAlertRules } from '../../src/modules/monitor/alerts/tables.ts';
import { errorEvents, errorGroups } from '../../src/modules/monitor/tables.ts';
import { call, type TestApp } from '../helpers/app.ts';

export const RULES = '/api/frontend-errors/alerts';
export const LOGS = '/api/frontend-errors/alert-logs';
export const EVALUATE = 'monitor.evaluateErrorAlerts';

export async function createRule(t: TestApp, token: string, body: Record<string, unknown>) {
  const res = await call(t.app, 'POST', RULES, { token, body });
  if (res.statusCode !== 201) throw new Error(`rule create failed: ${res.body}`);
  return res.json().data as { id: number; lastTriggeredAt: string | null };
}

export async function logsOf(t: TestApp, ruleId: number) {
  return t.database.db
    .select()
    .from(errorAlertLogs)
    .where(eq(errorAlertLogs.ruleId, ruleId))
    .orderBy(desc(errorAlertLogs.id));
}

export async function ruleRow(t: TestApp, id: number) {
  const [r] = await t.database.db.select().from(errorAlertRules).where(eq(errorAlertRules.id, id));
  if (!r) throw new Error(`no rule ${id}`);
  return r;
}

export async function runEvaluate(t: TestApp) {
  const task = t.app.ctx.jobs.systemTask(EVALUATE);
  if (!task) throw new Error(`no system task ${EVALUATE}`);
  return task.handler({}, { trigger: 'manual', cronJobId: 0, runId: 0, log: t.app.ctx.log }) as Promise<{
    evaluated: number;
    fired: number;
  }>;
}

let seq = 0;
/** An issue with `n` events at `at` (test setup written directly: the report path is tested elsewhere). */
export async function seedEvents(
  t: TestApp,
  tenantId: number,
  at: Date,
  n: number,
  o: { type?: 'js_error' | 'http_error'; level?: 'error' | 'warning'; groupId?: number } = {},
): Promise<number> {
  const type = o.type ?? 'js_error';
  const level = o.level ?? 'error';
  let groupId = o.groupId;
  if (!groupId) {
    const [g] = await t.database.db
      .insert(errorGroups)
      .values({
        tenantId,
        fingerprint: `seed-${process.pid}-${++seq}`,
        environment: 'production',
        type,
        level,
        message: `seeded ${seq}`,
        normalizedMessage: `seeded ${seq}`,
        eventCount: n,
        firstSeenAt: at,
        lastSeenAt: at,
      })
      .returning();
    if (!g) throw new Error('group insert failed');
    groupId = g.id;
  }
  if (n > 0)
    await t.database.db.insert(errorEvents).values(
      Array.from({ length: n }, () => ({
        tenantId,
        groupId: groupId as number,
        type,
        level,
        message: 'seeded',
        environment: 'production',
        createdAt: at,
      })),
    );
  return groupId;
}

/** Polls until `probe` answers something (report-time evaluation runs after the response). */
export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
