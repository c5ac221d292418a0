import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemConfigs } from '../../src/modules/system/tables.ts';
import { openDatabase } from '../../src/platform/db/client.ts';
import { PLATFORM_TENANT_ID } from '../../src/platform/db/tenant-key.ts';
import { defineJob } from '../../src/platform/jobs/define.ts';
import { createJobs } from '../../src/platform/jobs/jobs.ts';
import type { JobInfo } from '../../src/platform/jobs/types.ts';
import { createTestApp, createTestStore, type TestApp } from '../helpers/app.ts';
import { CRASH_QUEUE, crashJob } from './jobs-crash.shared.ts';

/**
 * The outbox: a typed job's `send(payload, { tx })` writes the job in the caller's transaction,
 * wakes the workers right after the commit, and a job whose worker died is delivered again once
 * it expires (ARCHITECTURE §5).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const jobs = () => t.app.ctx.jobs;

async function until<T>(check: () => Promise<T | null | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A queue whose handler records payloads and resolves a waiter per payload count. */
function recorder<P>() {
  const seen: { payload: P; job: JobInfo }[] = [];
  return {
    seen,
    handler: async (payload: P, job: JobInfo) => {
      seen.push({ payload, job });
      return null;
    },
    next: (n: number) => until(async () => (seen.length >= n ? seen : null)),
  };
}

const configRow = async (key: string) =>
  (await t.database.db.select().from(systemConfigs).where(eq(systemConfigs.key, key)))[0];

describe('send inside a transaction', () => {
  it('writes nothing when the transaction rolls back, and the job never runs', async () => {
    const rec = recorder<{ step: string }>();
    const { job } = jobs().register({
      job: defineJob({ name: 'test.outbox_rollback', options: { pollingIntervalSeconds: 1 }, handler: rec.handler }),
    });
    let jobId: string | null = null;
    await expect(
      t.database.db.transaction(async (tx) => {
        await tx
          .insert(systemConfigs)
          .values({ tenantId: PLATFORM_TENANT_ID, key: 'outbox.rolled_back', value: '1', name: 'x' });
        jobId = await job.send({ step: 'rolled back' }, { tx });
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    expect(jobId).toEqual(expect.any(String)); // it was written, inside the transaction
    expect(await jobs().getJob('test.outbox_rollback', jobId as unknown as string)).toBeNull();
    expect(await configRow('outbox.rolled_back')).toBeUndefined();

    // A later committed job runs; the rolled-back one never does.
    await t.database.db.transaction((tx) => job.send({ step: 'committed' }, { tx }));
    await rec.next(1);
    expect(rec.seen.map((s) => s.payload)).toEqual([{ step: 'committed' }]);
  });

  it('delivers a committed job right after the commit, without waiting for the next poll', async () => {
    const rec = recorder<{ orderId: number }>();
    // An idle worker would look again only in 10 minutes: only the commit's wake-up can deliver in time.
    const { job } = jobs().register({
      job: defineJob({ name: 'test.outbox_commit', options: { pollingIntervalSeconds: 600 }, handler: rec.handler }),
    });
    const id = await t.database.db.transaction(async (tx) => {
      await tx
        .insert(systemConfigs)
        .values({ tenantId: PLATFORM_TENANT_ID, key: 'outbox.committed', value: '1', name: 'x' });
      return job.send({ orderId: 1 }, { tx });
    });
    const [delivered] = await rec.next(1);
    expect(delivered).toMatchObject({ payload: { orderId: 1 }, job: { id, attempt: 1 } });
    expect(await configRow('outbox.committed')).toMatchObject({ value: '1' });
  });

  it('retries a failing delivery, then moves it to the dead-letter queue', async () => {
    const attempts: number[] = [];
    const { dead: deadJob } = jobs().register({
      dead: defineJob<{ eventId: number }>({
        name: 'test.outbox_dead',
        options: { retryLimit: 1, retryDelay: 0, retryBackoff: false, pollingIntervalSeconds: 1 },
        handler: async (_p, job) => {
          attempts.push(job.attempt);
          throw new Error('receiver down');
        },
      }),
    });
    await t.database.db.transaction((tx) => deadJob.send({ eventId: 9 }, { tx }));
    const [dead] = await until(async () => {
      const list = await jobs().deadLetters('test.outbox_dead');
      return list.length ? list : null;
    });
    expect(attempts).toEqual([1, 2]);
    expect(dead).toMatchObject({ data: { eventId: 9 }, output: { message: 'receiver down' } });
  });
});

describe('a worker that crashes while holding a job', () => {
  it('loses nothing: another instance gets the job again once it expires', async () => {
    const store = await createTestStore();
    try {
      // 1. A separate process sends the job in a transaction, takes it, and is killed holding it.
      const child = spawn(
        process.execPath,
        [fileURLToPath(new URL('./jobs-crash.child.ts', import.meta.url)), store.url],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = new Promise((r) => child.once('exit', r));
      let taken = '';
      for await (const line of createInterface({ input: child.stdout })) {
        if (line.startsWith('TAKEN ')) {
          taken = line;
          break;
        }
      }
      child.kill('SIGKILL');
      await exited;
      const [, jobId, attempt] = taken.split(' ');
      expect(attempt).toBe('1');

      // 2. Another instance on the same database: its sweep fails the expired job back to retry.
      const database = await openDatabase({ url: store.url, kind: 'external', poolMax: 2 });
      const engine = createJobs({
        database,
        config: {
          databasePoolMax: 2,
          jobsPollSeconds: 1,
          jobsCronCheckSeconds: 30,
          jobsSweepSeconds: 1,
        },
        log: pino({ level: 'silent' }),
      });
      const rec = recorder<{ orderId: number }>();
      engine.register({ crash: crashJob }, () => ({ handle: rec.handler }));
      await engine.start();
      try {
        const [again] = await rec.next(1);
        expect(again).toMatchObject({ payload: { orderId: 42 }, job: { id: jobId, attempt: 2 } });
        const job = await until(async () => {
          const j = await engine.getJob(CRASH_QUEUE, jobId as string);
          return j?.state === 'completed' ? j : null;
        });
        expect(job.retryCount).toBe(1);
      } finally {
        await engine.stop();
        await database.close();
      }
    } finally {
      await store.drop();
    }
  });
});
