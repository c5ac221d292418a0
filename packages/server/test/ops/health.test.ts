import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { health, metric, pollUntil } from '../faults/fault-helpers.ts';
import { call, createTestApp, type TestApp, usingRedis } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { saveConfig, startSmtp } from '../messaging/email-helpers.ts';

/**
 * `/api/health`, `/api/health/live`, `/api/health/ready` and the dependency metrics (decision
 * 0040): every dependency with its state; 503 naming the part while a required one (the database,
 * the job runner) is down, while liveness never asks a dependency.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('health', () => {
  it('reports each dependency with its state, kind and latency', async () => {
    const { statusCode, report } = await health(t.app);
    expect(statusCode).toBe(200);
    expect(report).toMatchObject({ status: 'ok', ready: true });
    expect(report.dependencies).toMatchObject({
      database: { state: 'up', required: true, kind: 'external', latencyMs: expect.any(Number) },
      jobs: { state: 'up', required: true, kind: 'pg-boss', latencyMs: expect.any(Number) },
      cache: usingRedis
        ? { state: 'up', required: false, kind: 'redis', latencyMs: expect.any(Number) }
        : { state: 'not_configured', required: false, kind: 'memory', latencyMs: null },
      storage: { state: 'up', required: false, kind: 'local' },
      mail: { state: 'not_configured', required: false, kind: 'smtp', latencyMs: null },
    });
    expect((await call(t.app, 'GET', '/api/health/ready')).json().data).toEqual({ status: 'ok' });
  });

  it('says mail is disabled for a configuration switched off, and up for one that answers', async () => {
    const smtp = await startSmtp();
    try {
      await saveConfig(t, t.adminToken, smtp.port, { enabled: false });
      await pollUntil(
        'mail disabled',
        async () => (await health(t.app)).report.dependencies.mail?.state === 'disabled',
      );
      expect((await health(t.app)).report.status).toBe('ok');
      await saveConfig(t, t.adminToken, smtp.port, { enabled: true });
      await pollUntil('mail up', async () => (await health(t.app)).report.dependencies.mail?.state === 'up');
    } finally {
      await smtp.close();
    }
    await pollUntil('mail down', async () => (await health(t.app)).report.dependencies.mail?.state === 'down');
    const { statusCode, report } = await health(t.app);
    // mail is not required: degraded, still ready
    expect(statusCode).toBe(200);
    expect(report).toMatchObject({ status: 'degraded', ready: true });
    await saveConfig(t, t.adminToken, 1, { enabled: false });
  });

  it('answers 503 naming the part while the job runner is stopped; liveness stays 200', async () => {
    await t.app.ctx.jobs.stop();
    try {
      await pollUntil('not ready', async () => (await call(t.app, 'GET', '/api/health')).statusCode === 503);
      const res = await call(t.app, 'GET', '/api/health');
      expectError(res, 503, 'ops.dependency_unavailable');
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json().details).toEqual([{ field: 'jobs', message: 'unavailable' }]);
      expect(res.json().health).toMatchObject({
        status: 'degraded',
        ready: false,
        dependencies: { jobs: { state: 'down' } },
      });
      expectError(await call(t.app, 'GET', '/api/health/ready'), 503, 'ops.dependency_unavailable');
      const live = await call(t.app, 'GET', '/api/health/live');
      expect(live.statusCode).toBe(200);
      expect(live.json().data).toMatchObject({ status: 'ok', uptimeSeconds: expect.any(Number) });
      expect(await metric(t.app, 'atrium_dependency_state{dependency="jobs",state="down"}')).toBe(1);
      expect(await metric(t.app, 'atrium_dependency_failures_total{dependency="jobs"}')).toBeGreaterThan(0);
    } finally {
      await t.app.ctx.jobs.start();
    }
    await pollUntil('ready again', async () => (await call(t.app, 'GET', '/api/health/ready')).statusCode === 200);
    expect(await metric(t.app, 'atrium_dependency_state{dependency="jobs",state="up"}')).toBe(1);
  });
});
