import PgBoss from 'pg-boss';
import type { Registry } from 'prom-client';
import type { Config } from '../../config.ts';
import type { Database } from '../db/client.ts';
import { CONNECTION_OPTIONS } from '../db/connection-options.ts';
import { connectionFailed } from '../db/unavailable.ts';
import { canonicalTimezone, cronProblem } from './cron.ts';
import type { Definition, Job } from './define.ts';
import { drizzleExecutor } from './executors.ts';
import { findJob, JOBS_SCHEMA, listJobs, queueStats } from './inspect.ts';
import { registerJobMetrics } from './metrics.ts';
import type { JobInfo, Jobs, JobsLogger, QueueOptions, ScheduleOptions, SendOptions, SystemTask } from './types.ts';
import { postgresWakeListener, WAKE_CHANNEL, type WakeListener } from './wake.ts';

export type JobsConfig = Pick<
  Config,
  'databasePoolMax' | 'jobsPollSeconds' | 'jobsCronCheckSeconds' | 'jobsSweepSeconds'
>;

export type JobsDeps = {
  database: Database;
  config: JobsConfig;
  log: JobsLogger;
  /** the app's Prometheus registry: job gauges are added to it */
  registry?: Registry;
  /** how long stop() waits for active jobs; default 10 s (main.ts forces exit after 15 s) */
  stopTimeoutMs?: number;
};

type QueueDef = {
  name: string;
  handler: (payload: unknown, job: JobInfo) => Promise<unknown>;
  options: Required<QueueOptions>;
  workerIds: string[];
  ready: Promise<void> | null;
};

const DEFAULTS = { retryLimit: 3, retryDelay: 5, retryBackoff: true, deadLetter: true, expireInSeconds: 900 };

/**
 * Jobs, schedules and the outbox on pg-boss, in the application's own database (schema `pgboss`).
 * Modules see only this interface; pg-boss stays inside `platform/jobs` (docs/decisions/0006-jobs.md).
 */
