import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../db/client.ts';
import { DEPENDENCY_STATES, type DependencyState } from '../health/dependency-checks.ts';

/** Prometheus metrics of one app instance (a registry per app, so tests can build many). */
export type Metrics = ReturnType<typeof createMetrics>;

export function createMetrics(opts: { poolStats: () => PoolStats }) {
  const registry = new Registry();
  const requests = new Counter({
    name: 'atrium_http_requests_total',
    help: 'HTTP requests by operation, method and status',
    labelNames: ['operation', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'atrium_http_request_duration_seconds',
    help: 'HTTP request latency by operation',
    labelNames: ['operation'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new Gauge({
    name: 'atrium_db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = opts.poolStats();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });
  new Gauge({
    name: 'atrium_process_resident_memory_bytes',
    help: 'Resident set size of this instance',
    registers: [registry],
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  const dependencyFailures = new Counter({
    name: 'atrium_dependency_failures_total',
    help: 'Calls to Redis, storage, SMTP or outbound HTTP that failed for want of an answer, and health probes that found a dependency down',
    labelNames: ['dependency'] as const,
    registers: [registry],
  });
  let dependencyStates: (() => Promise<Record<string, DependencyState>>) | null = null;
  new Gauge({
    name: 'atrium_dependency_state',
    help: 'State of each dependency (1 for its current state, 0 for the others), from the health checks',
    labelNames: ['dependency', 'state'] as const,
    registers: [registry],
    async collect() {
      if (!dependencyStates) return;
      for (const [dependency, current] of Object.entries(await dependencyStates()))
        for (const state of DEPENDENCY_STATES) this.set({ dependency, state }, state === current ? 1 : 0);
    },
  });
  return {
    registry,
    /** one failed call to a dependency (`cache`, `storage`, `mail`, `egress`), or a probe that found one down */
    dependencyFailed(dependency: string) {
      dependencyFailures.inc({ dependency });
    },
    /** where the state gauge reads from (the health checks, bound once the ops module is built) */
    reportDependencyStates(read: () => Promise<Record<string, DependencyState>>) {
      dependencyStates = read;
    },
    observeRequest(operation: string, method: string, status: number, seconds: number) {
      requests.inc({ operation, method, status: String(status) });
      latency.observe({ operation }, seconds);
    },
  };
}
