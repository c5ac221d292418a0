import type { ScopeRegistry } from '../scopes.ts';

/**
 * RFC 8414 authorization server metadata, which is also OpenID Connect Discovery 1.0 §3 metadata:
 * one document serves both well-known paths, so standard clients configure themselves.
 */
export function serverMetadata(issuer: string, consentUrl: string | null, scopes: ScopeRegistry) {
  const api = `${issuer}/api/oauth2`;
  return {
    issuer,
    authorization_endpoint: consentUrl ?? `${issuer}/oauth2/authorize`,
    token_endpoint: `${api}/token`,
    revocation_endpoint: `${api}/token/revoke`,
    introspection_endpoint: `${api}/token/introspect`,
    userinfo_endpoint: `${api}/userinfo`,
    jwks_uri: `${api}/jwks`,
    scopes_supported: scopes.all().map((s) => s.name),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'nonce',
      'azp',
      'name',
      'preferred_username',
      'updated_at',
      'email',
      'email_verified',
    ],
  };
}
