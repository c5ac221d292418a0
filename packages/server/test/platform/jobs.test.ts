import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineJob, defineSystemTask } from '../../src/platform/jobs/define.ts';
import { createJobs } from '../../src/platform/jobs/jobs.ts';
import type { JobInfo } from '../../src/platform/jobs/types.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';

/** Queues, retries, dead letters, metrics and graceful stop of `ctx.jobs` (pg-boss underneath). */
type Payload = Record<string, unknown>;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const jobs = () => t.app.ctx.jobs;

/** Polls until `check` holds; a test that never gets there fails on its timeout. */
async function until<T>(check: () => Promise<T | null | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('ctx.jobs queues', () => {
  it('runs a job once with its payload and records its result', async () => {
    const seen: { payload: unknown; job: JobInfo }[] = [];
    const { deliver } = jobs().register({
      deliver: defineJob<{ orderId: number }>({
        name: 'test.deliver',
        handler: async (payload, job) => {
          seen.push({ payload, job });
          return { handled: true };
        },
      }),
    });
    const id = await deliver.send({ orderId: 7 });
    expect(id).toEqual(expect.any(String));
    const done = await until(async () => {
      const job = await jobs().getJob('test.deliver', id as string);
      return job?.state === 'completed' ? job : null;
    });
    expect(done.output).toEqual({ handled: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.payload).toEqual({ orderId: 7 });
    expect(seen[0]?.job).toMatchObject({ id, queue: 'test.deliver', attempt: 1 });
  });

  it('retries a failing job retryLimit times, then moves it to <name>.dead', async () => {
    const attempts: number[] = [];
    const { failing } = jobs().register({
      failing: defineJob<{ n: number }>({
        name: 'test.failing',
        options: { retryLimit: 2, retryDelay: 0, retryBackoff: false, pollingIntervalSeconds: 1 },
        handler: async (_payload, job) => {
          attempts.push(job.attempt);
          throw new Error(`boom ${job.attempt}`);
        },
      }),
    });
    const id = (await failing.send({ n: 1 })) as string;
    const [dead] = await until(async () => {
      const list = await jobs().deadLetters('test.failing');
      return list.length ? list : null;
    });
    expect(attempts).toEqual([1, 2, 3]);
    expect(dead).toMatchObject({ queue: 'test.failing.dead', data: { n: 1 }, state: 'created' });
    expect(dead?.output).toMatchObject({ message: 'boom 3' });
    expect(await jobs().getJob('test.failing', id)).toMatchObject({ state: 'failed', retryCount: 2 });
  });

  it('keeps one job per singleton key and slot', async () => {
    const { singleton } = jobs().register({
      singleton: defineJob<Payload>({ name: 'test.singleton', handler: async () => null }),
    });
    const first = await singleton.send({}, { singletonKey: 'k', singletonSeconds: 3600, startAfter: 3600 });
    const second = await singleton.send({}, { singletonKey: 'k', singletonSeconds: 3600, startAfter: 3600 });
    expect(first).toEqual(expect.any(String));
    expect(second).toBeNull();
  });

  it('exports queued, active and failed jobs per queue to /metrics', async () => {
    const { later } = jobs().register({ later: defineJob<Payload>({ name: 'test.later', handler: async () => null }) });
    await later.send({}, { startAfter: new Date(Date.now() + 3_600_000) });
    const res = await call(t.app, 'GET', '/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('atrium_jobs{queue="test.later",state="queued"} 1');
    expect(res.body).toContain('atrium_jobs{queue="test.later",state="active"} 0');
    expect(res.body).toContain('atrium_jobs{queue="test.failing",state="failed"} 1');
    expect(res.body).toContain('atrium_jobs{queue="test.failing.dead",state="queued"} 1');
  });

  it('refuses a queue defined twice, a bad name and a send to an unknown queue', async () => {
    const again = defineJob<Payload>({ name: 'test.deliver', handler: async () => null });
    expect(() => jobs().register({ again })).toThrow(/defined twice/);
    expect(() => defineJob({ name: "bad'name", handler: async () => null })).toThrow(/invalid queue name/);
    // Only a registered queue can be sent to: there is no send by name.
    expect('send' in jobs()).toBe(false);
  });

  it('sends only the payload type of the queue', () => {
    const typed = defineJob<{ orderId: number }>({ name: 'test.typed', handler: async () => null });
    const { typed: job } = jobs().register({ typed });
    // @ts-expect-error a payload of another shape does not compile
    const wrong = () => job.send({ order: 'x' });
    expect(job.name).toBe('test.typed');
    expect(typeof wrong).toBe('function');
  });
});

describe('system task registry', () => {
  it('lists the tasks modules declared and refuses duplicates and bad schedules', () => {
    expect(jobs().systemTask('scheduler.pruneRuns')).toMatchObject({ schedule: '30 3 * * *' });
    const handler = async () => null;
    const task = defineSystemTask({ name: 'test.task', handler });
    jobs().register({ task });
    expect(
      jobs()
        .systemTasks()
        .map((x) => x.name),
    ).toEqual(expect.arrayContaining(['scheduler.pruneRuns', 'test.task']));
    expect(() => jobs().register({ task: defineSystemTask({ name: 'test.task', handler }) })).toThrow(
      /registered twice/,
    );
    expect(() => defineSystemTask({ name: 'test.bad', schedule: '61 * * * *', handler })).toThrow(/schedule/);
    expect(() => defineSystemTask({ name: 'test.secs', schedule: '* * * * * *', handler })).toThrow(/5 fields/);
  });
});

describe('stop', () => {
  it('lets an active job finish before it returns', async () => {
    // A second engine on the same database, so the app's own keeps running for other files' work.
    const engine = createJobs({ database: t.database, config: t.app.ctx.config, log: pino({ level: 'silent' }) });
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let started: (id: string) => void = () => {};
    const startedId = new Promise<string>((r) => {
      started = r;
    });
    const { graceful } = engine.register({
      graceful: defineJob<Payload>({
        name: 'test.graceful',
        handler: async (_p, job) => {
          started(job.id);
          await gate;
          return { finished: true };
        },
      }),
    });
    await engine.start();
    await graceful.send({});
    const id = await startedId;
    const stopped = engine.stop();
    // Released only after stop() began: a stop that did not wait would fail the job back to retry.
    setTimeout(release, 700);
    await stopped;
    expect(await engine.getJob('test.graceful', id)).toMatchObject({ state: 'completed', output: { finished: true } });
  });
});
