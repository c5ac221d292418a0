import type { FastifyRequest } from 'fastify';
import { oauthError } from '../../../platform/http/errors.ts';
import { authenticateClient, clientRefused } from './client-auth.ts';
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
  const now = deps.clock();
  if (grant === 'client_credentials') {
    // the cached record, confirmed by the token's INSERT; if that refuses, once more from the database
    const params = { scope: body.scope };
    const cached = await authenticateClient(deps.clients, 'cache', req, now);
    const issued = await clientCredentialsGrant(deps, cached, params);
    if (issued) return issued;
    const fresh = await authenticateClient(deps.clients, 'database', req, now);
    const retried = await clientCredentialsGrant(deps, fresh, params);
    if (!retried) throw clientRefused();
    return retried;
  }
  // these grants' transactions do not re-check the application: its record is read afresh
  const { client } = await authenticateClient(deps.clients, 'database', req, now);
  if (grant === 'authorization_code') {
    return authorizationCodeGrant(deps, client, {
      code: body.code,
      redirect_uri: body.redirect_uri,
      code_verifier: body.code_verifier,
    });
  }
  return refreshTokenGrant(deps, client, { refresh_token: body.refresh_token, scope: body.scope });
}
