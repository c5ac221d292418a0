import { type TSchema, Type } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of share-link access records (`/api/drive/share-links/…/access-logs`). */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const AccessEvent = Type.Union(
  ['access', 'download', 'upload', 'wrong_password'].map((e) => Type.Literal(e)),
  { description: 'access: the link was opened; download; upload (collection links); wrong_password' },
);

const Range = {
  event: Type.Optional(AccessEvent),
  from: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'inclusive; default 30 days before `to`; at most 366 days before it',
    }),
  ),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'exclusive; default now' })),
};

export const AccessLogQuery = Type.Object({ ...Range, ...PageQuery.properties });
export const AccessLogExportBody = Type.Object(Range);
export const SpaceAccessLogExportBody = Type.Object({ spaceId: Id, ...Range });

export const AccessLogView = Type.Object({
  id: Type.Integer(),
  linkId: Type.Integer(),
  event: AccessEvent,
  node: Nullable(
    Type.Object({
      id: Type.Integer(),
      name: Nullable(Type.String({ description: "the node's current name; null once purged" })),
    }),
  ),
  ip: Nullable(
    Type.String({ description: 'the address the request came from (X-Forwarded-For only with TRUST_PROXY)' }),
  ),
  userAgent: Nullable(Type.String()),
  detail: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
});
