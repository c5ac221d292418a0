import type { DatabaseState } from './client.ts';
import type { EmbeddedPostgres } from './embedded-server.ts';

/**
 * The embedded PostgreSQL's only supervisor is the service that started it. When its postmaster
 * dies (the kernel's out-of-memory killer, a `kill -9`, a crash) the service starts it again on
 * the same data; the pool and the job listener reconnect by themselves. A restart that fails, or
 * a server that dies again soon after one, counts as a failure; after `maxFailures` in a row the
 * supervisor gives up and says why, and the service exits so an outer process manager takes over.
 * A deliberate stop (`stop()`, the service's shutdown) is never taken for a death.
 */
export type SupervisorPolicy = {
  /** how often the postmaster's pid is checked: it is not our child, so no exit event tells us */
  pollMs: number;
  /** the wait before the first restart; doubled after each failure, up to `maxDelayMs` */
  firstDelayMs: number;
  maxDelayMs: number;
  /** consecutive failed restarts before giving up */
  maxFailures: number;
  /** a restarted server that dies sooner than this counts as a failed restart */
  stableMs: number;
};

export const DEFAULT_POLICY: SupervisorPolicy = {
  pollMs: 200,
  firstDelayMs: 500,
  maxDelayMs: 8_000,
  maxFailures: 5,
  stableMs: 60_000,
};

export type Supervisor = {
  state(): DatabaseState;
  /** stops watching, lets a restart under way finish, then stops the server */
  stop(): Promise<void>;
};

export type SupervisorOptions = {
  log: (line: string) => void;
  /** told once, with the reason, when the server cannot be kept running */
  onGiveUp: (reason: string) => void;
  policy?: Partial<SupervisorPolicy>;
  now?: () => number;
};

export function superviseEmbedded(server: EmbeddedPostgres, opts: SupervisorOptions): Supervisor {
  const policy = { ...DEFAULT_POLICY, ...opts.policy };
  const now = opts.now ?? Date.now;
  let state: DatabaseState = { state: 'up', since: new Date(now()), restarts: 0 };
  let stopping = false;
  let failures = 0;
  /** when the last restart succeeded (null: the server is the one the service started with) */
  let restartedAt: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  let restarting: Promise<void> | null = null;

  const enter = (s: DatabaseState['state']) => {
    state = { state: s, since: new Date(now()), restarts: state.restarts };
  };

  const watch = setInterval(() => {
    if (stopping || state.state !== 'up' || server.running()) return;
    const pid = server.pid();
    const lived = now() - (restartedAt ?? Number.NEGATIVE_INFINITY);
    failures = lived < policy.stableMs ? failures + 1 : 0;
    enter('down');
    if (failures >= policy.maxFailures) {
      giveUp(
        `it died again ${Math.round(lived / 1000)} s after being started, ${failures} restarts in a row did not hold`,
      );
      return;
    }
    opts.log(`database: the embedded PostgreSQL (pid ${pid}) exited unexpectedly; starting it again`);
    schedule();
  }, policy.pollMs);
  watch.unref();

  function schedule() {
    const delay = Math.min(policy.firstDelayMs * 2 ** failures, policy.maxDelayMs);
    timer = setTimeout(() => {
      timer = null;
      restarting = attempt().finally(() => {
        restarting = null;
      });
    }, delay);
  }

  async function attempt() {
    if (stopping) return;
    enter('restarting');
    const down = state.since.getTime();
    try {
      await server.restart();
    } catch (err) {
      failures++;
      const why = err instanceof Error ? err.message : String(err);
      if (stopping) return;
      enter('down');
      if (failures >= policy.maxFailures) {
        giveUp(`${failures} restarts in a row failed; the last one said:\n${why}`);
        return;
      }
      opts.log(`database: starting the embedded PostgreSQL failed (attempt ${failures}): ${why.split('\n')[0]}`);
      schedule();
      return;
    }
    restartedAt = now();
    state = { state: 'up', since: new Date(restartedAt), restarts: state.restarts + 1 };
    opts.log(
      `database: the embedded PostgreSQL is running again (pid ${server.pid()}, ${restartedAt - down} ms to start, ` +
        `restart ${state.restarts} since the service started)`,
    );
  }

  function giveUp(why: string) {
    clearInterval(watch);
    enter('down');
    opts.onGiveUp(`the embedded PostgreSQL cannot be kept running: ${why}`);
  }

  return {
    state: () => state,
    async stop() {
      stopping = true;
      clearInterval(watch);
      if (timer) clearTimeout(timer);
      timer = null;
      await restarting;
      await server.stop();
    },
  };
}
