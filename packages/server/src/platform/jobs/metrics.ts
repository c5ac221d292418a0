import { Gauge, type Registry } from 'prom-client';
import type { QueueStat } from './types.ts';

/** `atrium_jobs{queue,state}`: queued, active and failed jobs per queue, read at each scrape. */
export function registerJobMetrics(registry: Registry, read: () => Promise<QueueStat[]>): void {
  new Gauge({
    name: 'atrium_jobs',
    help: 'Jobs per queue by state (queued = waiting or waiting to retry)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      let stats: QueueStat[];
      try {
        stats = await read();
      } catch {
        return; // the database is away: the health check reports that
      }
      for (const s of stats) {
        this.set({ queue: s.queue, state: 'queued' }, s.queued);
        this.set({ queue: s.queue, state: 'active' }, s.active);
        this.set({ queue: s.queue, state: 'failed' }, s.failed);
      }
    },
  });
}
