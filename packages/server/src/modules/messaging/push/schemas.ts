import { type TSchema, Type } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import { SendStatus } from '../schemas.ts';

/** Wire shapes of push devices, the push configuration and push send logs. */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const PushPlatform = Type.Union([
  Type.Literal('ios'),
  Type.Literal('android'),
  Type.Literal('harmony'),
  Type.Literal('web'),
]);
const DeviceStatus = Type.Union([Type.Literal('active'), Type.Literal('inactive')]);

export const PushDeviceBind = Type.Object(
  {
    platform: PushPlatform,
    registrationId: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9_:.-]+$',
      description: "the push provider's registration id of this app installation",
    }),
    deviceName: Type.Optional(Type.String({ maxLength: 100 })),
    appVersion: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: false },
);

export const PushDevice = Type.Object({
  id: Id,
  userId: Id,
  platform: PushPlatform,
  registrationId: Type.String(),
  deviceName: Type.String(),
  appVersion: Type.String(),
  /** inactive: the provider no longer knows the device; binding it again makes it active */
  status: DeviceStatus,
  lastSeenAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const PushDeviceQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(DeviceStatus) });

export const PushConfigSave = Type.Object(
  {
    endpoint: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'http(s) base URL; default https://api.jpush.cn' }),
    ),
    appKey: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' })),
    masterSecret: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'write-only, stored encrypted; omitted = kept' }),
    ),
    apnsProduction: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const PushConfigView = Type.Object({
  configured: Type.Boolean({ description: 'this scope has a configuration of its own' }),
  effective: Type.Union([Type.Literal('own'), Type.Literal('platform'), Type.Literal('none')], {
    description: 'the configuration push uses here: its own, the platform’s, or none',
  }),
  endpoint: Type.String(),
  appKey: Type.String(),
  masterSecretSet: Type.Boolean(),
  apnsProduction: Type.Boolean(),
  enabled: Type.Boolean(),
  updatedAt: Nullable(Timestamp),
});

export const PushSendLog = Type.Object({
  id: Id,
  dispatchId: Nullable(Id),
  eventKey: Type.String(),
  userId: Id,
  registrationIds: Type.Array(Type.String()),
  status: SendStatus,
  providerMessageId: Nullable(Type.String({ description: "the provider's msg_id" })),
  error: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const PushSendLogQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(SendStatus),
  userId: Type.Optional(Id),
  eventKey: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created before (exclusive)' })),
});
