import { type TSchema, Type } from 'typebox';

/** Shared wire shapes: the envelope, errors, pages, batches (docs/api-conventions.md). */

/**
 * Every number a request carries has a maximum (route() refuses a declaration without one), so a
 * value past its column's range is a 400 naming the field, never a database error.
 */
export const INT4_MAX = 2_147_483_647;
/** 2^53 − 1: the largest integer a JSON number carries exactly; bounds int8 (bigserial) ids. */
export const INT8_SAFE_MAX = Number.MAX_SAFE_INTEGER;

/** Id of a row keyed by `serial` (int4). */
export const Id = Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'Integer id' });
/** Id of a row of an append-heavy table keyed by `bigserial` (int8). */
export const BigId = Type.Integer({ minimum: 1, maximum: INT8_SAFE_MAX, description: 'Integer id (64-bit)' });
export const IdParams = Type.Object({ id: Id });
/** A file as a multipart part or a raw body: documented, read by the handler as a stream. */
export const Binary = Type.String({ format: 'binary' });
/** A number in free-form data (template variables): any finite value, rendered as text. */
export const FiniteNumber = Type.Number({ maximum: Number.MAX_VALUE });
export const BigIdParams = Type.Object({ id: BigId });
export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const ErrorBody = Type.Object(
  {
    code: Type.Integer({ description: 'HTTP status' }),
    error: Type.String({ description: '<module>.<reason>' }),
    message: Type.String(),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({ description: 'dotted path of the field (roleIds.2 is an item of roleIds)' }),
          message: Type.String(),
          rule: Type.Optional(
            Type.String({
              description:
                'what the field broke, to say it in the reader’s language: a JSON Schema keyword (required, minLength, maxLength, pattern, format, minimum, maximum, enum, type, …) or a service rule (unique: the value is taken; same_password, wrong_password)',
            }),
          ),
          limit: Type.Optional(Type.Number({ description: 'the bound of the rule (minLength: 8)' })),
        }),
      ),
    ),
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

/** Pages past 100,000 are refused: deeper reading is a filter's job (docs/api-conventions.md). */
export const MAX_PAGE = 100_000;
export const PageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
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

const batchOf = <T extends TSchema>(id: T) => Type.Array(id, { minItems: 1, maxItems: 500, uniqueItems: true });
export const BatchIds = Type.Object({ ids: batchOf(Id) });
/** Batch of rows keyed by `bigserial` (logs, messages, error issues). */
export const BigBatchIds = Type.Object({ ids: batchOf(BigId) });
export const BatchStatus = Type.Object({
  ids: batchOf(Id),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
});
/** What a batch answers: the ids it changed (all or nothing: an id outside the tenant answers 404, docs/api-conventions.md). */
export const BatchResult = Type.Object({ affected: Type.Array(Id) });
export const Ok = Type.Object({ ok: Type.Literal(true) });
export const Status = Type.Union([Type.Literal('active'), Type.Literal('disabled')]);
