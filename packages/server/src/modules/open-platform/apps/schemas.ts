import { type TSchema, Type } from 'typebox';
import { Id, NullableTimestamp, PageQuery, Status, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of applications (OAuth clients). The client secret is never answered except once. */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ClientTypeSchema = Type.Union([Type.Literal('confidential'), Type.Literal('public')], {
  description: 'confidential: has a secret (server-side apps); public: PKCE only (browser, native apps)',
});
export const GrantTypeSchema = Type.Union([
  Type.Literal('authorization_code'),
  Type.Literal('client_credentials'),
  Type.Literal('refresh_token'),
]);

const Url = (description: string) => Type.String({ maxLength: 2048, description });
const fields = {
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'unique within the tenant' }),
  description: Type.String({ maxLength: 500 }),
  homepageUrl: Url('http(s) URL shown on the consent page; empty for none'),
  logoUrl: Url('http(s) URL of the logo shown on the consent page; empty for none'),
  grantTypes: Type.Array(GrantTypeSchema, {
    minItems: 1,
    uniqueItems: true,
    description:
      'public clients cannot use client_credentials; refresh_token needs authorization_code; authorization_code needs a redirect URI',
  }),
  redirectUris: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
    maxItems: 20,
    uniqueItems: true,
    description: 'callback allow-list, matched exactly: absolute, https (http only on a loopback host), no fragment',
  }),
  allowedScopes: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
    maxItems: 100,
    uniqueItems: true,
    description: 'registered scopes (GET /api/open-platform/scopes) the application may be granted',
  }),
};

export const AppCreate = Type.Object(
  {
    name: fields.name,
    description: Type.Optional(fields.description),
    homepageUrl: Type.Optional(fields.homepageUrl),
    logoUrl: Type.Optional(fields.logoUrl),
    clientType: ClientTypeSchema,
    grantTypes: fields.grantTypes,
    redirectUris: fields.redirectUris,
    allowedScopes: fields.allowedScopes,
  },
  { additionalProperties: false },
);

/** Omitted fields keep their value; the client type cannot change (a secret would appear or vanish). */
export const AppUpdate = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: Type.Optional(fields.description),
    homepageUrl: Type.Optional(fields.homepageUrl),
    logoUrl: Type.Optional(fields.logoUrl),
    grantTypes: Type.Optional(fields.grantTypes),
    redirectUris: Type.Optional(fields.redirectUris),
    allowedScopes: Type.Optional(fields.allowedScopes),
  },
  { additionalProperties: false },
);

export const AppStatusBody = Type.Object({ status: Status }, { additionalProperties: false });

/** One week at most: a longer overlap would defeat the point of rotating. */
export const MAX_GRACE_SECONDS = 604_800;
export const DEFAULT_GRACE_SECONDS = 86_400;
export const SecretRotateBody = Type.Object(
  {
    graceSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_GRACE_SECONDS,
        default: DEFAULT_GRACE_SECONDS,
        description: 'how long the replaced secret keeps working; 0 ends it now',
      }),
    ),
  },
  { additionalProperties: false },
);

export const App = Type.Object({
  id: Id,
  name: Type.String(),
  description: Type.String(),
  homepageUrl: Type.String(),
  logoUrl: Type.String(),
  clientId: Type.String(),
  clientType: ClientTypeSchema,
  grantTypes: Type.Array(GrantTypeSchema),
  redirectUris: Type.Array(Type.String()),
  allowedScopes: Type.Array(Type.String()),
  status: Status,
  secretHint: Nullable(
    Type.String({ description: 'last four characters of the current secret; null for public clients' }),
  ),
  secretRotatedAt: NullableTimestamp,
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description: 'until when the secret replaced by the last rotation keeps working',
  }),
  createdBy: Nullable(Id),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** The answer of create and secret rotation: the only time the plaintext secret is ever shown. */
export const AppWithSecret = Type.Object({
  ...App.properties,
  clientSecret: Type.Optional(
    Type.String({ description: 'confidential clients only; shown in this response only, store it now' }),
  ),
});

export const AppQuery = Type.Object({
  ...PageQuery.properties,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'part of the name' })),
  status: Type.Optional(Status),
  clientType: Type.Optional(ClientTypeSchema),
});

export const ScopeInfo = Type.Object({
  name: Type.String(),
  description: Type.String(),
  userOnly: Type.Boolean({ description: 'means something only with a user (authorization code)' }),
});
