import pg from 'pg';
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

type Opts = { onWake: (queue: string) => void; log: JobsLogger };

/** A dedicated connection (LISTEN cannot use a pooled one); reconnects after a failure. */
export function postgresWakeListener(connectionString: string, opts: Opts): WakeListener {
  let client: pg.Client | null = null;
  let stopped = true;
  let retry: NodeJS.Timeout | null = null;

  async function connect() {
    const c = new pg.Client({ connectionString, application_name: 'atrium-jobs-wake' });
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
    if (stopped) await c.end();
    else client = c;
  }

  function schedule() {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect().catch((err) => {
        opts.log.warn({ err }, 'jobs: wake listener cannot reconnect yet');
        schedule();
      });
    }, 2000);
    retry.unref();
  }

  return {
    async start() {
      stopped = false;
      await connect();
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
