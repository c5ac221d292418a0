import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/platform/db/embedded-server.ts';
import { type SupervisorPolicy, superviseEmbedded } from '../../src/platform/db/embedded-supervisor.ts';
import { until } from './service-process.ts';

/**
 * The supervisor's counting, on a real embedded server killed again and again: a server that
 * dies soon after each restart is a crash loop, given up after `maxFailures`; one that stayed up
 * for the stable window starts the count afresh. (The service-level fault, its logs and its exit
 * code: embedded-postmaster-killed.test.ts.)
 */
const dir = mkdtempSync(join(tmpdir(), 'atrium-faults-loop-'));
let server: EmbeddedPostgres;
beforeAll(async () => {
  server = await startEmbeddedPostgres(dir, { log: () => {}, durable: false });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const FAST: Partial<SupervisorPolicy> = { pollMs: 50, firstDelayMs: 100, maxDelayMs: 400, stableMs: 60_000 };

/** Kills the postmaster and waits until the supervisor has started another. */
async function killAndAwaitRestart(sup: { state(): { state: string } }) {
  const pid = server.pid();
  process.kill(pid, 'SIGKILL');
  await until('the server runs again', () => server.pid() !== pid && sup.state().state === 'up' && server.running());
}

describe('the supervisor of the embedded server', { timeout: 60_000 }, () => {
  it('gives up on a server that dies again soon after each restart', async () => {
    let gaveUp: string | null = null;
    const sup = superviseEmbedded(server, {
      log: () => {},
      onGiveUp: (reason) => {
        gaveUp = reason;
      },
      policy: { ...FAST, maxFailures: 3 },
    });
    try {
      await killAndAwaitRestart(sup); // the first death: the server had been up since the start
      await killAndAwaitRestart(sup); // died again within the window: 1 failed restart
      await killAndAwaitRestart(sup); // 2
      expect(gaveUp).toBeNull();
      process.kill(server.pid(), 'SIGKILL'); // 3: given up, not restarted
      await until('the supervisor gives up', () => gaveUp !== null);
      expect(gaveUp).toMatch(/cannot be kept running: it died again \d+ s after being started, 3 restarts in a row/);
      expect(sup.state()).toMatchObject({ state: 'down', restarts: 3 });
      expect(server.running()).toBe(false);
    } finally {
      await sup.stop();
    }
    await server.restart(); // for the next test
  });

  it('counts afresh after the server stayed up for the stable window', async () => {
    let clock = Date.now();
    let gaveUp: string | null = null;
    const sup = superviseEmbedded(server, {
      log: () => {},
      onGiveUp: (reason) => {
        gaveUp = reason;
      },
      policy: { ...FAST, maxFailures: 2 },
      now: () => clock,
    });
    try {
      await killAndAwaitRestart(sup);
      await killAndAwaitRestart(sup); // 1 failed restart
      clock += 61_000; // the restarted server held for longer than the window
      await killAndAwaitRestart(sup); // the count starts again: 0, not 2
      await killAndAwaitRestart(sup); // 1
      expect(gaveUp).toBeNull();
      expect(sup.state()).toMatchObject({ state: 'up', restarts: 4 });
    } finally {
      await sup.stop();
    }
  });
});
