import pg from 'pg';
import { CONNECTION_OPTIONS } from '../db/connection-options.ts';
import type { JobsLogger } from './types.ts';

/**
 * Immediate delivery after commit. A job sent inside a transaction also runs
 * `pg_notify(WAKE_CHANNEL, queue)` in that transaction: PostgreSQL delivers the notification only
 * when the transaction commits (never after a rollback), and every instance listening wakes its
 * worker for that queue instead of waiting for the next poll. Losing the listener loses nothing:
 * workers still poll.
 */
export const WAKE_CHANNEL = 'atrium_jobs_wake';

export type WakeListener = { start(): Promise<void>; stop(): Promise<void> };

type Opts = {
  onWake: (queue: string) => void;
  /**
   * Listening again after the connection was lost (the server restarted, an outage ended):
   * notifications sent meanwhile were lost, and workers whose polls failed wait a whole interval
   * before the next one, so every worker should look for due jobs now.
   */
  onReconnect: () => void;
  log: JobsLogger;
};

/** How long after a lost connection (and after each failed attempt) the listener connects again. */
const RETRY_MS = 1_000;

/** A dedicated connection (LISTEN cannot use a pooled one); reconnects after a failure. */
export function postgresWakeListener(connectionString: string, opts: Opts): WakeListener {
  let client: pg.Client | null = null;
  let stopped = true;
  let retry: NodeJS.Timeout | null = null;
  /** failed reconnection attempts since the connection was lost: only the first is logged */
  let failedAttempts = 0;

  async function connect(again: boolean) {
    const c = new pg.Client({ connectionString, application_name: 'atrium-jobs-wake', ...CONNECTION_OPTIONS });
    c.on('notification', (msg) => {
      if (msg.channel === WAKE_CHANNEL && msg.payload) opts.onWake(msg.payload);
    });
    c.on('error', (err) => {
      opts.log.warn({ err }, 'jobs: wake listener lost its connection; workers keep polling');
      if (client === c) client = null;
      c.end().catch(() => {});
      schedule();
    });
    await c.connect();
    await c.query(`LISTEN ${WAKE_CHANNEL}`);
    if (stopped) return c.end();
    client = c;
    if (again) {
      opts.log.info({ failedAttempts }, 'jobs: wake listener connected again; waking every worker');
      failedAttempts = 0;
      opts.onReconnect();
    }
  }

  function schedule() {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect(true).catch((err) => {
        if (failedAttempts++ === 0)
          opts.log.warn({ err }, 'jobs: wake listener cannot reconnect yet; trying every second');
        schedule();
      });
    }, RETRY_MS);
    retry.unref();
  }

  return {
    async start() {
      stopped = false;
      await connect(false);
    },
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      retry = null;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
