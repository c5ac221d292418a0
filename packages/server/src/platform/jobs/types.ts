import type { Db } from '../db/client.ts';

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

/** Returns the job's result (stored as its output); throws to fail the attempt (retry, then dead letter). */
export type JobHandler<P = unknown> = (payload: P, job: JobInfo) => Promise<unknown>;

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

/**
 * A scheduled system task, declared by its module beside its code and registered at module
 * creation (`ctx.jobs.registerSystemTask`). The registry is the list of handlers the cron admin
 * binds jobs to; a task with a `schedule` also gets a built-in cron job with that default.
 */
export type SystemTask = {
  /** `<module>.<task>`, e.g. `files.collectOrphans` */
  name: string;
  description?: string;
  /** default cron expression (5 fields) */
  schedule?: string;
  /** IANA time zone of `schedule`; default UTC */
  timezone?: string;
  /** `params` are the cron job's JSON parameters; the result is stored in the run log */
  handler: (params: Record<string, unknown>, run: TaskRun) => Promise<unknown>;
};

export type Jobs = {
  /** Declares a queue, its dead-letter queue `<name>.dead` and its worker. Before start: applied at start. */
  defineQueue<P>(name: string, handler: JobHandler<P>, options?: QueueOptions): Promise<void>;
  /** Sends a job; with `tx`, inside that transaction (outbox). Answers the job id, or null when a singleton slot is taken. */
  send(name: string, payload: unknown, options?: SendOptions): Promise<string | null>;
  /** A cron schedule that fires once per tick across all instances (at most once a minute). */
  schedule(name: string, cron: string, payload: unknown, options?: ScheduleOptions): Promise<void>;
  unschedule(name: string, key?: string): Promise<void>;
  schedules(name: string): Promise<ScheduleInfo[]>;
  getJob(name: string, id: string): Promise<JobRecord | null>;
  /** Jobs that used up their retries, newest first. */
  deadLetters(name: string, limit?: number): Promise<JobRecord[]>;
  queueStats(): Promise<QueueStat[]>;
  registerSystemTask(task: SystemTask): void;
  systemTask(name: string): SystemTask | null;
  systemTasks(): readonly SystemTask[];
  readonly started: boolean;
  start(): Promise<void>;
  /** Stops fetching, lets active jobs finish (up to the stop timeout), then releases the database. */
  stop(): Promise<void>;
};
