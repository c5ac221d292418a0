import type { Db } from '../db/client.ts';
import type { Definition, DepsOf, Registered } from './define.ts';

export type JobsLogger = {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
};

/** What a handler learns about the job it runs. */
export type JobInfo = {
  id: string;
  queue: string;
  /** 1 on the first delivery, 2 on the first retry (also after a crashed worker's job expired), … */
  attempt: number;
  retryLimit: number;
  createdOn: Date;
};

export type QueueOptions = {
  /** retries after the first attempt; default 3 */
  retryLimit?: number;
  /** seconds before a retry; default 5 */
  retryDelay?: number;
  /** double the delay on each retry (with jitter); default true */
  retryBackoff?: boolean;
  /** move jobs that used up their retries to `<name>.dead`; default true */
  deadLetter?: boolean;
  /**
   * An attempt taking longer fails (and is retried). A job whose worker died is retried once it
   * is this old, by whichever instance sweeps first. Default 900.
   */
  expireInSeconds?: number;
  /** parallel jobs of this queue per instance; default 1 */
  concurrency?: number;
  /** how often an idle worker looks for jobs; default JOBS_POLL_SECONDS */
  pollingIntervalSeconds?: number;
};

export type SendOptions = {
  /** the caller's Drizzle transaction: the job exists only if that transaction commits */
  tx?: Db;
  /** with `singletonSeconds`: at most one job per key and time slot */
  singletonKey?: string;
  singletonSeconds?: number;
  /** not before this time (a Date) or this many seconds from now */
  startAfter?: Date | number;
};

export type ScheduleOptions = {
  /** one schedule per (queue, key); default '' */
  key?: string;
  /** IANA time zone of the cron expression; default UTC */
  timezone?: string;
};

export type ScheduleInfo = { queue: string; key: string; cron: string; timezone: string; data: unknown };

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

export type JobRecord = {
  id: string;
  queue: string;
  state: JobState;
  data: unknown;
  retryCount: number;
  output: unknown;
  createdOn: Date;
  completedOn: Date | null;
};

export type QueueStat = { queue: string; queued: number; active: number; failed: number };

/** One run of a system task, as the cron admin starts it. */
export type TaskRun = {
  trigger: 'scheduled' | 'manual';
  cronJobId: number;
  runId: number;
  log: JobsLogger;
};

/** A registered system task, as the cron admin runs it (declared with `defineSystemTask`). */
export type SystemTask = {
  name: string;
  description?: string;
  schedule?: string;
  timezone?: string;
  handler: (params: Record<string, unknown>, run: TaskRun) => Promise<unknown>;
};

export type Jobs = {
  /**
   * Registers a module's queues and system tasks, declared in its jobs.ts (`defineJob`,
   * `defineSystemTask`): answers the typed `Job` of each queue. `deps()` is called when a job or
   * task runs, never before start (see define.ts for why). Before start: queues are created at start.
   */
  register<T extends Record<string, Definition>>(
    defs: T,
    ...deps: unknown extends DepsOf<T> ? [] : [() => DepsOf<T>]
  ): Registered<T>;
  getJob(name: string, id: string): Promise<JobRecord | null>;
  /** Jobs that used up their retries, newest first. */
  deadLetters(name: string, limit?: number): Promise<JobRecord[]>;
  queueStats(): Promise<QueueStat[]>;
  systemTask(name: string): SystemTask | null;
  systemTasks(): readonly SystemTask[];
  readonly started: boolean;
  /** One round trip on the job runner's own connections (health); throws when it is stopped or cannot reach them. */
  probe(): Promise<void>;
  start(): Promise<void>;
  /** Stops fetching, lets active jobs finish (up to the stop timeout), then releases the database. */
  stop(): Promise<void>;
};
