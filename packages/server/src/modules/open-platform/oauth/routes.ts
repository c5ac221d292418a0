import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { envelopeSuccess, oauthErrors, type ReplyFormat, replyFormats } from '../../../platform/http/reply-formats.ts';
import { route } from '../../../platform/http/route.ts';
import type { AuthorizeService } from './authorize-service.ts';
import type { ProtocolService } from './protocol-service.ts';
import {
  AuthorizeBody,
  AuthorizeClient,
  AuthorizeClientQuery,
  AuthorizeInfo,
  AuthorizeInfoQuery,
  IntrospectionSchema,
  JwksSchema,
  ServerMetadataSchema,
  TokenBody,
  TokenOnlyBody,
  TokenResponseSchema,
  UserInfoForm,
  UserInfoSchema,
} from './schemas.ts';

const tags = ['OAuth2'];

/**
 * The consent page's calls: the console reads the envelope, but errors are the protocol's
 * (RFC 6749 §4.1.2.1), with the redirectUrl that sends the browser back to the client.
 */
const consentPage: ReplyFormat = { success: envelopeSuccess, error: oauthErrors };

/** The OAuth 2.1 endpoints of spec §4.1 plus discovery (RFC 8414, OIDC Discovery) and the JWKS. */
export function oauthRoutes(app: FastifyInstance, authorize: AuthorizeService, endpoints: ProtocolService): void {
  const protocol = { reply: replyFormats.oauth, audit: false } as const;
  // RFC 6749 §3.2, RFC 7009 §2.1, RFC 7662 §2.1: form-encoded POSTs only; a JSON body is a 415,
  // answered as invalid_request on these routes
  const form = { consumes: ['application/x-www-form-urlencoded' as const] };
  // RFC 6749 §5.1: token responses are never cached
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store').header('pragma', 'no-cache');

  route(app, {
    method: 'GET',
    url: '/api/oauth2/authorize/client',
    operation: 'open_platform.oauth_authorize.client',
    auth: 'public',
    reply: consentPage,
    // public: limited per IP so that client ids cannot be tried in bulk
    rateLimit: { key: 'ip', max: 60, windowSeconds: 60 },
    schema: {
      tags,
      summary: "Before sign-in: the application of an authorization request and its tenant's code",
      description:
        'Answers only for an active client_id with one of its registered redirect URIs; otherwise the same ' +
        'RFC 6749 error as authorize/info (invalid_client, or invalid_request for the redirect_uri), never a redirectUrl.',
      querystring: AuthorizeClientQuery,
      response: AuthorizeClient,
    },
    handler: async (req) => authorize.client(req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/oauth2/authorize/info',
    operation: 'open_platform.oauth_authorize.info',
    auth: 'user',
    reply: consentPage,
    schema: {
      tags,
      summary: 'What the consent page shows for an authorization request (requiresPkce is always true)',
      querystring: AuthorizeInfoQuery,
      response: AuthorizeInfo,
    },
    handler: async (req) => authorize.info(req.scope, req.query),
  });

  route(app, {
    method: 'POST',
    url: '/api/oauth2/authorize',
    operation: 'open_platform.oauth_authorize.decide',
    auth: 'user',
    reply: consentPage,
    audit: true,
    schema: {
      tags,
      summary: 'Approve (or deny) an authorization request: data.redirectUrl carries code, state and iss',
      description:
        'Errors are RFC 6749 bodies; once client_id and redirect_uri are proven they also carry redirectUrl ' +
        '(error, error_description, state, iss) to send the browser back to the client.',
      body: AuthorizeBody,
      response: Type.Object({
        redirectUrl: Type.String({
          format: 'uri',
          description: "the client's registered redirect_uri with the answer (absolute)",
        }),
      }),
    },
    handler: async (req) => {
      const { decision, ...q } = req.body;
      return authorize.decide(req.scope, q, decision ?? 'approve');
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/oauth2/token',
    operation: 'open_platform.oauth_token.issue',
    auth: 'public',
    ...protocol,
    ...form,
    schema: {
      tags,
      summary: 'Token endpoint: authorization_code (PKCE S256), client_credentials, refresh_token',
      body: TokenBody,
      response: TokenResponseSchema,
    },
    handler: async (req, reply) => {
      noStore(reply);
      return endpoints.token(req as never);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/oauth2/token/revoke',
    operation: 'open_platform.oauth_token.revoke',
    auth: 'public',
    ...protocol,
    ...form,
    schema: {
      tags,
      summary: 'Token revocation (RFC 7009): always {}, also for unknown tokens',
      body: TokenOnlyBody,
      response: Type.Object({}),
    },
    handler: async (req, reply) => {
      noStore(reply);
      return endpoints.revoke(req as never);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/oauth2/token/introspect',
    operation: 'open_platform.oauth_token.introspect',
    auth: 'public',
    ...protocol,
    ...form,
    schema: {
      tags,
      summary: 'Token introspection (RFC 7662); the caller authenticates as a confidential client',
      body: TokenOnlyBody,
      response: IntrospectionSchema,
    },
    handler: async (req, reply) => {
      noStore(reply);
      return endpoints.introspect(req as never);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/oauth2/userinfo',
    operation: 'open_platform.oauth_userinfo.get',
    auth: 'public',
    ...protocol,
    errors: [400, 401, 403], // invalid_request, invalid_token, insufficient_scope
    schema: {
      tags,
      summary: 'OpenID Connect UserInfo: claims of the user an access token is bound to',
      description: 'Header Authorization: Bearer <access token> (an OAuth 2 access token, not a console token).',
      response: UserInfoSchema,
    },
    handler: async (req, reply) => {
      noStore(reply);
      return endpoints.userinfo(req.headers.authorization);
    },
  });

  // OIDC Core §5.3.1: the UserInfo endpoint MUST support POST too
  route(app, {
    method: 'POST',
    url: '/api/oauth2/userinfo',
    operation: 'open_platform.oauth_userinfo.post',
    auth: 'public',
    ...protocol,
    ...form,
    errors: [401, 403], // invalid_token, insufficient_scope
    // RFC 6750 §2.1, §2.2: the token in the Authorization header, or the form's access_token
    optionalBody: true,
    schema: {
      tags,
      summary:
        'OpenID Connect UserInfo by POST: the access token in the Authorization header or the access_token form field',
      body: UserInfoForm,
      response: UserInfoSchema,
    },
    handler: async (req, reply) => {
      noStore(reply);
      // a form (consumes), or no body when the token is in the Authorization header
      const body = req.body as { access_token?: unknown } | undefined;
      return endpoints.userinfo(req.headers.authorization, body?.access_token);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/oauth2/jwks',
    operation: 'open_platform.oauth_jwks.get',
    auth: 'public',
    ...protocol,
    schema: { tags, summary: 'JSON Web Key Set of the id_token signing keys (RFC 7517)', response: JwksSchema },
    handler: async () => endpoints.jwks(),
  });

  for (const [url, operation, summary] of [
    ['/.well-known/oauth-authorization-server', 'oauth.metadata.get', 'Authorization server metadata (RFC 8414)'],
    ['/.well-known/openid-configuration', 'oauth.openid_configuration.get', 'OpenID Connect Discovery 1.0 metadata'],
  ] as const) {
    route(app, {
      method: 'GET',
      url,
      operation,
      auth: 'public',
      ...protocol,
      stateless: true, // built from the configuration
      schema: { tags, summary, response: ServerMetadataSchema },
      handler: async () => endpoints.metadata(),
    });
  }
}
