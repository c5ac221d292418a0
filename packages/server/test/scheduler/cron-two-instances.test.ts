import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cronJobRuns } from '../../src/modules/scheduler/tables.ts';
import { defineSystemTask } from '../../src/platform/jobs/define.ts';
import { call, createTwoInstances, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/assert.ts';

/**
 * Two instances on one PostgreSQL database, both working the `scheduler.cron` queue: a tick that
 * reaches the queue more than once (both instances' timekeepers sending it, a redelivery after a
 * crash) runs once. Driven by the clock rather than waited for: the ticks are jobs whose
 * `created_on` is set to a chosen instant, as pg-boss stamps the jobs its timekeeper sends; the
 * job's schedule (once a year) never fires by itself during the test.
 */
const CRON = '0 0 1 1 *';
/** a uuid list as one PostgreSQL array literal (Drizzle would send a JavaScript array as a record) */
const pgArray = (ids: string[]) => `{${ids.join(',')}}`;
const env = { JOBS_POLL_SECONDS: '1' };

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

  it('has one schedule, and runs each tick once however often it is delivered', async () => {
    const res = await call(a.app, 'POST', '/api/cron-jobs', {
      token: a.adminToken,
      body: { name: 'new-year', handler: 'test.tick', cron: CRON },
    });
    expect(res.statusCode, res.body).toBe(201);
    const jobId: number = res.json().data.id;
    const db = a.database.db;
    // one pg-boss schedule for the job, whichever instance asks
    for (const t of [a, b])
      expect((await t.app.scheduler.cron.schedules()).filter((s) => s.key === String(jobId))).toHaveLength(1);

    // a tick delivered `times` times, alternately through each instance, stamped at `at`
    const payload = { cronJobId: jobId, cron: CRON, timezone: 'UTC' };
    const deliver = (at: string, times: number) =>
      db.transaction(async (tx) => {
        const ids: string[] = [];
        for (let i = 0; i < times; i++) {
          const id = await (i % 2 ? b : a).app.scheduler.cron.send(payload, { tx });
          if (id) ids.push(id);
        }
        await tx.execute(
          sql`update pgboss.job set created_on = ${at}::timestamptz where id = any(${pgArray(ids)}::uuid[])`,
        );
        return ids;
      });
    const jobs = [...(await deliver('2026-01-01T00:00:20Z', 4)), ...(await deliver('2027-01-01T00:00:05Z', 2))];
    expect(jobs).toHaveLength(6);
    // every delivery handled (completed), so nothing more can come
    const unfinished = async () => {
      const r = await db.execute(
        sql`select count(*)::int as n from pgboss.job where id = any(${pgArray(jobs)}::uuid[]) and state <> 'completed'`,
      );
      return (r as unknown as { rows: { n: number }[] }).rows[0]?.n;
    };
    expect(await eventually(async () => (await unfinished()) === 0, 60_000)).toBe(true);

    const runs = await db.select().from(cronJobRuns).where(eq(cronJobRuns.jobId, jobId)).orderBy(cronJobRuns.id);
    expect(runs.map((r) => [r.trigger, r.status, r.scheduledAt?.toISOString()]).sort()).toEqual([
      ['scheduled', 'success', '2026-01-01T00:00:00.000Z'],
      ['scheduled', 'success', '2027-01-01T00:00:00.000Z'],
    ]);
    expect(ranOn).toHaveLength(2);
  });
});
