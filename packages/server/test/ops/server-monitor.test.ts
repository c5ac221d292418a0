import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('GET /api/monitor/server', () => {
  it('reports cpu, memory, disk, process and database pool', async () => {
    const viewer = await createUserWithPermissions(t, ['monitor:server:view']);
    const res = await call(t.app, 'GET', '/api/monitor/server', { token: viewer.token });
    expect(res.statusCode).toBe(200);
    const { cpu, memory, disk, process: proc, database } = res.json().data;

    expect(cpu.cores).toBeGreaterThanOrEqual(1);
    expect(typeof cpu.model).toBe('string');
    expect(cpu.loadAverage).toHaveLength(3);
    expect(cpu.usagePercent).toBeGreaterThanOrEqual(0);
    expect(cpu.usagePercent).toBeLessThanOrEqual(100);

    expect(memory.total).toBeGreaterThan(0);
    expect(memory.used + memory.free).toBe(memory.total);
    expect(memory.usedPercent).toBeGreaterThan(0);

    expect(disk.total).toBeGreaterThan(0);
    expect(disk.free).toBeLessThanOrEqual(disk.total);
    expect(t.app.ctx.config.dataDir.startsWith(disk.path)).toBe(true);

    expect(proc.pid).toBe(process.pid);
    expect(proc.nodeVersion).toBe(process.version);
    expect(proc.rss).toBeGreaterThan(0);
    expect(proc.heapUsed).toBeLessThanOrEqual(proc.heapTotal);

    expect(database.kind).toBe(t.database.kind);
    expect(database.pool.total).toBeGreaterThanOrEqual(database.pool.idle);
    expect(database.pool.waiting).toBeGreaterThanOrEqual(0);
  });

  it('is allowed to the super administrator', async () => {
    const res = await call(t.app, 'GET', '/api/monitor/server', { token: t.adminToken });
    expect(res.statusCode).toBe(200);
  });

  it('answers 403 without monitor:server:view', async () => {
    const user = await createUserWithPermissions(t, ['dashboard:stats:view']);
    const res = await call(t.app, 'GET', '/api/monitor/server', { token: user.token });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'auth.permission_denied' });
  });

  it('answers 401 without a token', async () => {
    const res = await call(t.app, 'GET', '/api/monitor/server');
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('auth.unauthenticated');
  });
});
