import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cronJobRuns, cronJobs } from '../../src/modules/scheduler/tables.ts';
import { defineSystemTask } from '../../src/platform/jobs/define.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';

/** The cron jobs admin: CRUD, validation, schedules kept in step, run now, run log, access. */
let t: TestApp;
const calls: Record<string, unknown>[] = [];
beforeAll(async () => {
  t = await createTestApp();
  t.app.ctx.jobs.register({
    echo: defineSystemTask({
      name: 'test.echo',
      description: 'answers its params',
      handler: async (params) => {
        calls.push(params);
        return { echoed: params };
      },
    }),
    fail: defineSystemTask({
      name: 'test.fail',
      handler: async () => {
        throw new Error('disk full');
      },
    }),
  });
});
afterAll(async () => t?.close());

type Job = { id: number; name: string; cron: string; enabled: boolean; nextRunAt: string | null };
const admin = () => ({ token: t.adminToken });
const cron = () => t.app.scheduler.cron;
const schedules = () => cron().schedules();
const scheduleOf = async (id: number) => (await schedules()).find((s) => s.key === String(id));

async function until<T>(check: () => Promise<T | null | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function createJob(body: Record<string, unknown> = {}): Promise<Job> {
  const res = await call(t.app, 'POST', '/api/cron-jobs', {
    ...admin(),
    body: { name: `job-${Math.random().toString(36).slice(2, 8)}`, handler: 'test.echo', cron: '*/5 * * * *', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('cron jobs CRUD', () => {
  it('creates, reads, lists, updates, disables, enables and deletes a job, keeping its schedule in step', async () => {
    const created = await createJob({
      name: 'nightly-echo',
      cron: '0 9 * * 1-5',
      timezone: 'asia/shanghai',
      params: { depth: 2 },
      remark: 'weekdays',
    });
    expect(created).toMatchObject({
      name: 'nightly-echo',
      handler: 'test.echo',
      cron: '0 9 * * 1-5',
      timezone: 'Asia/Shanghai',
      params: { depth: 2 },
      enabled: true,
      builtin: false,
      lastRunAt: null,
    });
    expect(new Date(created.nextRunAt as string).getUTCHours()).toBe(1); // 09:00 in Shanghai
    expect(await scheduleOf(created.id)).toMatchObject({ cron: '0 9 * * 1-5', timezone: 'Asia/Shanghai' });

    const got = await call(t.app, 'GET', `/api/cron-jobs/${created.id}`, admin());
    expect(got.json().data).toMatchObject({ id: created.id, name: 'nightly-echo' });
    const list = await call(t.app, 'GET', '/api/cron-jobs?keyword=NIGHTLY', admin());
    expect(list.json().data).toMatchObject({ total: 1, page: 1, pageSize: 20 });
    expect(list.json().data.list[0].id).toBe(created.id);

    const upd = await call(t.app, 'PUT', `/api/cron-jobs/${created.id}`, {
      ...admin(),
      body: { cron: '15 * * * *', params: { depth: 3 } },
    });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json().data).toMatchObject({ cron: '15 * * * *', params: { depth: 3 }, timezone: 'Asia/Shanghai' });
    expect(await scheduleOf(created.id)).toMatchObject({ cron: '15 * * * *' });

    const off = await call(t.app, 'POST', `/api/cron-jobs/${created.id}/disable`, admin());
    expect(off.json().data).toMatchObject({ enabled: false, nextRunAt: null });
    expect(await scheduleOf(created.id)).toBeUndefined();
    const on = await call(t.app, 'POST', `/api/cron-jobs/${created.id}/enable`, admin());
    expect(on.json().data.enabled).toBe(true);
    expect(await scheduleOf(created.id)).toMatchObject({ cron: '15 * * * *' });

    expect((await call(t.app, 'DELETE', `/api/cron-jobs/${created.id}`, admin())).statusCode).toBe(200);
    expect(await rowById(t, cronJobs, created.id)).toBeUndefined();
    expect(await scheduleOf(created.id)).toBeUndefined();
    expectError(await call(t.app, 'GET', `/api/cron-jobs/${created.id}`, admin()), 404, 'scheduler.cron_job_not_found');
  });

  it('creates a disabled job without a schedule', async () => {
    const job = await createJob({ enabled: false });
    expect(job).toMatchObject({ enabled: false, nextRunAt: null });
    expect(await scheduleOf(job.id)).toBeUndefined();
  });

  it('answers 409 naming name for a name in use, on create and on rename', async () => {
    await createJob({ name: 'twice' });
    const before = await rowCount(t, cronJobs);
    const res = await call(t.app, 'POST', '/api/cron-jobs', {
      ...admin(),
      body: { name: 'twice', handler: 'test.echo', cron: '* * * * *' },
    });
    expectError(res, 409, 'scheduler.cron_job_exists', 'name');
    expect(await rowCount(t, cronJobs)).toBe(before);
    const other = await createJob();
    expectError(
      await call(t.app, 'PUT', `/api/cron-jobs/${other.id}`, { ...admin(), body: { name: 'twice' } }),
      409,
      'scheduler.cron_job_exists',
      'name',
    );
    expect(await rowById(t, cronJobs, other.id)).toMatchObject({ name: other.name });
  });

  it('seeds a built-in job per system task with a schedule: it keeps name and handler and cannot be deleted', async () => {
    const [builtin] = await t.database.db.select().from(cronJobs).where(eq(cronJobs.name, 'scheduler.pruneRuns'));
    expect(builtin).toMatchObject({ handler: 'scheduler.pruneRuns', cron: '30 3 * * *', builtin: true, enabled: true });
    const id = builtin?.id as number;
    expect(await scheduleOf(id)).toMatchObject({ cron: '30 3 * * *' });
    expectError(await call(t.app, 'DELETE', `/api/cron-jobs/${id}`, admin()), 409, 'scheduler.cron_job_builtin');
    expectError(
      await call(t.app, 'PUT', `/api/cron-jobs/${id}`, { ...admin(), body: { name: 'renamed' } }),
      409,
      'scheduler.cron_job_builtin',
      'name',
    );
    const res = await call(t.app, 'PUT', `/api/cron-jobs/${id}`, { ...admin(), body: { cron: '45 4 * * *' } });
    expect(res.json().data).toMatchObject({ cron: '45 4 * * *', builtin: true });
    expect(await rowById(t, cronJobs, id)).toMatchObject({ name: 'scheduler.pruneRuns', cron: '45 4 * * *' });
  });
});

describe('validation', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['an unregistered handler', { handler: 'nope.missing' }, 'handler'],
    ['a cron value out of range', { cron: '61 * * * *' }, 'cron'],
    ['a cron with a seconds field', { cron: '*/5 * * * * *' }, 'cron'],
    ['a cron with three fields', { cron: '* * *' }, 'cron'],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, 'timezone'],
    ['an offset instead of a zone', { timezone: '+05:00' }, 'timezone'],
    ['an empty name', { name: '' }, 'name'],
    ['params that are not an object', { params: [1, 2] }, 'params'],
  ];
  for (const [what, patch, field] of cases) {
    it(`refuses ${what} with 400 naming ${field} and writes nothing`, async () => {
      const before = await rowCount(t, cronJobs);
      const res = await call(t.app, 'POST', '/api/cron-jobs', {
        ...admin(),
        body: { name: 'invalid', handler: 'test.echo', cron: '* * * * *', ...patch },
      });
      expectError(res, 400, 'request.validation_failed', field);
      expect(await rowCount(t, cronJobs)).toBe(before);
    });
  }

  it('refuses a bad update with 400 and leaves the row and its schedule unchanged', async () => {
    const job = await createJob({ cron: '10 * * * *' });
    const res = await call(t.app, 'PUT', `/api/cron-jobs/${job.id}`, {
      ...admin(),
      body: { cron: '10 25 * * *', handler: 'nope' },
    });
    expectError(res, 400, 'request.validation_failed', 'cron');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain('handler');
    expect(await rowById(t, cronJobs, job.id)).toMatchObject({ cron: '10 * * * *', handler: 'test.echo' });
    expect(await scheduleOf(job.id)).toMatchObject({ cron: '10 * * * *' });
  });

  it('answers 404 for an unknown id', async () => {
    expectError(
      await call(t.app, 'PUT', '/api/cron-jobs/999999', { ...admin(), body: { enabled: false } }),
      404,
      'scheduler.cron_job_not_found',
    );
    expectError(await call(t.app, 'POST', '/api/cron-jobs/999999/run', admin()), 404, 'scheduler.cron_job_not_found');
    expectError(await call(t.app, 'GET', '/api/cron-jobs/999999/runs', admin()), 404, 'scheduler.cron_job_not_found');
  });
});

describe('handlers and preview', () => {
  it('lists the registered handlers', async () => {
    const res = await call(t.app, 'GET', '/api/cron-jobs/handlers', admin());
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual(
      expect.arrayContaining([
        { name: 'test.echo', description: 'answers its params', schedule: null, timezone: 'UTC' },
        expect.objectContaining({ name: 'scheduler.pruneRuns', schedule: '30 3 * * *' }),
      ]),
    );
  });

  it('previews the next run times in a time zone', async () => {
    const res = await call(t.app, 'POST', '/api/cron-jobs/preview', {
      ...admin(),
      body: { cron: '0 9 * * *', timezone: 'Asia/Shanghai', count: 3 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const times: string[] = res.json().data.times;
    expect(times).toHaveLength(3);
    for (const time of times) expect(time).toMatch(/T01:00:00\.000Z$/);
    expect(new Date(times[0] as string).getTime()).toBeGreaterThan(Date.now());
    expect(Date.parse(times[1] as string) - Date.parse(times[0] as string)).toBe(86_400_000);
  });

  it('refuses a bad expression or count with 400 naming the field', async () => {
    const bad = (body: object) => call(t.app, 'POST', '/api/cron-jobs/preview', { ...admin(), body });
    expectError(await bad({ cron: 'every day' }), 400, 'request.validation_failed', 'cron');
    expectError(
      await bad({ cron: '* * * * *', timezone: 'Nowhere/Land' }),
      400,
      'request.validation_failed',
      'timezone',
    );
    expectError(await bad({ cron: '* * * * *', count: 51 }), 400, 'request.validation_failed', 'count');
  });
});

describe('runs', () => {
  type Run = {
    id: number;
    trigger: string;
    status: string;
    durationMs: number | null;
    result: unknown;
    error: string | null;
  };
  const runsOf = async (id: number): Promise<Run[]> =>
    (await call(t.app, 'GET', `/api/cron-jobs/${id}/runs`, admin())).json().data.list;
  const finished = (id: number, runId: number) =>
    until(async () => (await runsOf(id)).find((r) => r.id === runId && r.status !== 'running'));

  it('runs now: a manual run row, then its duration and result, also for a disabled job', async () => {
    const job = await createJob({ params: { hello: 'world' }, enabled: false });
    const res = await call(t.app, 'POST', `/api/cron-jobs/${job.id}/run`, admin());
    expect(res.statusCode, res.body).toBe(201);
    const run = res.json().data;
    expect(run).toMatchObject({ jobId: job.id, handler: 'test.echo', trigger: 'manual', status: 'running' });
    const done = await finished(job.id, run.id);
    expect(done).toMatchObject({ status: 'success', result: { echoed: { hello: 'world' } }, error: null });
    expect(done.durationMs).toBeGreaterThanOrEqual(0);
    expect(await rowById(t, cronJobs, job.id)).toMatchObject({ lastStatus: 'success' });
    expect(await rowById(t, cronJobRuns, run.id)).toMatchObject({ triggeredBy: expect.any(Number) });
  });

  it('records a failing handler as a failed run with its error', async () => {
    const job = await createJob({ handler: 'test.fail' });
    const run = (await call(t.app, 'POST', `/api/cron-jobs/${job.id}/run`, admin())).json().data;
    const done = await finished(job.id, run.id);
    expect(done).toMatchObject({ status: 'failed', error: 'disk full', result: null });
    const failedOnly = await call(t.app, 'GET', `/api/cron-jobs/${job.id}/runs?status=failed&trigger=manual`, admin());
    expect(failedOnly.json().data.total).toBe(1);
  });

  it('runs a fired tick once, skips a repeat of that tick, and realigns a stale schedule', async () => {
    const job = await createJob({ cron: '* * * * *', params: { tick: true } });
    const payload = { cronJobId: job.id, cron: '* * * * *', timezone: 'UTC' };
    const completed = (id: string | null) =>
      until(async () => (await t.app.ctx.jobs.getJob(cron().name, id as string))?.state === 'completed');
    // What pg-boss sends when the schedule fires; twice, as if two instances had raced.
    const fired = [await cron().send(payload), await cron().send(payload)];
    for (const id of fired) await completed(id);
    const runs = await runsOf(job.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: 'scheduled', status: 'success', result: { echoed: { tick: true } } });
    const run = await rowById(t, cronJobRuns, runs[0]?.id as number);
    expect(run?.scheduledAt?.getUTCSeconds()).toBe(0);
    expect(run?.startedAt.getTime()).toBeGreaterThanOrEqual(run?.scheduledAt?.getTime() as number);

    // A schedule fired with an old expression is not run; the schedule is set back to the row's.
    await cron().unschedule(String(job.id));
    await completed(await cron().send({ ...payload, cron: '*/2 * * * *' }));
    expect(await scheduleOf(job.id)).toMatchObject({ cron: '* * * * *' });
    expect(await runsOf(job.id)).toHaveLength(1);
  });
});

describe('access', () => {
  it('refuses users without the permission (403) and writes nothing', async () => {
    const nobody = await createUserWithPermissions(t, []);
    expectError(await call(t.app, 'GET', '/api/cron-jobs', { token: nobody.token }), 403, 'auth.permission_denied');
    const before = await rowCount(t, cronJobs);
    const res = await call(t.app, 'POST', '/api/cron-jobs', {
      token: nobody.token,
      body: { name: 'denied', handler: 'test.echo', cron: '* * * * *' },
    });
    expectError(res, 403, 'auth.permission_denied');
    expect(await rowCount(t, cronJobs)).toBe(before);
  });

  it('refuses a tenant administrator and tenant scope (403), changing nothing', async () => {
    const job = await createJob({ cron: '7 * * * *' });
    const runsBefore = await rowCount(t, cronJobRuns);
    const tenantAdmin = { token: t.demoAdminToken };
    for (const [method, url, body] of [
      ['GET', '/api/cron-jobs', undefined],
      ['GET', '/api/cron-jobs/handlers', undefined],
      ['POST', '/api/cron-jobs', { name: 'tenant', handler: 'test.echo', cron: '* * * * *' }],
      ['PUT', `/api/cron-jobs/${job.id}`, { cron: '8 * * * *' }],
      ['POST', `/api/cron-jobs/${job.id}/disable`, undefined],
      ['POST', `/api/cron-jobs/${job.id}/run`, undefined],
      ['DELETE', `/api/cron-jobs/${job.id}`, undefined],
    ] as const) {
      expectError(await call(t.app, method, url, { ...tenantAdmin, body }), 403, 'auth.permission_denied');
    }
    // Holding the platform code in a tenant role, or a super administrator inside a tenant: still no.
    const granted = await createUserWithPermissions(t, [
      'platform:cron:list',
      'platform:cron:update',
      'platform:cron:run',
    ]);
    expectError(
      await call(t.app, 'GET', '/api/cron-jobs', { token: granted.token }),
      403,
      'auth.platform_scope_required',
    );
    expectError(
      await call(t.app, 'POST', `/api/cron-jobs/${job.id}/run`, { token: granted.token }),
      403,
      'auth.platform_scope_required',
    );
    expectError(
      await call(t.app, 'PUT', `/api/cron-jobs/${job.id}`, {
        token: t.adminToken,
        tenantId: t.demoTenantId,
        body: { cron: '8 * * * *' },
      }),
      403,
      'auth.platform_scope_required',
    );
    expect(await rowById(t, cronJobs, job.id)).toMatchObject({ cron: '7 * * * *', enabled: true });
    expect(await rowCount(t, cronJobRuns)).toBe(runsBefore);
  });
});
