import { Type } from 'typebox';
import {
  FiniteNumber,
  Id,
  INT4_MAX,
  NullableTimestamp,
  PageQuery,
  Status,
  Timestamp,
} from '../../../platform/http/schemas.ts';

/** Wire shapes of in-app messages and templates (spec §2.3, §4.4). Texts are plain; clients escape them. */
export const MessageType = Type.Union([Type.Literal('notification'), Type.Literal('system'), Type.Literal('manual')]);

const VariableName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' });
const Title = Type.String({ minLength: 1, maxLength: 200, description: 'plain text, `{{var}}` placeholders' });
const Content = Type.String({ minLength: 1, maxLength: 10_000, description: 'plain text, `{{var}}` placeholders' });
const Link = Type.String({
  minLength: 1,
  maxLength: 1000,
  description: 'deep link into the console: a console route (/drive?space=1) or an absolute http(s) URL',
});
const keyword = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
const TimeRange = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created before (exclusive)' })),
};

// ---- messages
export const InAppMessage = Type.Object({
  id: Id,
  userId: Id,
  templateId: Type.Union([Id, Type.Null()]),
  title: Type.String(),
  content: Type.String(),
  type: MessageType,
  isRead: Type.Boolean(),
  readAt: NullableTimestamp,
  source: Type.String({ description: 'the event key of a notification, `manual` for an administrator send' }),
  eventKey: Type.Union([Type.String(), Type.Null()]),
  senderId: Type.Union([Id, Type.Null()]),
  link: Type.Union([Type.String(), Type.Null()], {
    description:
      'deep link as given: a console route (/drive?space=1) stays relative to PUBLIC_BASE_URL here, where the console opens it; email, push, webhook and chat carry it absolute',
  }),
  createdAt: Timestamp,
});

export const MyMessageQuery = Type.Object({
  ...PageQuery.properties,
  isRead: Type.Optional(Type.Boolean()),
  type: Type.Optional(MessageType),
  keyword: Type.Optional(keyword('contained in the title or content')),
});

export const AdminMessageQuery = Type.Object({
  ...PageQuery.properties,
  userId: Type.Optional(Id),
  isRead: Type.Optional(Type.Boolean()),
  source: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'event key or `manual`' })),
  type: Type.Optional(MessageType),
  ...TimeRange,
});

export const UnreadCount = Type.Object({ count: Type.Integer({ minimum: 0 }) });
export const MarkedCount = Type.Object({
  marked: Type.Integer({ minimum: 0, description: 'messages newly marked read' }),
});
export const AdminReadAll = Type.Object(
  {
    userId: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: INT4_MAX,
        description: 'only this user’s messages; omitted = the whole tenant',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SendBody = Type.Object(
  {
    userIds: Type.Array(Id, { minItems: 1, maxItems: 500, uniqueItems: true }),
    templateId: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: INT4_MAX,
        description: 'an active template of your tenant; or give title and content',
      }),
    ),
    title: Type.Optional(Title),
    content: Type.Optional(Content),
    variables: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 2000 }), FiniteNumber, Type.Boolean()])),
    ),
    type: Type.Optional(MessageType),
    link: Type.Optional(Link),
  },
  { additionalProperties: false },
);
export const SendResult = Type.Object({ ids: Type.Array(Id, { description: 'the new messages, in userIds order' }) });

// ---- templates
export const InAppTemplate = Type.Object({
  id: Id,
  code: Type.String(),
  title: Type.String(),
  content: Type.String(),
  type: MessageType,
  variables: Type.Array(Type.String()),
  status: Status,
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const templateFields = {
  code: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z][A-Za-z0-9_.:-]*$' }),
  title: Title,
  content: Content,
  type: MessageType,
  variables: Type.Array(VariableName, { maxItems: 50, uniqueItems: true }),
  status: Status,
  remark: Type.String({ maxLength: 500 }),
};
export const TemplateCreate = Type.Object(
  {
    code: templateFields.code,
    title: templateFields.title,
    content: templateFields.content,
    type: Type.Optional(templateFields.type),
    variables: Type.Optional(templateFields.variables),
    status: Type.Optional(templateFields.status),
    remark: Type.Optional(templateFields.remark),
  },
  { additionalProperties: false },
);
export const TemplateUpdate = Type.Partial(Type.Object(templateFields), { additionalProperties: false });
export const TemplateQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(keyword('contained in the code or title')),
  type: Type.Optional(MessageType),
  status: Type.Optional(Status),
});
