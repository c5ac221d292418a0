import { type TSchema, Type } from 'typebox';
import { Id, INT4_MAX, NullableTimestamp, PageQuery, Status, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of webhook subscriptions, the event catalog and deliveries. Secrets are answered once. */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const fields = {
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'absolute http(s) URL that receives POSTs; checked against the outbound-call rules when saved and at each send',
  }),
  events: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
    minItems: 1,
    maxItems: 100,
    uniqueItems: true,
    description: 'registered event types (GET /api/open-platform/webhook-events), `prefix.*` patterns, or `*` for all',
  }),
  description: Type.String({ maxLength: 500 }),
};

export const SubscriptionCreate = Type.Object(
  {
    appId: Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'an application of your tenant' }),
    url: fields.url,
    events: fields.events,
    description: Type.Optional(fields.description),
  },
  { additionalProperties: false },
);

/** A module's own subscription (no application): the payment center's view. */
export const OwnSubscriptionCreate = Type.Object(
  { url: fields.url, events: fields.events, description: Type.Optional(fields.description) },
  { additionalProperties: false },
);

/** Omitted fields keep their value; the application cannot change. */
export const SubscriptionUpdate = Type.Object(
  {
    url: Type.Optional(fields.url),
    events: Type.Optional(fields.events),
    description: Type.Optional(fields.description),
  },
  { additionalProperties: false },
);

export const SubscriptionStatusBody = Type.Object(
  { status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]) },
  { additionalProperties: false },
);

export const SubscriptionQuery = Type.Object({
  ...PageQuery.properties,
  appId: Type.Optional(Id),
  status: Type.Optional(Status),
});

export const Subscription = Type.Object({
  id: Id,
  appId: Nullable(Id),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.String(),
  status: Status,
  secretHint: Type.String({ description: 'last four characters of the signing secret' }),
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description: 'after a rotation: until when the previous secret signs too',
  }),
  consecutiveFailures: Type.Integer({ minimum: 0, description: 'failed attempts since the last success' }),
  failingSince: NullableTimestamp,
  disabledAt: NullableTimestamp,
  disabledReason: Nullable(Type.Union([Type.Literal('manual'), Type.Literal('failures')])),
  createdBy: Nullable(Id),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SubscriptionWithSecret = Type.Object({
  ...Subscription.properties,
  secret: Type.String({ description: 'the signing secret; shown only in this answer' }),
});

export const WebhookEvent = Type.Object({ type: Type.String(), description: Type.String() });

const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);

export const DeliveryQuery = Type.Object({
  ...PageQuery.properties,
  subscriptionId: Type.Optional(Id),
  appId: Type.Optional(Id),
  status: Type.Optional(DeliveryStatus),
  eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  eventId: Type.Optional(Type.String({ format: 'uuid' })),
});

export const Delivery = Type.Object({
  id: Id,
  subscriptionId: Id,
  appId: Nullable(Id),
  eventId: Type.String({ format: 'uuid', description: 'the same for every delivery of one event: deduplicate on it' }),
  eventType: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer({ minimum: 0 }),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'when the next retry is due (pending only)' }),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  lastDurationMs: Nullable(Type.Integer()),
  deliveredAt: NullableTimestamp,
  redeliveryOf: Nullable(Id),
  createdAt: Timestamp,
});

export const Attempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  url: Type.String(),
  statusCode: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  responseBody: Nullable(Type.String({ description: 'first 2 KiB of the answer' })),
  durationMs: Type.Integer({ minimum: 0 }),
  createdAt: Timestamp,
});

export const DeliveryDetail = Type.Object({
  ...Delivery.properties,
  payload: Type.Object(
    {
      id: Type.String(),
      type: Type.String(),
      createdAt: Type.String(),
      tenantId: Nullable(Type.Integer()),
      data: Type.Unknown(),
    },
    { description: 'the JSON body sent' },
  ),
  attemptLog: Type.Array(Attempt, { description: 'every HTTP attempt, oldest first' }),
});
