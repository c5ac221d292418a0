import { type Static, type TSchema, Type } from 'typebox';
import { PageQuery, Status, Timestamp } from '../../platform/http/schemas.ts';

/** Wire shapes of the member admin API. */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** `T | null` for request fields as one schema: with Ajv's scalar coercion a union would read "" as null. */
const OrNull = <T extends TSchema & { type: string }>(t: T) =>
  Type.Unsafe<Static<T> | null>({ ...t, type: [t.type, 'null'] });

export const MemberView = Type.Object({
  id: Type.Integer(),
  nickname: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  status: Status,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const fields = {
  nickname: Type.String({ minLength: 1, maxLength: 64 }),
  email: OrNull(Type.String({ format: 'email', maxLength: 254 })),
  phone: OrNull(Type.String({ maxLength: 32, pattern: '^[0-9+()\\- ]{3,32}$' })),
  status: Status,
};

export const MemberCreateBody = Type.Object({
  nickname: fields.nickname,
  email: Type.Optional(fields.email),
  phone: Type.Optional(fields.phone),
  status: Type.Optional(fields.status),
});
/** Partial: only the fields sent change; null clears email or phone. */
export const MemberUpdateBody = Type.Partial(Type.Object(fields));

export const MemberListQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'substring of nickname, email or phone' }),
  ),
  status: Type.Optional(Status),
});
