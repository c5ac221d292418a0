import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/platform/db/embedded-server.ts';
import {
  dictCodes,
  driveTraffic,
  ready,
  type Service,
  servedAgain,
  signIn,
  startService,
  stopService,
  trafficProblems,
  until,
  writeOne,
} from './service-process.ts';

/**
 * A PostgreSQL server the operator runs (DATABASE_URL) stopped (a fast shutdown, as for an
 * upgrade) and started again under a running service: 503 `ops.database_unavailable` while it is
 * down, never a 500 or a hang; served again once it is back, every acknowledged write kept; and a
 * job due during the outage runs once after it, right after the job runner reconnects (its
 * workers poll only once a minute here, so only that wake-up can run it in time).
 */
const dirs: string[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `atrium-faults-${name}-`));
  dirs.push(dir);
  return dir;
};
let service: Service | undefined;
let server: EmbeddedPostgres | undefined;

afterEach(async () => {
  await stopService(service);
  await server?.stop();
  service = undefined;
  server = undefined;
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Run = { id: number; status: string; trigger: string };
type HealthAnswer = { status: number; body: Record<string, unknown> & { health?: unknown; data?: unknown } };

async function healthOf(base: string): Promise<HealthAnswer> {
  const res = await fetch(`${base}/api/health`);
  return { status: res.status, body: (await res.json()) as HealthAnswer['body'] };
}

async function getJson<T>(url: string, token: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return ((await res.json()) as { data: T }).data;
}

describe('an external PostgreSQL stopped and started again', { timeout: 150_000 }, () => {
  it('answers 503 while it is down, serves again after, keeps every acknowledged write, and runs a job that fell due meanwhile once', async () => {
    const pgData = tempDir('external-pg');
    server = await startEmbeddedPostgres(pgData, { log: () => {}, durable: false });
    const url = server.url;
    service = await startService({ DATABASE_URL: url, DATA_DIR: tempDir('external-data'), JOBS_POLL_SECONDS: '60' });
    const s = service;
    await ready(s);
    const token = await signIn(s);
    const before = await writeOne(s, token);
    expect(before.sample.status).toBe(201);

    // A cron job that never fires by itself (1 January), and one tick of it due in 3 s, sent as
    // pg-boss's cron monitor sends ticks: a job in the queue before the stop, due during the outage.
    const created = await fetch(`${s.base}/api/cron-jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'fault tick', handler: 'scheduler.pruneRuns', cron: '0 0 1 1 *', timezone: 'UTC' }),
    });
    expect(created.status).toBe(201);
    const cronJob = ((await created.json()) as { data: { id: number; cron: string; timezone: string } }).data;
    const boss = new PgBoss({
      connectionString: url,
      schema: 'pgboss',
      supervise: false,
      schedule: false,
      migrate: false,
    });
    boss.on('error', () => {});
    await boss.start();
    const tick = { cronJobId: cronJob.id, cron: cronJob.cron, timezone: cronJob.timezone };
    const jobId = await boss.send('scheduler.cron', tick, { startAfter: 3 });
    const dueAt = Date.now() + 3_000;
    await boss.stop({ graceful: false });

    await server.stop(); // pg_ctl stop -m fast: connections are terminated, the socket goes
    const stoppedAt = Date.now();
    const down = await driveTraffic(s, token, {
      what: 'each request answered 503 while the server is down, and the job fell due',
      deadlineMs: 30_000,
      done: (samples) =>
        Date.now() > dueAt + 500 &&
        ['sign-in', 'list', 'write'].every((what) => samples.some((x) => x.what === what && x.status === 503)),
    });
    expect(trafficProblems(down.samples)).toEqual([]);
    expect(down.samples.every((x) => x.status === 503)).toBe(true);
    // health says so (a report is reused for up to 2 s); liveness does not depend on it
    let report: HealthAnswer = { status: 0, body: {} };
    await until('health says the database is down', async () => {
      report = await healthOf(s.base);
      return report.status === 503;
    });
    expect(report.body).toMatchObject({ error: 'ops.dependency_unavailable' });
    expect(report.body.health).toMatchObject({
      status: 'degraded',
      ready: false,
      dependencies: { database: { state: 'down' } },
    });
    expect((await fetch(`${s.base}/api/health/ready`)).status).toBe(503);
    expect((await fetch(`${s.base}/api/health/live`)).status).toBe(200);
    const outageMs = Date.now() - stoppedAt;

    server = await startEmbeddedPostgres(pgData, { log: () => {}, durable: false });
    expect(server.url).toBe(url);
    const upAt = Date.now();
    const after = await driveTraffic(s, token, { what: 'served again', deadlineMs: 30_000, done: servedAgain });
    const servedMs = Date.now() - upAt;
    expect(trafficProblems(after.samples)).toEqual([]);
    await until('health says ok again', async () => {
      report = await healthOf(s.base);
      return report.status === 200;
    });
    expect(report.body.data).toMatchObject({ status: 'ok', dependencies: { database: { state: 'up' } } });

    // the tick ran after the restart, once
    let runs: { list: Run[]; total: number } = { list: [], total: 0 };
    await until(
      'the tick due during the outage has run',
      async () => {
        runs = await getJson(`${s.base}/api/cron-jobs/${cronJob.id}/runs?page=1&pageSize=20`, token);
        return runs.list.some((r) => r.status !== 'running');
      },
      20_000,
    );
    const ranMs = Date.now() - upAt;
    expect(runs.total).toBe(1);
    expect(runs.list[0]).toMatchObject({ status: 'success', trigger: 'scheduled' });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      // completed: pg-boss never hands it out again
      const job = await db.query('select state from pgboss.job where id = $1', [jobId]);
      expect(job.rows).toEqual([{ state: 'completed' }]);
    } finally {
      await db.end();
    }

    const codes = await dictCodes(s, token);
    for (const code of [before.code, ...after.acknowledged]) expect(codes, code).toContain(code);
    expect(s.child.exitCode).toBeNull();
    console.log(
      `external PostgreSQL stopped for ${outageMs} ms (${down.samples.length} answers, all 503, slowest ` +
        `${Math.max(...down.samples.map((x) => x.ms))} ms); served again ${servedMs} ms after it was up; ` +
        `the job due meanwhile ran ${ranMs} ms after it was up`,
    );

    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  });
});
