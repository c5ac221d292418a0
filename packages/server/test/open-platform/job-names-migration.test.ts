import { readFileSync } from 'node:fs';
import { like, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cronJobRuns, cronJobs } from '../../src/modules/scheduler/tables.ts';
import { type Database, openDatabase } from '../../src/platform/db/client.ts';
import { PLATFORM_TENANT_ID } from '../../src/platform/db/tenant-key.ts';
import { defineJob } from '../../src/platform/jobs/define.ts';
import { createJobs } from '../../src/platform/jobs/jobs.ts';
import { createTestStore, type TestStore } from '../helpers/app.ts';

/**
 * Migration 0006: the open platform's system tasks and queue, once spelled `openPlatform.*`, are
 * renamed to the folder's spelling; cron jobs bound to them follow, and the old wake queue goes.
 * Replayed here on a database holding what the old names left behind.
 */
const MIGRATION = new URL('../../src/migrations/0006_open_platform_job_names.sql', import.meta.url);

let store: TestStore;
let database: Database;
beforeAll(async () => {
  store = await createTestStore();
  database = await openDatabase({ url: store.url, kind: 'external', poolMax: 2 });
});
afterAll(async () => {
  await database?.close();
  await store?.drop();
});

const config = { databasePoolMax: 2, jobsPollSeconds: 30, jobsCronCheckSeconds: 30, jobsSweepSeconds: 30 };

async function migrate() {
  for (const statement of readFileSync(MIGRATION, 'utf8').split('--> statement-breakpoint')) {
    await database.db.execute(sql.raw(statement));
  }
}

describe('migration 0006 (open-platform job names)', () => {
  it('is a no-op before pg-boss ever started', async () => {
    await expect(migrate()).resolves.toBeUndefined();
  });

  it('renames built-in jobs, bound handlers and run history, and drops the old wake queue', async () => {
    // What the old code left: its wake queue with a waiting job, and cron jobs on its task names.
    const engine = createJobs({ database, config, log: pino({ level: 'silent' }) });
    const { wake } = engine.register({
      wake: defineJob<{ deliveryIds: number[] }>({
        name: 'openPlatform.webhookDelivery',
        options: { deadLetter: false },
        handler: async () => null,
      }),
    });
    await engine.start();
    await wake.send({ deliveryIds: [1] }, { startAfter: 3600 });
    await engine.stop();
    // the template's built-in jobs were seeded under the new names: a database of the old code had none
    await database.db.delete(cronJobs).where(like(cronJobs.handler, 'open-platform.%'));
    const [builtin, custom] = await database.db
      .insert(cronJobs)
      .values([
        {
          tenantId: PLATFORM_TENANT_ID,
          name: 'openPlatform.purgeExpiredTokens',
          handler: 'openPlatform.purgeExpiredTokens',
          cron: '17 3 * * *',
          builtin: true,
        },
        {
          tenantId: PLATFORM_TENANT_ID,
          name: 'my token purge',
          handler: 'openPlatform.purgeExpiredTokens',
          cron: '0 * * * *',
        },
      ])
      .returning();
    await database.db.insert(cronJobRuns).values({
      tenantId: PLATFORM_TENANT_ID,
      jobId: builtin?.id as number,
      handler: 'openPlatform.purgeExpiredTokens',
      trigger: 'manual',
      startedAt: new Date(),
    });

    await migrate();

    const jobs = await database.db.select().from(cronJobs);
    expect(jobs.find((j) => j.id === builtin?.id)).toMatchObject({
      name: 'open-platform.purgeExpiredTokens',
      handler: 'open-platform.purgeExpiredTokens',
    });
    expect(jobs.find((j) => j.id === custom?.id)).toMatchObject({
      name: 'my token purge',
      handler: 'open-platform.purgeExpiredTokens',
    });
    const runs = await database.db.select().from(cronJobRuns);
    expect(runs.map((r) => r.handler)).toEqual(['open-platform.purgeExpiredTokens']);
    const queues = await database.db.execute(sql`SELECT name FROM pgboss.queue WHERE name LIKE 'openPlatform.%'`);
    expect((queues as unknown as { rows: unknown[] }).rows).toEqual([]);
  });
});