export function createJobs(deps: JobsDeps): Jobs {
  const { database, config, log } = deps;
  const queues = new Map<string, QueueDef>();
  const tasks = new Map<string, SystemTask>();
  const pendingSchedules: (() => Promise<void>)[] = [];
  let boss: PgBoss | null = null;
  let wake: WakeListener | null = null;
  let started = false;
  /** the pgboss schema exists (after the first start): inspection may query it */
  let installed = false;
  const unreachable = { loggedAt: 0, count: 0 };

  function createBoss(): PgBoss {
    const timing = {
      schema: JOBS_SCHEMA,
      // Expired active jobs (a crashed worker's) go back to retry at each sweep.
      superviseIntervalSeconds: config.jobsSweepSeconds,
      monitorIntervalSeconds: config.jobsSweepSeconds,
      // One instance evaluates the cron schedules per check; a tick is deduplicated per minute.
      cronMonitorIntervalSeconds: config.jobsCronCheckSeconds,
      cronWorkerIntervalSeconds: Math.min(5, config.jobsCronCheckSeconds),
    };
    const b = new PgBoss({
      ...timing,
      ...CONNECTION_OPTIONS,
      connectionString: database.url,
      max: Math.max(2, Math.ceil(config.databasePoolMax / 2)),
      application_name: 'atrium-jobs',
    });
    b.on('error', (error) => {
      // an error of pg-boss's pool carries the whole connection object: not for the log
      const e = error as Error & { client?: unknown; code?: unknown };
      const err = e.client ? { type: e.name, message: e.message, code: e.code, stack: e.stack } : error;
      if (!connectionFailed(err)) return log.error({ err }, 'jobs: background error');
      // while the database is down every worker's poll fails: one line per 30 s, not one per poll
      const now = Date.now();
      unreachable.count++;
      if (now - unreachable.loggedAt < 30_000) return;
      log.warn({ err, failures: unreachable.count }, 'jobs: the database cannot be reached; workers keep polling');
      unreachable.loggedAt = now;
      unreachable.count = 0;
    });
    b.on('warning', (w) => log.warn({ warning: w }, 'jobs: warning'));
    return b;
  }

  function running(): PgBoss {
    if (!boss || !started) throw new Error('jobs: not started');
    return boss;
  }

  function wakeWorkers(queue: string) {
    const def = queues.get(queue);
    if (!boss || !def) return;
    for (const id of def.workerIds) boss.notifyWorker(id);
  }

  async function install(def: QueueDef): Promise<void> {
    const b = running();
    const { deadLetter, retryLimit, retryDelay, retryBackoff, expireInSeconds } = def.options;
    const dead = deadLetter ? `${def.name}.dead` : undefined;
    if (dead) await b.createQueue(dead);
    const settings = { retryLimit, retryDelay, retryBackoff, expireInSeconds };
    await b.createQueue(def.name, { ...settings, ...(dead ? { deadLetter: dead } : {}) });
    // createQueue keeps an existing queue as it was: bring its settings in line with the code.
    await b.updateQueue(def.name, { ...settings, ...(dead ? { deadLetter: dead } : {}) });
    for (let i = 0; i < def.options.concurrency; i++) {
      const id = await b.work(
        def.name,
        { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: def.options.pollingIntervalSeconds },
        async ([job]) => {
          if (!job) return null;
          const info: JobInfo = {
            id: job.id,
            queue: def.name,
            attempt: job.retryCount + 1,
            retryLimit: job.retryLimit,
            createdOn: job.createdOn,
          };
          try {
            return (await def.handler(job.data, info)) ?? null;
          } catch (err) {
            log.warn({ err, queue: def.name, jobId: job.id, attempt: info.attempt }, 'jobs: attempt failed');
            throw err;
          }
        },
      );
      def.workerIds.push(id);
    }
  }

  async function queueFor(name: string): Promise<QueueDef> {
    const def = queues.get(name);
    if (!def) throw new Error(`jobs: queue "${name}" is not defined`);
    running();
    await def.ready;
    return def;
  }

  function addTask(def: Extract<Definition, { kind: 'systemTask' }>, deps: () => unknown): void {
    if (tasks.has(def.name)) throw new Error(`jobs: system task "${def.name}" is registered twice`);
    const { kind: _kind, handler, ...rest } = def;
    tasks.set(def.name, { ...rest, handler: (params, run) => handler(params, run, deps() as never) });
  }

  /** A queue, its dead-letter queue `<name>.dead` and its worker; before start, created at start. */
  function addQueue(name: string, handler: QueueDef['handler'], options: QueueOptions = {}): Job<unknown> {
    if (queues.has(name)) throw new Error(`jobs: queue "${name}" is defined twice`);
    const def: QueueDef = {
      name,
      handler,
      options: { ...DEFAULTS, concurrency: 1, pollingIntervalSeconds: config.jobsPollSeconds, ...options },
      workerIds: [],
      ready: null,
    };
    queues.set(name, def);
    if (started) {
      def.ready = install(def);
      def.ready.catch((err) => log.error({ err, queue: name }, 'jobs: queue not created'));
    }
    return {
      name,
      send: (payload, options) => send(name, payload, options),
      schedule: (cron, payload, options = {}) => schedule(name, cron, payload, options),
      unschedule: async (key = '') => {
        await running().unschedule(name, key);
      },
      async schedules() {
        const rows = await running().getSchedules();
        return rows
          .filter((s) => s.name === name)
          .map((s) => ({ queue: s.name, key: s.key, cron: s.cron, timezone: s.timezone, data: s.data ?? null }));
      },
    };
  }

  async function send(name: string, payload: unknown, options: SendOptions = {}): Promise<string | null> {
    const def = await queueFor(name);
    const b = running();
    const { tx, startAfter, ...rest } = options;
    const sendOptions: PgBoss.SendOptions = { ...rest, ...(startAfter !== undefined ? { startAfter } : {}) };
    if (!tx) {
      const id = await b.send(name, payload as object, sendOptions);
      wakeWorkers(def.name);
      return id;
    }
    const executor = drizzleExecutor(tx);
    const id = await b.send(name, payload as object, { ...sendOptions, db: executor as PgBoss.Db });
    // Delivered at commit, dropped on rollback: wakes the workers right after the commit.
    await executor.executeSql('SELECT pg_notify($1, $2)', [WAKE_CHANNEL, name]);
    return id;
  }

  async function schedule(name: string, cron: string, payload: unknown, options: ScheduleOptions): Promise<void> {
    const timezone = canonicalTimezone(options.timezone ?? 'UTC');
    if (!timezone) throw new Error(`jobs: invalid time zone "${options.timezone}"`);
    const problem = cronProblem(cron, timezone);
    if (problem) throw new Error(`jobs: cron "${cron}" ${problem}`);
    const apply = async () => {
      await queueFor(name);
      await running().schedule(name, cron.trim(), payload as object, { tz: timezone, key: options.key ?? '' });
    };
    if (started) await apply();
    else pendingSchedules.push(apply);
  }

  const jobs: Jobs = {
    get started() {
      return started;
    },

    register(defs, ...deps) {
      const depsOf = deps[0] ?? (() => undefined);
      const registered: Record<string, Job<unknown>> = {};
      for (const [key, def] of Object.entries(defs as Record<string, Definition>)) {
        if (def.kind === 'systemTask') addTask(def, depsOf);
        else
          registered[key] = addQueue(
            def.name,
            (payload, info) => def.handler(payload, info, depsOf() as never),
            def.options,
          );
      }
      return registered as never;
    },

    getJob: async (name, id) => (installed ? findJob(database.db, name, id) : null),
    deadLetters: async (name, limit = 50) => (installed ? listJobs(database.db, `${name}.dead`, limit) : []),
    queueStats: async () => (installed ? queueStats(database.db) : []),
    systemTask: (name) => tasks.get(name) ?? null,
    systemTasks: () => [...tasks.values()].sort((a, b) => a.name.localeCompare(b.name)),

    async probe() {
      await running().getDb().executeSql('select 1', []);
    },

    async start() {
      if (started) return;
      boss = createBoss();
      await boss.start();
      started = true;
      installed = true;
      for (const def of queues.values()) def.ready = install(def);
      await Promise.all([...queues.values()].map((d) => d.ready));
      for (const apply of pendingSchedules.splice(0)) await apply();
      const onWake = (queue: string) => wakeWorkers(queue);
      // after an outage: due jobs run now, not after each worker's next poll
      const onReconnect = () => {
        for (const name of queues.keys()) wakeWorkers(name);
      };
      wake = postgresWakeListener(database.url, { onWake, onReconnect, log });
      await wake.start();
    },

    async stop() {
      if (!started || !boss) return;
      await wake?.stop();
      wake = null;
      // graceful: workers stop fetching; active jobs get up to the timeout to finish (and may
      // still send), the rest are failed back to retry so another instance takes them.
      await boss.stop({ graceful: true, wait: true, timeout: deps.stopTimeoutMs ?? 10_000 });
      started = false;
      for (const def of queues.values()) {
        def.workerIds = [];
        def.ready = null;
      }
      boss = null;
    },
  };

  if (deps.registry) registerJobMetrics(deps.registry, () => jobs.queueStats());
  return jobs;
}
