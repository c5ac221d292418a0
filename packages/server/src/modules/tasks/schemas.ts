import { Type } from 'typebox';
import { AbsoluteUrl } from '../../platform/http/public-links.ts';
import { Id, NullableTimestamp, PageQuery, Timestamp } from '../../platform/http/schemas.ts';
import { TASK_STATUSES } from './tables.ts';

/** Wire shapes of the task center. */
export const TaskStatusSchema = Type.Union(TASK_STATUSES.map((s) => Type.Literal(s)));

export const Task = Type.Object({
  id: Id,
  kind: Type.String({ description: 'e.g. export.operation_logs' }),
  params: Type.Record(Type.String(), Type.Unknown(), { description: 'what the task was asked to do' }),
  status: TaskStatusSchema,
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  error: Type.Union([Type.String(), Type.Null()], {
    description:
      'why it failed; on a queued task, the outage it waits out (a dependency answered 503: it runs again, 5 s doubling to 15 min, 12 times)',
  }),
  cancelRequested: Type.Boolean(),
  resultAvailable: Type.Boolean({ description: 'succeeded with a result file that has not expired' }),
  resultUrl: Type.Union([AbsoluteUrl('GET it (signed in as the owner) to download the result'), Type.Null()]),
  resultExpiresAt: NullableTimestamp,
  createdAt: Timestamp,
  startedAt: NullableTimestamp,
  finishedAt: NullableTimestamp,
});

export const TaskQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(TaskStatusSchema),
  kind: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});
