import { type TSchema, Type } from 'typebox';
import { BigId, Id, NullableTimestamp, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of the issue views (spec §2.5, §3.4, §4.6). */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ErrorTypeSchema = Type.Union([
  Type.Literal('js_error'),
  Type.Literal('promise_rejection'),
  Type.Literal('resource_error'),
  Type.Literal('console_error'),
  Type.Literal('http_error'),
  Type.Literal('white_screen'),
  Type.Literal('crash'),
]);
export const ErrorLevelSchema = Type.Union([
  Type.Literal('fatal'),
  Type.Literal('error'),
  Type.Literal('warning'),
  Type.Literal('info'),
]);
export const IssueStatusSchema = Type.Union([
  Type.Literal('unresolved'),
  Type.Literal('resolved'),
  Type.Literal('ignored'),
  Type.Literal('muted'),
]);

export const ErrorGroup = Type.Object({
  id: Id,
  fingerprint: Type.String(),
  environment: Type.String(),
  type: ErrorTypeSchema,
  message: Type.String({ description: 'the first report’s message' }),
  topFrame: Type.String({ description: '`function (file:line:col)` of the top frame, as reported (minified)' }),
  sourceFile: Type.String(),
  level: ErrorLevelSchema,
  status: IssueStatusSchema,
  assigneeId: Nullable(Id),
  note: Type.String(),
  eventCount: Type.Integer({ minimum: 0 }),
  identityCount: Type.Integer({ minimum: 0 }),
  firstRelease: Type.String(),
  lastRelease: Type.String(),
  firstSeenAt: Timestamp,
  lastSeenAt: Timestamp,
  resolvedAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Text = Type.String();
export const ErrorEvent = Type.Object({
  id: Id,
  groupId: Id,
  type: ErrorTypeSchema,
  level: ErrorLevelSchema,
  message: Text,
  stack: Text,
  sourceUrl: Text,
  pageUrl: Text,
  release: Text,
  environment: Text,
  breadcrumbs: Type.Array(Type.Unknown()),
  context: Type.Record(Type.String(), Type.Unknown()),
  http: Nullable(Type.Record(Type.String(), Type.Unknown())),
  replayId: Nullable(Text),
  userAgent: Text,
  browser: Text,
  os: Text,
  identity: Nullable(Type.String({ description: '`u:{userId}`, `m:{memberId}` or `a:{sessionId}`' })),
  ip: Text,
  createdAt: Timestamp,
});
/** Events inside an issue detail: without the bulky stack, breadcrumbs and context (see GET /events). */
export const ErrorEventSummary = Type.Omit(ErrorEvent, ['stack', 'breadcrumbs', 'context', 'userAgent']);

export const DayCount = Type.Object({
  date: Type.String({ description: 'UTC day, YYYY-MM-DD' }),
  count: Type.Integer({ minimum: 0 }),
});
/** 14 entries, oldest first, today (UTC) last; days without events count 0. */
export const Trend = Type.Array(DayCount, { minItems: 14, maxItems: 14 });
const NameCount = Type.Object({ name: Type.String(), count: Type.Integer({ minimum: 0 }) });

const GeneratedFrameSchema = Type.Object({
  function: Nullable(Type.String()),
  file: Type.String(),
  line: Nullable(Type.Integer()),
  column: Nullable(Type.Integer()),
});

/** A restored frame (original position and source lines) or why the frame was not restored. */
export const RestoredFrameSchema = Type.Union([
  Type.Object({
    restored: Type.Literal(true),
    function: Nullable(Type.String()),
    file: Type.String({ description: 'original source path as the map names it' }),
    line: Type.Integer(),
    column: Type.Integer({ description: '1-based' }),
    context: Nullable(
      Type.Object({
        startLine: Type.Integer({ description: 'line number of lines[0]' }),
        lines: Type.Array(Type.String(), { description: 'up to 3 lines either side of `line`' }),
      }),
    ),
    generated: GeneratedFrameSchema,
  }),
  Type.Object({
    restored: Type.Literal(false),
    reason: Type.Union(
      [Type.Literal('no_release'), Type.Literal('no_map'), Type.Literal('no_position'), Type.Literal('map_unreadable')],
      {
        description:
          'no_release: the event has no release; no_map: no map for this release and bundle; no_position: the map has no mapping there; map_unreadable: the stored map cannot be parsed',
      },
    ),
    frame: GeneratedFrameSchema,
  }),
]);

export const ErrorGroupDetail = Type.Object({
  ...ErrorGroup.properties,
  latestEvent: Nullable(ErrorEvent),
  restoredStack: Nullable(Type.Array(RestoredFrameSchema)),
  trend: Trend,
  browsers: Type.Array(NameCount, { description: 'top 10 browsers of the retained events' }),
  os: Type.Array(NameCount, { description: 'top 10 operating systems of the retained events' }),
  affectedUsers: Type.Object({
    count: Type.Integer({ minimum: 0 }),
    latest: Type.Array(Type.Object({ identity: Type.String(), firstSeenAt: Timestamp, lastSeenAt: Timestamp })),
  }),
  recentEvents: Type.Array(ErrorEventSummary, { description: 'the latest 20 events' }),
  links: Type.Object({
    issue: Type.String({
      description: 'console route of this issue (spec §4.6 rule 4), relative to PUBLIC_BASE_URL: the console opens it',
    }),
    replay: Nullable(
      Type.String({ description: 'console route of the session replay of the latest event that has one (relative)' }),
    ),
  }),
});

export const ErrorGroupQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(IssueStatusSchema),
  type: Type.Optional(ErrorTypeSchema),
  level: Type.Optional(ErrorLevelSchema),
  keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'message contains (any case)' })),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  release: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'first or last release' })),
  sort: Type.Optional(
    Type.Union([Type.Literal('lastSeenAt'), Type.Literal('eventCount')], {
      default: 'lastSeenAt',
      description: 'descending',
    }),
  ),
});

