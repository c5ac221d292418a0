import { describe, expect, it } from 'vitest';
import {
  createDependencyChecks,
  DEPENDENCIES,
  type Dependency,
  type DependencyCheck,
  ProbeFailure,
  type ProbeResult,
} from './dependency-checks.ts';

/** Probes the test controls: each call counted, each answered when the test says. */
function probes() {
  const calls: Record<string, number> = {};
  const pending: Record<string, { resolve: (r: ProbeResult) => void; reject: (e: unknown) => void }[]> = {};
  const checks = Object.fromEntries(
    DEPENDENCIES.map((d): [Dependency, DependencyCheck] => [
      d,
      {
        required: d === 'database' || d === 'jobs',
        kind: `${d}-kind`,
        probe: () => {
          calls[d] = (calls[d] ?? 0) + 1;
          return new Promise((resolve, reject) => {
            pending[d] = [...(pending[d] ?? []), { resolve, reject }];
          });
        },
      },
    ]),
  ) as Record<Dependency, DependencyCheck>;
  const answerAll = (d: Dependency, how: (p: (typeof pending)[string][number]) => void) => {
    for (const p of pending[d]?.splice(0) ?? []) how(p);
  };
  return { calls, checks, answerAll };
}

const answered = (p: ReturnType<typeof probes>, except: Partial<Record<Dependency, unknown>> = {}) => {
  for (const d of DEPENDENCIES) {
    if (d in except) p.answerAll(d, (x) => x.reject(except[d]));
    else p.answerAll(d, (x) => x.resolve({ kind: `${d}-kind` }));
  }
};

const tick = () => new Promise((r) => setImmediate(r));

describe('dependency checks', () => {
  it('shares one probe among concurrent callers and reuses its report while fresh', async () => {
    let now = 1_000_000;
    const p = probes();
    const checks = createDependencyChecks({ checks: p.checks, now: () => now, cacheMs: 2_000 });
    const reports = [checks.report(), checks.report(), checks.report()];
    await tick();
    answered(p);
    const [first] = await Promise.all(reports);
    expect(first?.status).toBe('ok');
    for (const d of DEPENDENCIES) expect(p.calls[d]).toBe(1);

    now += 1_999;
    await checks.report();
    expect(p.calls.database).toBe(1);
    now += 1;
    const again = checks.report();
    await tick();
    answered(p);
    await again;
    expect(p.calls.database).toBe(2);
  });

  it('a probe past its deadline is down, and is not started again while it still hangs', async () => {
    let now = 0;
    const p = probes();
    const checks = createDependencyChecks({ checks: p.checks, now: () => now, timeoutMs: 50, cacheMs: 10 });
    const pending = checks.report();
    await tick();
    for (const d of DEPENDENCIES) if (d !== 'cache') p.answerAll(d, (x) => x.resolve({ kind: d }));
    const report = await pending;
    expect(report.dependencies.cache).toMatchObject({
      state: 'down',
      error: 'no answer within 50 ms',
      latencyMs: null,
    });
    expect(report).toMatchObject({ status: 'degraded', ready: true });

    now += 100; // the report is stale; the first probe is still hanging
    const next = checks.report();
    await tick();
    for (const d of DEPENDENCIES) if (d !== 'cache') p.answerAll(d, (x) => x.resolve({ kind: d }));
    expect((await next).dependencies.cache?.state).toBe('down');
    expect(p.calls.cache).toBe(1);

    p.answerAll('cache', (x) => x.resolve({ kind: 'redis' }));
    await tick();
    now += 100;
    const recovered = checks.report();
    await tick();
    answered(p);
    expect((await recovered).dependencies.cache).toMatchObject({ state: 'up', kind: 'cache-kind' });
    expect(p.calls.cache).toBe(2);
  });

  it('is not ready only while a required dependency is down; reasons name no address', async () => {
    const p = probes();
    const checks = createDependencyChecks({ checks: p.checks, cacheMs: 0 });
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:6379'), { code: 'ECONNREFUSED' });
    const optional = checks.report();
    await tick();
    answered(p, { storage: new ProbeFailure('s3', '', { message: 'wrapped', cause: refused }) });
    const degraded = await optional;
    expect(degraded).toMatchObject({ status: 'degraded', ready: true });
    expect(degraded.dependencies.storage).toMatchObject({ state: 'down', kind: 's3', error: 'connection refused' });

    const required = checks.report();
    await tick();
    answered(p, { database: refused });
    const down = await required;
    expect(down).toMatchObject({ status: 'degraded', ready: false });
    expect(down.dependencies.database).toMatchObject({ state: 'down', kind: 'database-kind', required: true });
    expect(JSON.stringify(down)).not.toContain('10.0.0.5');
  });

  it('reports disabled and not configured as such, without a latency, and not as degraded', async () => {
    const p = probes();
    p.checks.mail.probe = async () => ({ state: 'not_configured', kind: 'smtp' });
    p.checks.cache.probe = async () => ({ state: 'disabled', kind: 'redis' });
    const checks = createDependencyChecks({ checks: p.checks });
    const pending = checks.report();
    await tick();
    answered(p);
    const report = await pending;
    expect(report.status).toBe('ok');
    expect(report.dependencies.mail).toMatchObject({ state: 'not_configured', latencyMs: null });
    expect(report.dependencies.cache).toMatchObject({ state: 'disabled', latencyMs: null });
    expect(report.dependencies.database.latencyMs).toEqual(expect.any(Number));
  });
});
