import { type TSchema, Type } from 'typebox';

/** Shared wire shapes: the envelope, errors, pages, batches (docs/api-conventions.md). */
export const Id = Type.Integer({ minimum: 1, description: 'Integer id' });
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const ErrorBody = Type.Object(
  {
    code: Type.Integer({ description: 'HTTP status' }),
    error: Type.String({ description: '<module>.<reason>' }),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    retryAfter: Type.Optional(
      Type.Integer({ minimum: 0, description: 'seconds to wait before retrying (429); also the Retry-After header' }),
    ),
    requestId: Type.String(),
  },
  { $id: 'ErrorBody', title: 'Error' },
);

export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ code: Type.Literal(0), message: Type.String(), data });
}

export const PageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
});

export function PageOf<T extends TSchema>(item: T) {
  return Type.Object({
    list: Type.Array(item),
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    pageSize: Type.Integer({ minimum: 1 }),
  });
}

export const BatchIds = Type.Object({
  ids: Type.Array(Id, { minItems: 1, maxItems: 500, uniqueItems: true }),
});
export const BatchStatus = Type.Object({
  ids: Type.Array(Id, { minItems: 1, maxItems: 500, uniqueItems: true }),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
});
/** What a batch answers: the ids it changed (all or nothing: an id outside the tenant answers 404, docs/api-conventions.md). */
export const BatchResult = Type.Object({ affected: Type.Array(Id) });
export const Ok = Type.Object({ ok: Type.Literal(true) });
export const Status = Type.Union([Type.Literal('active'), Type.Literal('disabled')]);
