import { Type } from 'typebox';
import { BigId, NullableTimestamp, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import { PAYMENT_EVENT_TYPES } from '../events.ts';

const EventType = Type.Union(PAYMENT_EVENT_TYPES.map((t) => Type.Literal(t)));
const EventStatus = Type.Union([Type.Literal('pending'), Type.Literal('done'), Type.Literal('failed')]);

export const EventQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(EventStatus),
  type: Type.Optional(EventType),
});

export const PaymentEventSchema = Type.Object({
  id: BigId,
  eventId: Type.String({ format: 'uuid', description: 'consumers de-duplicate on it' }),
  type: EventType,
  aggregateType: Type.Union([Type.Literal('order'), Type.Literal('refund')]),
  aggregateId: Type.Integer(),
  payload: Type.Record(Type.String(), Type.Unknown()),
  status: EventStatus,
  attempts: Type.Integer(),
  leaseUntil: NullableTimestamp,
  lastError: Type.Union([Type.String(), Type.Null()]),
  deliveredAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
