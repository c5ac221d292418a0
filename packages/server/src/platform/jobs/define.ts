import { cronProblem } from './cron.ts';
import type { JobInfo, QueueOptions, ScheduleInfo, ScheduleOptions, SendOptions, TaskRun } from './types.ts';

/**
 * How a module declares its background work, in its `jobs.ts` (docs/decisions/0006-jobs.md):
 *
 *   export const outbox = defineJob<{ outboxId: number }, { process: (id: number) => Promise<void> }>({
 *     name: 'messaging.outbox',
 *     options: { retryLimit: 5 },
 *     handler: ({ outboxId }, _job, { process }) => process(outboxId),
 *   });
 *
 * and `index.ts` registers them: `const jobs = ctx.jobs.register({ outbox, … }, () => ({ process }))`
 * answers `jobs.outbox.send(payload, { tx })`, typed by the payload.
 *
 * Why the handler takes `deps` and `register` a function answering them: a service usually sends
 * the job whose handler calls that same service. The typed sender exists as soon as the job is
 * registered, so the service can be built with it; `deps()` is called only when a job runs (after
 * start), by which time `index.ts` has built everything the handler needs.
 */
export type JobDefinition<P, D = unknown> = {
  readonly kind: 'job';
  /** `<module>.<name>`, the module spelled as its folder (`open-platform.webhooks.wake`) */
  name: string;
  options?: QueueOptions;
  /** Returns the job's result (stored as its output); throws to fail the attempt (retry, then dead letter). */
  handler: (payload: P, job: JobInfo, deps: D) => Promise<unknown>;
};

/**
 * A system task: a handler the cron jobs admin binds jobs to. With a `schedule` it also gets a
 * built-in cron job with that default (seeded at start).
 */
export type SystemTaskDefinition<D = unknown> = {
  readonly kind: 'systemTask';
  /** `<module>.<task>`, e.g. `files.collectOrphans` */
  name: string;
  description?: string;
  /** default cron expression (5 fields) */
  schedule?: string;
  /** IANA time zone of `schedule`; default UTC */
  timezone?: string;
  /** `params` are the cron job's JSON parameters; the result is stored in the run log */
  handler: (params: Record<string, unknown>, run: TaskRun, deps: D) => Promise<unknown>;
};

/** A registered queue: sends only its payload type. */
export type Job<P> = {
  readonly name: string;
  /** Sends a job; with `tx`, inside that transaction (outbox). Answers the job id, or null when a singleton slot is taken. */
  send(payload: P, options?: SendOptions): Promise<string | null>;
  /** A cron schedule that fires once per tick across all instances (at most once a minute). */
  schedule(cron: string, payload: P, options?: ScheduleOptions): Promise<void>;
  unschedule(key?: string): Promise<void>;
  schedules(): Promise<ScheduleInfo[]>;
};

// biome-ignore lint/suspicious/noExplicitAny: any payload; the deps are checked by DepsOf
export type Definition = JobDefinition<any, never> | SystemTaskDefinition<never>;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** What the handlers of a group of definitions need, all together. */
export type DepsOf<T extends Record<string, Definition>> = UnionToIntersection<
  {
    [K in keyof T]: T[K] extends JobDefinition<infer _P, infer D>
      ? D
      : T[K] extends SystemTaskDefinition<infer D>
        ? D
        : never;
  }[keyof T]
>;

/** The group as registered: a typed `Job` per queue; system tasks have nothing to send. */
export type Registered<T extends Record<string, Definition>> = {
  [K in keyof T as T[K] extends JobDefinition<infer _P, infer _D> ? K : never]: T[K] extends JobDefinition<
    infer P,
    infer _D
  >
    ? Job<P>
    : never;
};

const NAME = /^[a-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

function checkedName(name: string, what: string): void {
  if (!NAME.test(name) || name.length > 100 || name.endsWith('.dead'))
    throw new Error(`jobs: invalid ${what} name "${name}"`);
}

/** Declares a queue (in a module's jobs.ts); `ctx.jobs.register` makes it run and send. */
export function defineJob<P, D = unknown>(def: Omit<JobDefinition<P, D>, 'kind'>): JobDefinition<P, D> {
  checkedName(def.name, 'queue');
  return { ...def, kind: 'job' };
}

/** Declares a system task (in a module's jobs.ts); `ctx.jobs.register` adds it to the registry. */
export function defineSystemTask<D = unknown>(def: Omit<SystemTaskDefinition<D>, 'kind'>): SystemTaskDefinition<D> {
  checkedName(def.name, 'system task');
  const problem = def.schedule ? cronProblem(def.schedule, def.timezone ?? 'UTC') : null;
  if (problem) throw new Error(`jobs: system task "${def.name}": schedule ${problem}`);
  return { ...def, kind: 'systemTask' };
}
