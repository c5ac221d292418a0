import { type TSchema, Type } from 'typebox';
import { Id, NullableTimestamp, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import { ErrorLevelSchema, ErrorTypeSchema } from '../issues/schemas.ts';

export const LIMITS = { threshold: 100_000, windowMinutes: 10_080, recipients: 100 } as const;

const Condition = Type.Union([Type.Literal('new_error'), Type.Literal('threshold'), Type.Literal('spike')]);
const Channel = Type.Union([Type.Literal('email'), Type.Literal('webhook'), Type.Literal('inapp')]);
const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

export const AlertRule = Type.Object({
  id: Id,
  name: Type.String(),
  enabled: Type.Boolean(),
  condition: Condition,
  errorType: Nullable(ErrorTypeSchema),
  level: Nullable(ErrorLevelSchema),
  threshold: Type.Integer(),
  windowMinutes: Type.Integer(),
  channels: Type.Array(Channel),
  recipients: Type.Array(Id, { description: 'user ids of the tenant (email and inapp)' }),
  webhookUrl: Type.Union([Type.String(), Type.Null()]),
  webhookSecretHint: Type.Union([Type.String(), Type.Null()], {
    description: 'last four characters of the webhook signing secret; null until the rule has a webhook URL',
  }),
  webhookPreviousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description: 'after a rotation: until when the previous secret signs too',
  }),
  lastTriggeredAt: NullableTimestamp,
  createdBy: Type.Union([Id, Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** A rule as written: the webhook signing secret is answered once, when it was just created. */
export const AlertRuleWritten = Type.Object({
  ...AlertRule.properties,
  webhookSecret: Type.Optional(
    Type.String({ description: 'the webhook signing secret; only in the answer that created it' }),
  ),
});

const ruleFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  enabled: Type.Optional(Type.Boolean()),
  condition: Condition,
  errorType: Type.Optional(Nullable(ErrorTypeSchema)),
  level: Type.Optional(Nullable(ErrorLevelSchema)),
  threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.threshold })),
  windowMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.windowMinutes })),
  channels: Type.Optional(Type.Array(Channel, { uniqueItems: true, maxItems: 3 })),
  recipients: Type.Optional(Type.Array(Id, { uniqueItems: true, maxItems: LIMITS.recipients })),
  webhookUrl: Type.Optional(
    Nullable(Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2000, description: 'http or https URL' })),
  ),
};

export const AlertRuleCreate = Type.Object(
  {
    ...ruleFields,
    enabled: Type.Optional(Type.Boolean({ default: false })),
    threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.threshold, default: 1 })),
    windowMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.windowMinutes, default: 60 })),
  },
  { additionalProperties: false },
);

/** Without the create defaults: a field left out keeps its stored value. */
export const AlertRuleUpdate = Type.Partial(Type.Object(ruleFields), { additionalProperties: false });
export const AlertRuleEnabled = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });

export const AlertRuleQuery = Type.Object({
  ...PageQuery.properties,
  enabled: Type.Optional(Type.Boolean()),
  condition: Type.Optional(Condition),
});

const ChannelOutcome = Type.Object({
  status: Type.Union([Type.Literal('queued'), Type.Literal('delivered'), Type.Literal('failed')], {
    description: 'queued = handed to the notification center; delivered = the webhook answered 2xx',
  }),
  error: Type.Optional(Type.String()),
  outboxId: Type.Optional(Type.Integer()),
});

export const AlertLog = Type.Object({
  id: Id,
  ruleId: Id,
  ruleSnapshot: Type.Record(Type.String(), Type.Unknown()),
  hits: Type.Record(Type.String(), Type.Unknown()),
  channels: Type.Record(Type.String(), ChannelOutcome),
  test: Type.Boolean(),
  createdAt: Timestamp,
});

export const AlertLogQuery = Type.Object({
  ...PageQuery.properties,
  ruleId: Type.Optional(Id),
  test: Type.Optional(Type.Boolean()),
});