export const ErrorGroupUpdate = Type.Object(
  {
    status: Type.Optional(IssueStatusSchema),
    assigneeId: Type.Optional(Nullable(Id)),
    level: Type.Optional(ErrorLevelSchema),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

const Ids = Type.Array(BigId, { minItems: 1, maxItems: 500, uniqueItems: true });
export const ErrorGroupBatchStatus = Type.Object(
  { ids: Ids, status: IssueStatusSchema },
  { additionalProperties: false },
);
export const ErrorGroupBatchIds = Type.Object({ ids: Ids }, { additionalProperties: false });

export const ErrorEventQuery = Type.Object({
  ...PageQuery.properties,
  groupId: Type.Optional(Id),
  type: Type.Optional(ErrorTypeSchema),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created before (exclusive)' })),
});

export const Overview = Type.Object({
  kinds: Type.Array(
    Type.Object({ type: ErrorTypeSchema, issues: Type.Integer({ minimum: 0 }), events: Type.Integer({ minimum: 0 }) }),
    { description: 'every error type, with its issues and their occurrences' },
  ),
  unresolved: Type.Integer({ minimum: 0 }),
  totalEvents: Type.Integer({ minimum: 0, description: 'occurrences of every issue' }),
  affectedUsers: Type.Integer({ minimum: 0, description: 'distinct identities over every issue' }),
  newToday: Type.Integer({ minimum: 0, description: 'issues first seen since UTC midnight' }),
  trend: Trend,
  topIssues: Type.Array(
    Type.Object({
      id: Id,
      type: ErrorTypeSchema,
      level: ErrorLevelSchema,
      status: IssueStatusSchema,
      message: Type.String(),
      events: Type.Integer({ minimum: 0, description: 'events in the last 14 days' }),
    }),
    { description: 'top 10 issues by events in the last 14 days' },
  ),
});

export const CleanQuery = Type.Object({ days: Type.Integer({ minimum: 1, maximum: 3650 }) });
export const CleanResult = Type.Object({
  events: Type.Integer({ minimum: 0, description: 'events deleted' }),
  groups: Type.Integer({ minimum: 0, description: 'issues deleted because no event was left' }),
  identities: Type.Integer({ minimum: 0 }),
});
