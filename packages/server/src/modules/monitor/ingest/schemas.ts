import { Type } from 'typebox';
import { INT4_MAX } from '../../../platform/http/schemas.ts';

/**
 * The report body of `POST /api/frontend-errors` (spec §2.5 leaves the field names to us; they
 * are documented in docs/frontend-errors.md). Text that can legitimately run long (message,
 * stack, URLs, breadcrumb text) is truncated to the §8 limits rather than refused, so a report of
 * a real error is never lost to its size; identifiers and labels have hard limits (400).
 * Unknown fields are ignored, so an older server accepts a newer reporter.
 */
export const LIMITS = {
  message: 2000,
  stack: 16000,
  url: 512,
  breadcrumbs: 30,
  breadcrumbMessage: 1000,
} as const;

import { ERROR_TYPES } from '../tables.ts';

/** The last instant a JavaScript Date can hold (ECMA-262 §21.4.1.1). */
const MAX_EPOCH_MS = 8.64e15;

const ErrorTypeSchema = Type.Union(
  ERROR_TYPES.map((t) => Type.Literal(t)),
  { description: 'spec §2.5 error type' },
);
const LevelSchema = Type.Union([
  Type.Literal('fatal'),
  Type.Literal('error'),
  Type.Literal('warning'),
  Type.Literal('info'),
]);

const Breadcrumb = Type.Object({
  type: Type.Union([
    Type.Literal('navigation'),
    Type.Literal('click'),
    Type.Literal('network'),
    Type.Literal('console'),
  ]),
  message: Type.Optional(Type.String({ description: `truncated to ${LIMITS.breadcrumbMessage} characters` })),
  data: Type.Optional(Type.Object({}, { additionalProperties: true })),
  timestamp: Type.Union([
    Type.Integer({ minimum: 0, maximum: MAX_EPOCH_MS, description: 'epoch milliseconds' }),
    Type.String({ format: 'date-time' }),
  ]),
});

export const ReportBody = Type.Object({
  type: ErrorTypeSchema,
  message: Type.String({ minLength: 1, description: `truncated to ${LIMITS.message} characters` }),
  stack: Type.Optional(Type.String({ description: `truncated to ${LIMITS.stack} characters` })),
  sourceUrl: Type.Optional(
    Type.String({ description: `script or resource URL; truncated to ${LIMITS.url} characters` }),
  ),
  pageUrl: Type.Optional(Type.String({ description: `truncated to ${LIMITS.url} characters` })),
  line: Type.Optional(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
  column: Type.Optional(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
  breadcrumbs: Type.Optional(
    Type.Array(Breadcrumb, { description: `oldest first; only the latest ${LIMITS.breadcrumbs} are kept` }),
  ),
  replayId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  release: Type.Optional(
    Type.String({ maxLength: 128, description: 'must equal the source-map release (§4.6 rule 5)' }),
  ),
  environment: Type.Optional(
    Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', default: 'production', description: 'default production' }),
  ),
  level: Type.Optional(LevelSchema),
  context: Type.Optional(
    Type.Object(
      {
        requestId: Type.Optional(Type.String({ maxLength: 128, description: 'X-Request-Id of a failed server call' })),
      },
      { additionalProperties: true },
    ),
  ),
  http: Type.Optional(
    Type.Object({
      method: Type.String({ minLength: 1, maxLength: 16 }),
      url: Type.String({ description: `truncated to ${LIMITS.url} characters` }),
      status: Type.Integer({ minimum: 0, maximum: 999, description: '0 for a network error' }),
    }),
  ),
  sessionId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'counts an anonymous visitor as affected (a:{sessionId})',
    }),
  ),
});

export const ReportResult = Type.Object({
  accepted: Type.Boolean(),
  reason: Type.Optional(Type.Literal('ignored')),
  groupId: Type.Optional(Type.Integer()),
  eventId: Type.Optional(Type.Integer()),
});
