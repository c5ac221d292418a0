import { Type } from 'typebox';
import { Id, NullableTimestamp, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of announcements (spec §2.3, §4.4). */
export const Priority = Type.Union(
  [Type.Literal('low'), Type.Literal('normal'), Type.Literal('high'), Type.Literal('urgent')],
  { description: 'lists put urgent first, then high, normal, low' },
);
export const TargetType = Type.Union([Type.Literal('all'), Type.Literal('targeted')], {
  description: 'all: every user of the tenant; targeted: the users its targets reach',
});
export const PublishStatus = Type.Union([Type.Literal('draft'), Type.Literal('published'), Type.Literal('withdrawn')]);
const AnnouncementType = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'free classification, e.g. notice, update, maintenance',
});
export const Target = Type.Object(
  {
    type: Type.Union([Type.Literal('user'), Type.Literal('role'), Type.Literal('dept')], {
      description: 'dept reaches the department and its sub-departments',
    }),
    id: Id,
  },
  { additionalProperties: false },
);

const Common = {
  id: Id,
  title: Type.String(),
  content: Type.String({ description: 'sanitized HTML' }),
  type: Type.String(),
  priority: Priority,
  publishTime: NullableTimestamp,
  expireTime: NullableTimestamp,
};

export const Announcement = Type.Object({
  ...Common,
  targetType: TargetType,
  publishStatus: PublishStatus,
  createdBy: Type.Union([Id, Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const AnnouncementDetail = Type.Object({ ...Announcement.properties, targets: Type.Array(Target) });

const Title = Type.String({ minLength: 1, maxLength: 200 });
const Content = Type.String({ minLength: 1, maxLength: 200_000, description: 'HTML; sanitized on save' });
const Targets = Type.Array(Target, {
  maxItems: 500,
  uniqueItems: true,
  description: 'required (non-empty) when targetType is targeted, empty when it is all',
});
export const AnnouncementCreate = Type.Object(
  {
    title: Title,
    content: Content,
    type: Type.Optional(AnnouncementType),
    priority: Type.Optional(Priority),
    targetType: Type.Optional(TargetType),
    targets: Type.Optional(Targets),
    expireTime: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'in the future; null: never' }),
    ),
  },
  { additionalProperties: false },
);
export const AnnouncementUpdate = Type.Partial(AnnouncementCreate, { additionalProperties: false });
export const AnnouncementQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'contained in the title' })),
  type: Type.Optional(AnnouncementType),
  status: Type.Optional(PublishStatus),
});

export const ReadStatsQuery = PageQuery;
export const ReadStats = Type.Object({
  audience: Type.Integer({ minimum: 0, description: 'active users the announcement reaches now' }),
  read: Type.Integer({ minimum: 0, description: 'of them, how many have read it' }),
  unread: Type.Integer({ minimum: 0 }),
  readers: Type.Object({
    list: Type.Array(Type.Object({ userId: Id, readAt: Timestamp })),
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    pageSize: Type.Integer({ minimum: 1 }),
  }),
});

// ---- user side
export const InboxItem = Type.Object({
  ...Common,
  publishTime: Timestamp,
  isRead: Type.Boolean(),
  readAt: NullableTimestamp,
});
export const InboxQuery = Type.Object({
  ...PageQuery.properties,
  isRead: Type.Optional(Type.Boolean()),
  type: Type.Optional(AnnouncementType),
});
export const PublishedQuery = Type.Object({ ...PageQuery.properties, type: Type.Optional(AnnouncementType) });
export const UnreadCount = Type.Object({ count: Type.Integer({ minimum: 0 }) });
export const ReadResult = Type.Object({ id: Id, readAt: Timestamp });
export const ReadAllResult = Type.Object({ marked: Type.Integer({ minimum: 0, description: 'newly marked read' }) });
