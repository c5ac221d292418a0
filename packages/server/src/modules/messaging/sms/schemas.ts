import { type TSchema, Type } from 'typebox';
import { FiniteNumber, Id, INT4_MAX, PageQuery, Status, Timestamp } from '../../../platform/http/schemas.ts';
import { SendStatus } from '../schemas.ts';

/** Wire shapes of SMS configurations, templates and send logs. The secret is write-only. */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const SmsProvider = Type.Union([Type.Literal('aliyun'), Type.Literal('tencent')]);

const Name = Type.String({ minLength: 1, maxLength: 64 });
const Remark = Type.String({ maxLength: 500 });
const Token = (description: string) =>
  Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$', description });
const Endpoint = Type.String({
  minLength: 1,
  maxLength: 512,
  description: "http(s) URL of the provider's API; default the official endpoint",
});
const configFields = {
  accessKeyId: Token('AccessKey ID (Alibaba Cloud) or SecretId (Tencent Cloud)'),
  accessKeySecret: Type.String({
    minLength: 1,
    maxLength: 256,
    description: 'AccessKey secret or SecretKey; write-only, stored encrypted',
  }),
  signName: Type.String({ minLength: 1, maxLength: 64, description: 'the registered SMS signature' }),
  sdkAppId: Token('Tencent Cloud SmsSdkAppId (required for tencent; not used by aliyun)'),
  region: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9-]+$' }),
  endpoint: Endpoint,
  status: Status,
  remark: Remark,
};

export const SmsConfigCreate = Type.Object(
  {
    name: Name,
    provider: SmsProvider,
    accessKeyId: configFields.accessKeyId,
    accessKeySecret: configFields.accessKeySecret,
    signName: configFields.signName,
    sdkAppId: Type.Optional(configFields.sdkAppId),
    region: Type.Optional(configFields.region),
    endpoint: Type.Optional(configFields.endpoint),
    isDefault: Type.Optional(
      Type.Boolean({ description: 'the first active configuration of a tenant becomes the default anyway' }),
    ),
    status: Type.Optional(Status),
    remark: Type.Optional(Remark),
  },
  { additionalProperties: false },
);

/** Omitted fields keep their value (the secret too); the provider cannot change. */
export const SmsConfigUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    accessKeyId: Type.Optional(configFields.accessKeyId),
    accessKeySecret: Type.Optional(configFields.accessKeySecret),
    signName: Type.Optional(configFields.signName),
    sdkAppId: Type.Optional(configFields.sdkAppId),
    region: Type.Optional(configFields.region),
    endpoint: Type.Optional(configFields.endpoint),
    status: Type.Optional(Status),
    remark: Type.Optional(Remark),
  },
  { additionalProperties: false },
);

export const SmsConfig = Type.Object({
  id: Id,
  name: Type.String(),
  provider: SmsProvider,
  accessKeyId: Type.String(),
  accessKeySecretSet: Type.Boolean({ description: 'a secret is stored (it is never answered)' }),
  signName: Type.String(),
  sdkAppId: Nullable(Type.String()),
  region: Type.String(),
  endpoint: Type.String(),
  isDefault: Type.Boolean(),
  status: Status,
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SmsConfigQuery = Type.Object({
  ...PageQuery.properties,
  provider: Type.Optional(SmsProvider),
  status: Type.Optional(Status),
});

// ---- templates
const Code = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$' });
const VariableName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z_][A-Za-z0-9_.]*$' });
const templateFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  configId: Nullable(
    Type.Integer({
      minimum: 1,
      maximum: INT4_MAX,
      description: 'a configuration of the same tenant; null = the default',
    }),
  ),
  providerTemplateId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'the template code (Alibaba Cloud) or id (Tencent Cloud) registered with the provider',
  }),
  content: Type.String({ maxLength: 1000, description: 'local preview text with `{{var}}` placeholders' }),
  variables: Type.Array(VariableName, {
    maxItems: 30,
    uniqueItems: true,
    description:
      "the provider template's parameter names in order (Tencent's are positional); default: the content's placeholders",
  }),
};

export const SmsTemplateCreate = Type.Object(
  {
    code: Code,
    name: templateFields.name,
    configId: Type.Optional(templateFields.configId),
    providerTemplateId: templateFields.providerTemplateId,
    content: Type.Optional(templateFields.content),
    variables: Type.Optional(templateFields.variables),
    status: Type.Optional(Status),
    remark: Type.Optional(Remark),
  },
  { additionalProperties: false },
);

export const SmsTemplateUpdate = Type.Object(
  {
    code: Type.Optional(Code),
    name: Type.Optional(templateFields.name),
    configId: Type.Optional(templateFields.configId),
    providerTemplateId: Type.Optional(templateFields.providerTemplateId),
    content: Type.Optional(templateFields.content),
    variables: Type.Optional(templateFields.variables),
    status: Type.Optional(Status),
    remark: Type.Optional(Remark),
  },
  { additionalProperties: false },
);

export const SmsTemplate = Type.Object({
  id: Id,
  code: Type.String(),
  name: Type.String(),
  configId: Nullable(Id),
  providerTemplateId: Type.String(),
  content: Type.String(),
  variables: Type.Array(Type.String()),
  status: Status,
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

// ---- send logs
const Phone = Type.String({ pattern: '^\\+?[0-9]{5,20}$', description: 'digits, optionally with a leading +' });

export const SmsSendLog = Type.Object({
  id: Id,
  dispatchId: Nullable(Id),
  eventKey: Nullable(Type.String({ description: 'null for test sends' })),
  templateCode: Nullable(Type.String()),
  configId: Nullable(Id),
  provider: Nullable(SmsProvider),
  phone: Type.String(),
  status: SendStatus,
  providerMessageId: Nullable(Type.String({ description: 'Alibaba Cloud BizId, Tencent Cloud SerialNo' })),
  error: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const SmsSendLogQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(SendStatus),
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'exact number' })),
  eventKey: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created before (exclusive)' })),
});

export const SmsTestSend = Type.Object(
  {
    phone: Phone,
    templateId: Id,
    variables: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.Union([Type.String({ maxLength: 500 }), FiniteNumber])),
    ),
  },
  { additionalProperties: false },
);
