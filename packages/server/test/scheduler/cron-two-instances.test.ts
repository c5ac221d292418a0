import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cronJobRuns } from '../../src/modules/scheduler/tables.ts';
import { defineSystemTask } from '../../src/platform/jobs/define.ts';
import { call, createTwoInstances, type TestApp } from '../helpers/app.ts';

/**
 * Two instances on one PostgreSQL database, both evaluating the cron schedules every second
 * (JOBS_CRON_CHECK_SECONDS=1): a job scheduled every minute — the finest tick pg-boss has —
 * runs exactly once per tick. The first tick comes at once (pg-boss fires a schedule created
 * within the minute of a tick), the second at the next minute: the test takes up to ~70 s.
 */
const env = { JOBS_CRON_CHECK_SECONDS: '1', JOBS_POLL_SECONDS: '1' };

describe('a cron job on two instances', () => {
  let close: () => Promise<void>;
  let a: TestApp;
  let b: TestApp;
  const ranOn: string[] = [];

  beforeAll(async () => {
    ({ a, b, close } = await createTwoInstances({ env }));
    for (const [name, t] of [
      ['a', a],
      ['b', b],
    ] as const) {
      t.app.ctx.jobs.register({
        tick: defineSystemTask({
          name: 'test.tick',
          handler: async () => {
            ranOn.push(name);
            return { instance: name };
          },
        }),
      });
    }
  });
  afterAll(async () => close?.());

  it('fires once per tick across the instances', { timeout: 180_000 }, async () => {
    const res = await call(a.app, 'POST', '/api/cron-jobs', {
      token: a.adminToken,
      body: { name: 'every-minute', handler: 'test.tick', cron: '* * * * *' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const jobId: number = res.json().data.id;
    const db = a.database.db;
    const runs = () => db.select().from(cronJobRuns).where(eq(cronJobRuns.jobId, jobId)).orderBy(cronJobRuns.id);

    // Wait for two ticks to have finished runs.
    for (;;) {
      const rows = await runs();
      const done = rows.filter((r) => r.status === 'success');
      if (new Set(done.map((r) => r.scheduledAt?.toISOString())).size >= 2) break;
      await new Promise((r) => setTimeout(r, 500));
    }

    const rows = await runs();
    const perTick = new Map<string, number>();
    for (const r of rows) {
      expect(r).toMatchObject({ trigger: 'scheduled', status: 'success' });
      const tick = r.scheduledAt?.toISOString() as string;
      perTick.set(tick, (perTick.get(tick) ?? 0) + 1);
    }
    expect([...perTick.values()].every((n) => n === 1)).toBe(true);
    expect(ranOn).toHaveLength(rows.length);
    // pg-boss itself sent one job per tick: the unique run index had nothing to refuse.
    const sent = await db.execute(
      sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = ${a.app.scheduler.cron.name} AND (data->>'cronJobId')::int = ${jobId}`,
    );
    expect((sent as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(rows.length);
  });
});
