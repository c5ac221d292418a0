import { Type } from 'typebox';

const opt = (description: string) => Type.Optional(Type.String({ description }));

/** Client authentication in the body (client_secret_post, or client_id alone for public clients). */
const clientFields = {
  client_id: opt('the application client id (or use HTTP Basic)'),
  client_secret: opt('confidential clients using client_secret_post'),
};

/** Form fields of spec §2.1; each grant reads only its own. A repeated field is refused. */
export const TokenBody = Type.Object(
  {
    grant_type: opt('authorization_code, client_credentials or refresh_token'),
    code: opt('authorization_code: the authorization code'),
    redirect_uri: opt('authorization_code: the redirect_uri of the authorization request'),
    code_verifier: opt('authorization_code: the PKCE verifier (43–128 characters)'),
    refresh_token: opt('refresh_token: the refresh token'),
    scope: opt('client_credentials: requested scopes (default: all allowed); refresh_token: a narrower set'),
    ...clientFields,
  },
  { additionalProperties: true },
);

export const TokenResponseSchema = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String(),
  refresh_token: Type.Optional(Type.String()),
  id_token: Type.Optional(Type.String()),
});

/** UserInfo by POST (RFC 6750 §2.2): the form, when the token is not in the Authorization header. */
export const UserInfoForm = Type.Object(
  {
    access_token: Type.Optional(Type.String({ description: 'the access token, when not in the Authorization header' })),
  },
  { additionalProperties: true },
);

export const TokenOnlyBody = Type.Object(
  { token: opt('the token'), token_type_hint: opt('access_token or refresh_token (a hint only)'), ...clientFields },
  { additionalProperties: true },
);

export const IntrospectionSchema = Type.Object({
  active: Type.Boolean(),
  scope: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.String()),
  exp: Type.Optional(Type.Integer()),
  iat: Type.Optional(Type.Integer()),
  iss: Type.Optional(Type.String()),
  sub: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  tenant_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
});

export const UserInfoSchema = Type.Object(
  {
    sub: Type.String(),
    name: Type.Optional(Type.String()),
    preferred_username: Type.Optional(Type.String()),
    updated_at: Type.Optional(Type.Integer()),
    email: Type.Optional(Type.String()),
    email_verified: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const authorizeFields = {
  client_id: Type.String({ maxLength: 200 }),
  redirect_uri: Type.String({ maxLength: 2000 }),
  // optional in the schema so that a missing one is answered by the redirecting protocol check
  response_type: Type.Optional(Type.String({ maxLength: 50, description: 'only `code`' })),
  scope: Type.Optional(Type.String({ maxLength: 2000, description: 'space-separated' })),
  state: Type.Optional(Type.String({ maxLength: 2000, description: 'passed through to the redirect' })),
  code_challenge: Type.Optional(Type.String({ maxLength: 200, description: 'BASE64URL(SHA256(code_verifier))' })),
  code_challenge_method: Type.Optional(Type.String({ maxLength: 20, description: 'only `S256`' })),
  nonce: Type.Optional(Type.String({ maxLength: 500, description: 'OpenID Connect: echoed in the id_token' })),
};

export const AuthorizeInfoQuery = Type.Object(authorizeFields);

export const AuthorizeClientQuery = Type.Object({
  client_id: authorizeFields.client_id,
  redirect_uri: authorizeFields.redirect_uri,
});

/** What the consent page may show before sign-in (docs/decisions/0033). */
export const AuthorizeClient = Type.Object({
  clientId: Type.String(),
  name: Type.String(),
  homepageUrl: Type.String({ description: 'as registered (may be empty)' }),
  logoUrl: Type.String({ description: 'as registered (may be empty)' }),
  tenantCode: Type.Union([Type.String(), Type.Null()], {
    description: "the code the application's users sign in with; null for a platform application",
  }),
});

export const AuthorizeBody = Type.Object({
  ...authorizeFields,
  decision: Type.Optional(
    Type.Union([Type.Literal('approve'), Type.Literal('deny')], {
      description: 'the user’s answer on the consent page; default approve',
    }),
  ),
});

export const AuthorizeInfo = Type.Object({
  client: Type.Object({
    clientId: Type.String(),
    name: Type.String(),
    description: Type.String(),
    homepageUrl: Type.String(),
    logoUrl: Type.String(),
  }),
  redirectUri: Type.String({ format: 'uri', description: "one of the client's registered callback URLs (absolute)" }),
  responseType: Type.Literal('code'),
  scopes: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
  previouslyGranted: Type.Array(Type.String()),
  state: Type.Union([Type.String(), Type.Null()]),
  requiresPkce: Type.Literal(true),
  codeChallengeMethods: Type.Array(Type.String()),
});

const Endpoint = Type.Optional(Type.String({ format: 'uri', description: 'absolute, under the issuer' }));

/** RFC 8414 §2: the issuer and every endpoint are absolute URLs (the issuer is PUBLIC_BASE_URL). */
export const ServerMetadataSchema = Type.Object(
  {
    issuer: Type.String({ format: 'uri', description: 'the public base URL (PUBLIC_BASE_URL), no trailing slash' }),
    authorization_endpoint: Type.Optional(
      Type.String({ format: 'uri', description: 'OAUTH_CONSENT_URL, else the console page /oauth2/authorize' }),
    ),
    token_endpoint: Endpoint,
    revocation_endpoint: Endpoint,
    introspection_endpoint: Endpoint,
    userinfo_endpoint: Endpoint,
    jwks_uri: Endpoint,
  },
  { additionalProperties: true },
);

export const JwksSchema = Type.Object({
  keys: Type.Array(Type.Object({}, { additionalProperties: true })),
});

/** An application the signed-in user authorized (a consent). */
export const ConnectedApp = Type.Object({
  appId: Type.Integer(),
  clientId: Type.String(),
  name: Type.String(),
  description: Type.String(),
  homepageUrl: Type.String(),
  logoUrl: Type.String(),
  scopes: Type.Array(Type.String()),
  grantedAt: Type.String({ format: 'date-time' }),
  /** when the newest live token was issued; null when none is live */
  lastTokenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
