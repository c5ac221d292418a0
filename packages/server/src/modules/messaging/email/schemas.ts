import { type TSchema, Type } from 'typebox';
import { FiniteNumber, Id, PageQuery, Status, Timestamp } from '../../../platform/http/schemas.ts';
import { SendStatus } from '../schemas.ts';

/** Wire shapes of the email channel. The SMTP password is write-only: answers carry `passwordSet`. */
const Email = Type.String({ format: 'email', maxLength: 254 });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

// ---- SMTP configuration
export const EmailConfigSave = Type.Object(
  {
    host: Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[A-Za-z0-9.:\\[\\]-]+$',
      description: 'SMTP host name or IP',
    }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    secure: Type.Optional(
      Type.Boolean({ description: 'implicit TLS (usually port 465); false = STARTTLS when offered; default false' }),
    ),
    username: Type.Optional(Type.String({ maxLength: 255, description: 'empty = no authentication; default empty' })),
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'write-only, stored encrypted; omitted = keep the saved one',
      }),
    ),
    fromAddress: Email,
    fromName: Type.Optional(Type.String({ maxLength: 100 })),
    enabled: Type.Optional(Type.Boolean({ description: 'default true' })),
  },
  { additionalProperties: false },
);

export const EmailConfig = Type.Object({
  id: Id,
  host: Type.String(),
  port: Type.Integer(),
  secure: Type.Boolean(),
  username: Type.String(),
  passwordSet: Type.Boolean(),
  fromAddress: Type.String(),
  fromName: Type.String(),
  enabled: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const EmailConfigView = Type.Object({
  config: Nullable(EmailConfig),
  inherited: Type.Boolean({
    description:
      'true when this scope has no configuration of its own and the platform’s (saved and enabled) applies instead',
  }),
});

export const EmailTestBody = Type.Object({ to: Email }, { additionalProperties: false });

export const EmailSendResult = Type.Object({
  status: Type.Union([Type.Literal('sent'), Type.Literal('failed')]),
  /** the SMTP error when failed */
  error: Nullable(Type.String()),
  messageId: Nullable(Type.String()),
  logId: Nullable(Id),
});

// ---- templates
const VariableName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z_][A-Za-z0-9_.]*$' });
const TemplateFields = {
  code: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  subject: Type.String({ minLength: 1, maxLength: 255, description: '`{{var}}` placeholders; plain text' }),
  content: Type.String({ minLength: 1, maxLength: 200_000, description: 'HTML; `{{var}}` values are HTML-escaped' }),
  variables: Type.Array(VariableName, {
    maxItems: 50,
    uniqueItems: true,
    description: 'every placeholder of subject and content must be declared here',
  }),
  status: Status,
  remark: Type.String({ maxLength: 500 }),
};

export const EmailTemplateCreate = Type.Object(
  {
    code: TemplateFields.code,
    name: TemplateFields.name,
    subject: TemplateFields.subject,
    content: TemplateFields.content,
    variables: Type.Optional(TemplateFields.variables),
    status: Type.Optional(TemplateFields.status),
    remark: Type.Optional(TemplateFields.remark),
  },
  { additionalProperties: false },
);
export const EmailTemplateUpdate = Type.Partial(EmailTemplateCreate, { additionalProperties: false });

export const EmailTemplate = Type.Object({
  id: Id,
  code: Type.String(),
  name: Type.String(),
  subject: Type.String(),
  content: Type.String(),
  variables: Type.Array(Type.String()),
  status: Status,
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

// ---- send logs
export const EmailSendLog = Type.Object({
  id: Id,
  dispatchId: Nullable(Id),
  eventKey: Nullable(Type.String()),
  templateCode: Nullable(Type.String()),
  configId: Nullable(Id),
  toAddress: Type.String(),
  subject: Type.String(),
  status: SendStatus,
  error: Nullable(Type.String()),
  messageId: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const EmailSendLogQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(SendStatus),
  toAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'contained in the address' })),
  eventKey: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'inclusive' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'exclusive' })),
});

export const EmailTestSend = Type.Object(
  {
    to: Email,
    templateId: Type.Optional(Id),
    subject: Type.Optional(TemplateFields.subject),
    content: Type.Optional(TemplateFields.content),
    variables: Type.Optional(
      Type.Record(
        Type.String({ maxLength: 64 }),
        Type.Union([Type.String({ maxLength: 10_000 }), FiniteNumber, Type.Boolean()]),
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'a template (templateId) or the given subject and content (HTML), rendered with variables',
  },
);
