import { Type } from 'typebox';
import { Id, PageQuery, Status, Timestamp } from '../../../platform/http/schemas.ts';

export const ChannelCodeSchema = Type.Union([
  Type.Literal('sandbox'),
  Type.Literal('channel_a'),
  Type.Literal('channel_b'),
  Type.Literal('channel_c'),
]);

const FieldMap = (description: string) =>
  Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9]{0,63}$' }), Type.String({ maxLength: 16384 }), {
    maxProperties: 20,
    description,
  });

const NotifyUrl = Type.String({
  maxLength: 1024,
  pattern: '^(https?://\\S+)?$',
  description: 'the callback URL given to the channel; empty: PUBLIC_BASE_URL + /api/public/payment/notify/{channel}',
});
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Remark = Type.String({ maxLength: 500 });

export const ChannelConfigCreate = Type.Object(
  {
    channel: ChannelCodeSchema,
    name: Name,
    status: Type.Optional(Status),
    remark: Type.Optional(Remark),
    notifyUrl: Type.Optional(NotifyUrl),
    fields: Type.Optional(FieldMap('non-secret fields of the channel (see its field registry)')),
    secrets: Type.Optional(FieldMap('secrets of the channel; stored encrypted, never answered')),
  },
  { additionalProperties: false },
);

export const ChannelConfigUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    status: Type.Optional(Status),
    remark: Type.Optional(Remark),
    notifyUrl: Type.Optional(NotifyUrl),
    fields: Type.Optional(FieldMap('merged by name; an empty string removes a field')),
    secrets: Type.Optional(FieldMap('merged by name; omitted ones are kept, an empty string removes one')),
  },
  { additionalProperties: false },
);

export const ChannelConfigQuery = Type.Object({
  ...PageQuery.properties,
  channel: Type.Optional(ChannelCodeSchema),
  status: Type.Optional(Status),
});

export const ChannelConfig = Type.Object({
  id: Id,
  channel: ChannelCodeSchema,
  name: Type.String(),
  status: Status,
  remark: Type.String(),
  notifyUrl: Type.String(),
  effectiveNotifyUrl: Type.String({
    format: 'uri',
    description:
      'absolute URL the channel calls back: notifyUrl, else PUBLIC_BASE_URL + /api/public/payment/notify/{channel}',
  }),
  fields: Type.Record(Type.String(), Type.String()),
  hasSecrets: Type.Boolean({ description: 'whether secrets are stored (they are never answered)' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
