import { Type } from 'typebox';
import { Id, NullableTimestamp, PageQuery, Timestamp } from '../../platform/http/schemas.ts';

/** Wire shapes of the cron jobs admin. */
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Handler = Type.String({ minLength: 1, maxLength: 100, description: 'a name from GET /api/cron-jobs/handlers' });
const Cron = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'five fields (minute hour day-of-month month day-of-week) or an @-alias; fires at most once a minute',
});
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Asia/Shanghai' });
const Params = Type.Record(Type.String(), Type.Unknown(), { description: 'JSON parameters given to the handler' });
const RunStatus = Type.Union([Type.Literal('running'), Type.Literal('success'), Type.Literal('failed')]);
const Trigger = Type.Union([Type.Literal('scheduled'), Type.Literal('manual')]);

export const CronJob = Type.Object({
  id: Id,
  name: Type.String(),
  handler: Type.String(),
  cron: Type.String(),
  timezone: Type.String(),
  params: Params,
  enabled: Type.Boolean(),
  builtin: Type.Boolean({ description: 'seeded from a system task: keeps its name and handler, cannot be deleted' }),
  remark: Type.String(),
  lastRunAt: NullableTimestamp,
  lastStatus: Type.Union([RunStatus, Type.Null()]),
  nextRunAt: Type.Union([Timestamp, Type.Null()], { description: 'null when disabled' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CronJobCreate = Type.Object(
  {
    name: Name,
    handler: Handler,
    cron: Cron,
    timezone: Type.Optional(Timezone),
    params: Type.Optional(Params),
    enabled: Type.Optional(Type.Boolean()),
    remark: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export const CronJobUpdate = Type.Partial(CronJobCreate, { additionalProperties: false });

export const CronJobQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'contained in name or handler' })),
  enabled: Type.Optional(Type.Boolean()),
});

export const CronHandler = Type.Object({
  name: Type.String(),
  description: Type.String(),
  schedule: Type.Union([Type.String(), Type.Null()], { description: 'default cron of its built-in job' }),
  timezone: Type.String(),
});

export const CronPreviewBody = Type.Object(
  {
    cron: Cron,
    timezone: Type.Optional(Timezone),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 5 })),
  },
  { additionalProperties: false },
);
export const CronPreview = Type.Object({ times: Type.Array(Timestamp) });

export const CronJobRun = Type.Object({
  id: Id,
  jobId: Id,
  handler: Type.String(),
  trigger: Trigger,
  status: RunStatus,
  scheduledAt: NullableTimestamp,
  startedAt: Timestamp,
  finishedAt: NullableTimestamp,
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  result: Type.Unknown({ description: 'what the handler returned (JSON), null when nothing' }),
  error: Type.Union([Type.String(), Type.Null()]),
  triggeredBy: Type.Union([Id, Type.Null()]),
});
export const CronJobRunQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(RunStatus),
  trigger: Type.Optional(Trigger),
});
