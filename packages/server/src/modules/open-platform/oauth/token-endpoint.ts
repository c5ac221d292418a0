import type { FastifyRequest } from 'fastify';
import { oauthError } from '../../../platform/http/errors.ts';
import { authenticateClient } from './client-auth.ts';
import type { OAuthDeps } from './deps.ts';
import { authorizationCodeGrant } from './grants/authorization-code.ts';
import { clientCredentialsGrant } from './grants/client-credentials.ts';
import { refreshTokenGrant } from './grants/refresh-token.ts';
import type { TokenResponse } from './grants/token-response.ts';

export type TokenRequestBody = Record<string, string | undefined>;

/** Dispatch by grant_type; each grant picks only its own parameters from the body. */
export async function tokenEndpoint(
  deps: OAuthDeps,
  req: FastifyRequest & { body: TokenRequestBody },
): Promise<TokenResponse> {
  const body = req.body;
  const grant = body.grant_type;
  if (!grant) throw oauthError('invalid_request', 'grant_type is required');
  if (!['authorization_code', 'client_credentials', 'refresh_token'].includes(grant)) {
    throw oauthError('unsupported_grant_type', `grant_type ${grant} is not supported`);
  }
  const { client } = await authenticateClient(deps.clients, req, deps.ctx.clock());
  switch (grant) {
    case 'authorization_code':
      return authorizationCodeGrant(deps, client, {
        code: body.code,
        redirect_uri: body.redirect_uri,
        code_verifier: body.code_verifier,
      });
    case 'client_credentials':
      return clientCredentialsGrant(deps, client, { scope: body.scope });
    default:
      return refreshTokenGrant(deps, client, { refresh_token: body.refresh_token, scope: body.scope });
  }
}
