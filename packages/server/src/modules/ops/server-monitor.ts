import { statfs } from 'node:fs/promises';
import os from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';

const CPU_SAMPLE_MS = 100;

const Bytes = Type.Integer({ minimum: 0, description: 'bytes' });
const Percent = Type.Number({ minimum: 0, maximum: 100, description: 'percent, two decimals' });

/** What `GET /api/monitor/server` answers. */
export const ServerSnapshot = Type.Object({
  cpu: Type.Object({
    model: Type.String(),
    cores: Type.Integer(),
    loadAverage: Type.Array(Type.Number(), { minItems: 3, maxItems: 3, description: '1, 5 and 15 minutes' }),
    usagePercent: Type.Number({ minimum: 0, maximum: 100, description: `all cores, sampled over ${CPU_SAMPLE_MS} ms` }),
  }),
  memory: Type.Object({ total: Bytes, free: Bytes, used: Bytes, usedPercent: Percent }),
  disk: Type.Object({
    path: Type.String({ description: 'DATA_DIR, or its nearest existing parent' }),
    total: Bytes,
    free: Bytes,
    used: Bytes,
    usedPercent: Percent,
  }),
  process: Type.Object({
    pid: Type.Integer(),
    nodeVersion: Type.String(),
    uptimeSeconds: Type.Integer(),
    rss: Bytes,
    heapUsed: Bytes,
    heapTotal: Bytes,
  }),
  database: Type.Object({
    kind: Type.String(),
    pool: Type.Object({ total: Type.Integer(), idle: Type.Integer(), waiting: Type.Integer() }),
  }),
});

/** CPU, memory, disk of DATA_DIR, this process and the database pool, now. */
export async function serverSnapshot(ctx: Pick<AppContext, 'config' | 'database'>) {
  const [cpuUsage, disk] = await Promise.all([sampleCpuUsage(CPU_SAMPLE_MS), diskOf(ctx.config.dataDir)]);
  const cpus = os.cpus();
  const total = os.totalmem();
  const free = os.freemem();
  const mem = process.memoryUsage();
  return {
    cpu: {
      model: cpus[0]?.model.trim() ?? 'unknown',
      cores: cpus.length,
      loadAverage: os.loadavg().map(round2),
      usagePercent: cpuUsage,
    },
    memory: { total, free, used: total - free, usedPercent: percent(total - free, total) },
    disk,
    process: {
      pid: process.pid,
      nodeVersion: process.version,
      uptimeSeconds: Math.floor(process.uptime()),
      rss: mem.rss,
      heapUsed: mem.heapUsed,
      heapTotal: mem.heapTotal,
    },
    database: { kind: ctx.database.kind, pool: ctx.database.poolStats() },
  };
}

/** Busy share of all cores between two readings of the kernel's per-core time counters. */
async function sampleCpuUsage(ms: number): Promise<number> {
  const before = cpuTimes();
  await sleep(ms);
  const after = cpuTimes();
  return percent(after.busy - before.busy, after.total - before.total);
}

function cpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/** DATA_DIR may not exist yet (in-memory database): report the file system it would be created on. */
async function diskOf(dataDir: string) {
  let path = dataDir;
  for (;;) {
    try {
      const s = await statfs(path);
      const total = s.blocks * s.bsize;
      const free = s.bavail * s.bsize;
      const used = (s.blocks - s.bfree) * s.bsize;
      return { path, total, free, used, usedPercent: percent(used, total) };
    } catch (err) {
      const parent = dirname(path);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) throw err;
      path = parent;
    }
  }
}

function percent(part: number, whole: number): number {
  return whole > 0 ? Math.min(100, Math.max(0, round2((part / whole) * 100))) : 0;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
