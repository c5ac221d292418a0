import { Type } from 'typebox';
import { Id, NullableTimestamp, PageQuery, Status, Timestamp } from '../../platform/http/schemas.ts';

/** Wire shapes of the system module (dictionaries, configs, notices, operation logs, settings). */
const Code = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z][A-Za-z0-9_.:-]*$' });
const Name = Type.String({ minLength: 1, maxLength: 64 });
const Remark = Type.String({ maxLength: 500 });
const Keyword = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'contained in code/key or name (case-insensitive)',
});

// ---- dictionaries
export const DictType = Type.Object({
  id: Id,
  code: Type.String(),
  name: Type.String(),
  status: Status,
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const DictTypeCreate = Type.Object(
  { code: Code, name: Name, status: Type.Optional(Status), remark: Type.Optional(Remark) },
  { additionalProperties: false },
);
export const DictTypeUpdate = Type.Partial(DictTypeCreate, { additionalProperties: false });
export const DictTypeQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Keyword),
  status: Type.Optional(Status),
});
export const DictCodeParams = Type.Object({ code: Code });

export const DictItem = Type.Object({
  id: Id,
  typeId: Id,
  label: Type.String(),
  value: Type.String(),
  sort: Type.Integer(),
  status: Status,
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const Sort = Type.Integer({ minimum: 0, maximum: 999_999 });
export const DictItemCreate = Type.Object(
  {
    typeId: Id,
    label: Name,
    value: Type.String({ minLength: 1, maxLength: 128 }),
    sort: Type.Optional(Sort),
    status: Type.Optional(Status),
    remark: Type.Optional(Remark),
  },
  { additionalProperties: false },
);
export const DictItemUpdate = Type.Partial(DictItemCreate, { additionalProperties: false });
export const DictItemQuery = Type.Object({
  ...PageQuery.properties,
  typeId: Type.Optional(Id),
  keyword: Type.Optional(Keyword),
  status: Type.Optional(Status),
});
export const DictOption = Type.Object({ id: Id, label: Type.String(), value: Type.String(), sort: Type.Integer() });

// ---- system configs
export const SystemConfig = Type.Object({
  id: Id,
  key: Type.String(),
  value: Type.String(),
  name: Type.String(),
  builtin: Type.Boolean({ description: 'built-in entries cannot be deleted and keep their key' }),
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const ConfigKey = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z][A-Za-z0-9_.:-]*$' });
export const SystemConfigCreate = Type.Object(
  { key: ConfigKey, value: Type.String({ maxLength: 4000 }), name: Name, remark: Type.Optional(Remark) },
  { additionalProperties: false },
);
export const SystemConfigUpdate = Type.Partial(SystemConfigCreate, { additionalProperties: false });
export const SystemConfigQuery = Type.Object({ ...PageQuery.properties, keyword: Type.Optional(Keyword) });
export const ConfigKeyParams = Type.Object({ key: ConfigKey });
export const ConfigValue = Type.Object({
  key: Type.String(),
  value: Type.String(),
  level: Type.Union([Type.Literal('tenant'), Type.Literal('platform')], { description: 'where the value came from' }),
});

// ---- notices
export const NoticeType = Type.Union([Type.Literal('notice'), Type.Literal('announcement')]);
export const NoticeStatus = Type.Union([Type.Literal('draft'), Type.Literal('published'), Type.Literal('withdrawn')]);
export const Notice = Type.Object({
  id: Id,
  title: Type.String(),
  content: Type.String({ description: 'sanitized HTML' }),
  type: NoticeType,
  status: NoticeStatus,
  publishedAt: NullableTimestamp,
  createdBy: Type.Union([Id, Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const Title = Type.String({ minLength: 1, maxLength: 200 });
const Content = Type.String({ minLength: 1, maxLength: 200_000, description: 'HTML; sanitized on save' });
export const NoticeCreate = Type.Object(
  { title: Title, content: Content, type: Type.Optional(NoticeType) },
  { additionalProperties: false },
);
export const NoticeUpdate = Type.Partial(NoticeCreate, { additionalProperties: false });
export const NoticeQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'contained in the title' })),
  type: Type.Optional(NoticeType),
  status: Type.Optional(NoticeStatus),
});
export const PublishedNotice = Type.Object({
  id: Id,
  title: Type.String(),
  content: Type.String(),
  type: NoticeType,
  publishedAt: Timestamp,
});
export const PublishedNoticeQuery = Type.Object({ ...PageQuery.properties, type: Type.Optional(NoticeType) });

// ---- operation logs
export const OperationLog = Type.Object({
  id: Id,
  userId: Type.Union([Id, Type.Null()]),
  username: Type.String(),
  module: Type.String(),
  operation: Type.String(),
  method: Type.String(),
  path: Type.String(),
  statusCode: Type.Integer(),
  errorKey: Type.Union([Type.String(), Type.Null()]),
  ip: Type.String(),
  userAgent: Type.String(),
  durationMs: Type.Integer(),
  requestId: Type.String(),
  createdAt: Timestamp,
});
const TimeRange = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'inclusive' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'exclusive' })),
};
/** The filters that narrow one person's records: no user to choose. */
const OwnOperationLogFilters = {
  module: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  operation: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  ip: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'contained in the IP address' })),
  statusCode: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
  ...TimeRange,
};
const OperationLogFilters = {
  userId: Type.Optional(Id),
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'contained in the username' })),
  ...OwnOperationLogFilters,
};
export const OperationLogQuery = Type.Object({ ...PageQuery.properties, ...OperationLogFilters });
/** The list's filters as a JSON body (an export of the operation log). */
export const OperationLogFilter = Type.Object(OperationLogFilters, { additionalProperties: false });
/** The filters of an export of one's own records: a user id (or name) in it is refused, not ignored. */
export const OwnOperationLogFilter = Type.Object(OwnOperationLogFilters, { additionalProperties: false });
export const MyOperationLogQuery = Type.Object({ ...PageQuery.properties, ...TimeRange });

// ---- settings
export const SettingsModuleParams = Type.Object({ module: Type.String({ minLength: 1, maxLength: 64 }) });
const Visibility = Type.Union([Type.Literal('public'), Type.Literal('authenticated'), Type.Literal('admin')]);
export const SettingsValues = Type.Record(Type.String(), Type.Unknown());
export const SettingsModuleView = Type.Object({
  module: Type.String(),
  title: Type.String(),
  values: SettingsValues,
  fields: Type.Array(
    Type.Object({
      name: Type.String(),
      description: Type.String(),
      visibility: Visibility,
      platformOnly: Type.Boolean(),
      default: Type.Unknown(),
    }),
  ),
});
export const SettingsByModule = Type.Record(Type.String(), SettingsValues, {
  description: 'module → field → effective value',
});
