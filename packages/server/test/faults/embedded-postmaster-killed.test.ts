import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  alive,
  BOUND_MS,
  dictCodes,
  driveTraffic,
  postmasterPid,
  ready,
  type Sample,
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
 * The embedded PostgreSQL's postmaster killed (`kill -9`, as the kernel's out-of-memory killer
 * does) under a running service started as `npm start` starts it: the service notices, starts the
 * server again on the same data, answers 503 `ops.database_unavailable` meanwhile (never a 500,
 * never a hang), serves again, keeps every write it acknowledged, and never exits. When the server
 * cannot be started again, the service exits 69 saying why, for an outer process manager.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'atrium-faults-embedded-'));
const pgDir = join(dataDir, 'pg');
let service: Service | undefined;

afterEach(async () => {
  await stopService(service);
  service = undefined;
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const restartLines = (output: string) => output.match(/exited unexpectedly; starting it again/g) ?? [];

describe('the embedded postmaster killed', { timeout: 150_000 }, () => {
  it('is started again: 503 while it is down, served again, every acknowledged write kept, the service never exits', async () => {
    service = await startService({ DATA_DIR: dataDir });
    const s = service;
    await ready(s);
    const token = await signIn(s);
    const before = await writeOne(s, token);
    expect(before.sample.status).toBe(201);

    const killed = postmasterPid(pgDir);
    const killedAt = Date.now();
    process.kill(killed, 'SIGKILL');
    let sawOutage = false;
    const traffic = await driveTraffic(s, token, {
      what: 'served again after the kill',
      deadlineMs: 60_000,
      done: (samples) => {
        sawOutage ||= samples.some((x) => x.status === 503);
        return sawOutage && servedAgain(samples);
      },
    });
    const recoveryMs = Date.now() - killedAt;
    const outage = traffic.samples.filter((x) => x.status === 503);
    console.log(
      `embedded postmaster killed: served again ${recoveryMs} ms after kill -9; ` +
        `${outage.length} answers 503 (slowest ${Math.max(...outage.map((x) => x.ms))} ms), ` +
        `slowest answer overall ${Math.max(...traffic.samples.map((x) => x.ms))} ms`,
    );

    expect(trafficProblems(traffic.samples)).toEqual([]);
    // each kind of request met the outage and answered it
    expect(new Set(outage.map((x) => x.what))).toEqual(new Set(['sign-in', 'list', 'write']));
    expect(s.child.exitCode).toBeNull();
    expect(restartLines(s.output())).toHaveLength(1);
    const restarted = postmasterPid(pgDir);
    expect(restarted).not.toBe(killed);
    expect(alive(restarted)).toBe(true);
    expect(s.output()).toContain(`the embedded PostgreSQL is running again (pid ${restarted}`);

    const codes = await dictCodes(s, await signIn(s));
    for (const code of [before.code, ...traffic.acknowledged]) expect(codes, code).toContain(code);

    // a deliberate stop is no death: nothing is started again, and the server is stopped with the service
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(restartLines(s.output())).toHaveLength(1);
    expect(alive(restarted)).toBe(false);
    expect(existsSync(join(pgDir, 'postmaster.pid'))).toBe(false);
  });

  it('exits 69 naming the reason when the server cannot be started again', async () => {
    service = await startService({ DATA_DIR: dataDir });
    const s = service;
    await ready(s);
    // a setting PostgreSQL refuses to start with; the running server read its files at its start
    appendFileSync(join(pgDir, 'postgresql.conf'), '\nthis line is not a setting\n');
    const killed = postmasterPid(pgDir);
    process.kill(killed, 'SIGKILL');

    // five attempts, 0.5 + 1 + 2 + 4 + 8 s apart
    const code = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r('still running'), 60_000))]);
    expect(code, s.output()).toBe(69);
    expect(s.output()).toContain(
      'Atrium is stopping: the embedded PostgreSQL cannot be kept running: 5 restarts in a row failed',
    );
    expect(s.output()).toMatch(/syntax error in file ".*postgresql\.conf"/);
    expect(s.output().match(/starting the embedded PostgreSQL failed \(attempt \d\)/g)).toHaveLength(4);
    // nothing left behind: no server, the DATA_DIR lock freed for the next start
    await until('no server runs', () => !existsSync(join(pgDir, 'postmaster.pid')) || !alive(postmasterPid(pgDir)));
    expect(existsSync(join(dataDir, 'atrium.pid'))).toBe(false);
  });
});

describe('the traffic check', () => {
  it('flags a 500, an answer past the bound, no answer, and a 503 that is not the database’s', () => {
    const ok: Sample = { what: 'list', status: 200, ms: 12 };
    const down: Sample = { what: 'list', status: 503, ms: 40, error: 'ops.database_unavailable', retryAfter: '5' };
    expect(trafficProblems([ok, down])).toEqual([]);
    const planted: Sample[] = [
      { what: 'write', status: 500, ms: 30, error: 'internal.error' },
      { what: 'list', status: 200, ms: BOUND_MS + 1 },
      { what: 'sign-in', status: 0, ms: 15_000, error: 'The operation was aborted due to timeout' },
      { what: 'list', status: 503, ms: 20, error: 'service.unavailable', retryAfter: '5' },
      { what: 'list', status: 503, ms: 20, error: 'ops.database_unavailable', retryAfter: null },
    ];
    expect(trafficProblems(planted)).toHaveLength(6); // the unanswered one is also past the bound
  });
});
