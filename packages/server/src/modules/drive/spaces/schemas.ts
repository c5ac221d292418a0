import { type Static, type TSchema, Type } from 'typebox';
import { Id, INT4_MAX, NullableTimestamp, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import { DRIVE_ROLES } from '../roles.ts';
import type { DriveRole, SubjectType } from '../tables.ts';

/** Wire shapes of spaces and their members (spec §2.2, §4.3). */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** `T | null` for request fields as one schema (a union would let coercion read "" as null). */
const OrNull = <T extends TSchema & { type: string }>(t: T) =>
  Type.Unsafe<Static<T> | null>({ ...t, type: [t.type, 'null'] });

const SUBJECT_TYPES = ['user', 'department', 'role', 'group'] as const satisfies readonly SubjectType[];
const roleDescription = 'viewer < downloader < editor < manager (spec §5.5)';
export const Role = Type.Unsafe<DriveRole>({ type: 'string', enum: [...DRIVE_ROLES], description: roleDescription });
const RoleOrNull = Type.Unsafe<DriveRole | null>({
  type: ['string', 'null'],
  enum: [...DRIVE_ROLES, null],
  description: `${roleDescription}; null: none`,
});
const SubjectTypeSchema = Type.Unsafe<SubjectType>({
  type: 'string',
  enum: [...SUBJECT_TYPES],
  description: 'a user, a department (with its sub-departments), a role or a user group',
});
const SpaceTypeSchema = Type.Union([Type.Literal('personal'), Type.Literal('department'), Type.Literal('team')]);

/** 1 PiB: far above any real quota, well inside a JSON number. */
const MAX_QUOTA_BYTES = 1024 ** 5;

const fields = {
  // no control characters: a name is shown in lists, notifications and paths
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]*$', description: 'trimmed' }),
  // PostgreSQL text cannot hold NUL
  description: Type.String({ maxLength: 1000, pattern: '^[^\\u0000]*$' }),
  defaultMemberRole: Type.Unsafe<DriveRole | null>({
    ...RoleOrNull,
    description:
      'team: the role of every signed-in user of the tenant (null: members only); department: the role of the members of the department and its sub-departments (null: none)',
  }),
  quotaBytes: OrNull(
    Type.Integer({
      minimum: 0,
      maximum: MAX_QUOTA_BYTES,
      description: 'drive administrators only; 0 = unlimited; null = the settings default of the space type',
    }),
  ),
  maxVersions: OrNull(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'versions kept per file; null = the settings default' }),
  ),
  externalShareEnabled: Type.Boolean(),
};

export const SpaceCreateBody = Type.Object({
  type: Type.Union([Type.Literal('team'), Type.Literal('department')], {
    description:
      'team (any user with drive:space:edit) or department (drive administrators); personal spaces are created on first access',
  }),
  name: fields.name,
  description: Type.Optional(fields.description),
  departmentId: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: INT4_MAX,
      description: 'department spaces: the department (one space per department)',
    }),
  ),
  defaultMemberRole: Type.Optional(fields.defaultMemberRole),
  quotaBytes: Type.Optional(fields.quotaBytes),
  maxVersions: Type.Optional(fields.maxVersions),
  externalShareEnabled: Type.Optional(fields.externalShareEnabled),
});

/** Partial: only the fields sent change. */
export const SpaceUpdateBody = Type.Partial(Type.Object(fields));

export const SpaceListQuery = Type.Object({
  ...PageQuery.properties,
  type: Type.Optional(SpaceTypeSchema),
  includeArchived: Type.Optional(Type.Boolean({ description: 'archived spaces too (hidden by default)' })),
  all: Type.Optional(
    Type.Boolean({ description: "drive administrators: every space of the tenant, not only the caller's" }),
  ),
});

export const SpaceView = Type.Object({
  id: Type.Integer(),
  type: SpaceTypeSchema,
  name: Type.String(),
  description: Type.String(),
  ownerUserId: Nullable(Type.Integer()),
  departmentId: Nullable(Type.Integer()),
  defaultMemberRole: Nullable(Role),
  quotaBytes: Type.Integer({ description: 'effective quota in bytes; 0 = unlimited' }),
  usedBytes: Type.Integer(),
  reservedBytes: Type.Integer({ description: 'held by chunked uploads under way' }),
  maxVersions: Type.Integer({ description: 'effective version cap' }),
  externalShareEnabled: Type.Boolean(),
  archivedAt: NullableTimestamp,
  createdAt: Timestamp,
  myRole: Type.Union([Role, Type.Null()], { description: "the caller's space role (null: none, node grants only)" }),
});

export const SpaceDetail = Type.Object({
  ...SpaceView.properties,
  usage: Type.Object({
    quotaBytes: Type.Integer({ description: '0 = unlimited' }),
    usedBytes: Type.Integer(),
    reservedBytes: Type.Integer(),
    liveBytes: Type.Integer({ description: 'current versions of live files' }),
    trashBytes: Type.Integer({ description: 'current versions of files in the recycle bin' }),
    versionBytes: Type.Integer({ description: 'older versions' }),
  }),
});

export const TransferBody = Type.Object({
  userId: Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'the new owner: an active user of the tenant' }),
});

export const MemberParams = Type.Object({ id: Id, memberId: Id });

export const MemberCreateBody = Type.Object({
  subjectType: SubjectTypeSchema,
  subjectId: Id,
  role: Role,
});

export const MemberUpdateBody = Type.Object({ role: Role });

export const MemberListQuery = PageQuery;

export const MemberView = Type.Object({
  id: Type.Integer(),
  spaceId: Type.Integer(),
  subjectType: SubjectTypeSchema,
  subjectId: Type.Integer(),
  subjectName: Nullable(Type.String({ description: 'null when the subject no longer exists' })),
  role: Role,
  createdBy: Nullable(Type.Integer()),
  createdAt: Timestamp,
});
