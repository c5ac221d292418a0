import { Type } from 'typebox';
import { Id, NullableTimestamp, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import { CHANNELS } from '../channels/types.ts';

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const ChannelName = literals(CHANNELS);
const EventKey = Type.String({ minLength: 1, maxLength: 100 });

const ChannelView = Type.Object({
  channel: ChannelName,
  available: Type.Boolean(),
  default: Type.Boolean(),
  enabled: Type.Boolean(),
  locked: Type.Boolean(),
  source: literals(['default', 'platform', 'tenant'] as const),
});

export const EventView = Type.Object({
  key: Type.String(),
  group: Type.String(),
  displayName: Type.String(),
  severity: literals(['normal', 'important', 'critical'] as const),
  mandatory: Type.Boolean(),
  bypassQuietHours: Type.Boolean(),
  hidden: Type.Boolean(),
  rateLimit: Type.Union([Type.Object({ max: Type.Integer(), windowSeconds: Type.Integer() }), Type.Null()]),
  templates: Type.Record(Type.String(), Type.String()),
  variables: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), required: Type.Boolean() })),
  defaultChannels: Type.Array(ChannelName),
  availableChannels: Type.Array(ChannelName),
  channels: Type.Array(ChannelView),
});

export const EventsQuery = Type.Object({
  group: Type.Optional(Type.String({ maxLength: 50 })),
  includeHidden: Type.Optional(Type.Boolean()),
});

export const OverridesBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        { eventKey: EventKey, channel: ChannelName, enabled: Type.Boolean(), locked: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);

export const ResetBody = Type.Object({ eventKey: Type.Optional(EventKey) }, { additionalProperties: false });
export const SaveResult = Type.Object({ saved: Type.Integer(), removed: Type.Integer() });

const Decision = literals(['pending', 'sent', 'suppressed', 'deferred', 'deduped', 'failed'] as const);
const Reason = literals([
  'preference_off',
  'globally_muted',
  'channel_unavailable',
  'unreachable',
  'rate_limited',
  'quiet_hours',
  'digest',
  'delivery_error',
] as const);
const RecipientType = literals(['user', 'member', 'external'] as const);

export const DispatchQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    eventKey: Type.Optional(EventKey),
    channel: Type.Optional(ChannelName),
    decision: Type.Optional(Decision),
    reasonCode: Type.Optional(Reason),
    recipientType: Type.Optional(RecipientType),
    recipientId: Type.Optional(Id),
    outboxId: Type.Optional(Id),
    from: Type.Optional(Timestamp),
    to: Type.Optional(Timestamp),
  }),
]);

export const DispatchView = Type.Object({
  id: Id,
  outboxId: Id,
  eventKey: Type.String(),
  channel: ChannelName,
  recipientType: RecipientType,
  recipientId: Type.Union([Id, Type.Null()]),
  recipientAddress: Type.Union([Type.String(), Type.Null()]),
  recipientName: Type.String(),
  decision: Decision,
  reasonCode: Type.Union([Reason, Type.Null()]),
  idempotencyKey: Type.Union([Type.String(), Type.Null()]),
  digestKey: Type.Union([Type.String(), Type.Null()]),
  deliverAfter: NullableTimestamp,
  attempts: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  deliveredAt: NullableTimestamp,
});

export const MatrixRow = Type.Object({
  eventKey: Type.String(),
  group: Type.String(),
  displayName: Type.String(),
  severity: Type.String(),
  mandatory: Type.Boolean(),
  channels: Type.Array(
    Type.Object({ channel: ChannelName, default: Type.Boolean(), enabled: Type.Boolean(), locked: Type.Boolean() }),
  ),
});

export const MatrixBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        { eventKey: EventKey, channel: ChannelName, enabled: Type.Boolean() },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);

const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:mm' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const RecipientSettingsView = Type.Object({
  globalMuted: Type.Boolean(),
  timezone: Type.String(),
  quietStart: Nullable(HHMM),
  quietEnd: Nullable(HHMM),
  digestMode: literals(['realtime', 'hourly', 'daily'] as const),
  digestHour: Type.Integer({ minimum: 0, maximum: 23 }),
});

export const RecipientSettingsBody = Type.Partial(
  Type.Object({ ...RecipientSettingsView.properties, timezone: Type.String({ minLength: 1, maxLength: 64 }) }),
  { additionalProperties: false, minProperties: 1 },
);
