import { Type } from 'typebox';
import { BigId, BigIdParams, Id, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';

export const NotifyChannel = Type.Union([
  Type.Literal('channel_a'),
  Type.Literal('channel_b'),
  Type.Literal('channel_c'),
]);
export const NotifyParams = Type.Object({ channel: NotifyChannel });
export { BigIdParams };

/** Largest callback body taken: channel callbacks are a few KiB (channel_c's carries a certificate). */
export const NOTIFY_BODY_LIMIT = 64 * 1024;

/**
 * Every acknowledgement is the channel's own (the adapters' `ack`): channel_a answers 204 without
 * a body, or `{"code":"FAIL","message":…}`; channel_b `success`, or `fail` with 200 for a
 * processing failure; channel_c `ok`, or `fail`. A callback no configuration verifies gets the
 * channel's failure with 401.
 */
export const AckText = Type.Union([Type.Literal('success'), Type.Literal('fail'), Type.Literal('ok')], {
  description: 'channel_b: success, or fail (processing failed: it resends); channel_c: ok',
});
const FailText = Type.Literal('fail', { description: 'channel_b, channel_c' });
const AckJson = Type.Object(
  { code: Type.Literal('FAIL'), message: Type.String({ minLength: 1, maxLength: 64 }) },
  { description: 'channel_a' },
);

export const ackResponses = {
  204: { description: 'channel_a: received (its success acknowledgement has no body)' },
  401: {
    description: 'no enabled configuration of the channel verifies it: the channel’s failure acknowledgement',
    content: { 'text/plain': FailText, 'application/json': AckJson },
  },
  500: {
    description:
      'processing failed (channel_a, channel_c): the failure acknowledgement, and the channel resends; ' +
      'an error before the channel’s adapter answers is the envelope',
    content: {
      'text/plain': FailText,
      'application/json': Type.Union([AckJson, Type.Unsafe<unknown>({ $ref: 'ErrorBody#' })]),
    },
  },
  503: {
    description:
      'the database (or another dependency) is down, nothing applied (channel_a, channel_c): the failure ' +
      'acknowledgement, and the channel resends; channel_b’s failure stays 200 `fail`. Before the ' +
      'adapter answers: the envelope `ops.database_unavailable`',
    content: {
      'text/plain': FailText,
      'application/json': Type.Union([AckJson, Type.Unsafe<unknown>({ $ref: 'ErrorBody#' })]),
    },
  },
};

export const NotifyLogQuery = Type.Object({
  ...PageQuery.properties,
  channel: Type.Optional(NotifyChannel),
  orderNo: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  signatureValid: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'received at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'received before (exclusive)' })),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const LogFields = {
  id: BigId,
  tenantId: Nullable(Id),
  configId: Nullable(Type.Integer({ description: 'the configuration that verified it; null when none did' })),
  channel: NotifyChannel,
  scene: Nullable(Type.Union([Type.Literal('payment'), Type.Literal('refund')])),
  orderNo: Nullable(Type.String()),
  signatureValid: Type.Boolean(),
  result: Type.String({
    description:
      'applied, pending, duplicate, conflict, amount_mismatch, not_found (what applyNotice did), invalid_signature, error',
  }),
  message: Type.String(),
  ip: Nullable(Type.String()),
  createdAt: Timestamp,
};

export const NotifyLog = Type.Object(LogFields);
export const NotifyLogDetail = Type.Object({
  ...LogFields,
  rawBody: Type.String({ description: 'the body as received; `base64:` + base64 when it was not clean UTF-8 text' }),
  headers: Type.Record(Type.String(), Type.String(), { description: 'header digest (signature shortened)' }),
});
