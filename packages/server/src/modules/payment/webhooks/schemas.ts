import { Type } from 'typebox';
import { Id, PageQuery, Status } from '../../../platform/http/schemas.ts';
import { PAYMENT_EVENT_TYPES } from '../events.ts';

/** Query shapes of the payment webhooks view; the answers are open-platform's own shapes. */
export const PaymentWebhookQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(Status) });

export const PaymentWebhookDeliveryQuery = Type.Object({
  ...PageQuery.properties,
  subscriptionId: Type.Optional(Id),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
  eventType: Type.Optional(Type.Union(PAYMENT_EVENT_TYPES.map((t) => Type.Literal(t)))),
  eventId: Type.Optional(Type.String({ format: 'uuid' })),
});
