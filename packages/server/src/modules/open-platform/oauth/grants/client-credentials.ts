import { oauthError } from '../../../../platform/http/errors.ts';
import { checkGrantAllowed, checkScopes } from '../checks.ts';
import type { AuthenticatedClient } from '../client-auth.ts';
import type { OAuthDeps } from '../deps.ts';
import { type TokenResponse, tokenResponse } from './token-response.ts';

/** The parameters this grant reads (RFC 6749 §4.4.2). */
export type ClientCredentialsParams = { scope?: string };

/**
 * client_credentials (RFC 6749 §4.4): confidential clients only (§4.4: "MUST only be used by
 * confidential clients"), scope ⊆ allowedScopes (identity scopes excluded), and never a refresh
 * token (§4.4.3). The token acts for the application's tenant, with no user. Null when the
 * database refused the token because the application changed since its record was read
 * (client-token-writer.ts): the caller reads the record again.
 */
export async function clientCredentialsGrant(
  deps: OAuthDeps,
  { client, proof }: AuthenticatedClient,
  params: ClientCredentialsParams,
): Promise<TokenResponse | null> {
  if (client.clientType !== 'confidential' || proof === null) {
    throw oauthError('unauthorized_client', 'client_credentials is for confidential clients only');
  }
  checkGrantAllowed(client, 'client_credentials');
  const scopes = checkScopes(deps.scopes, client, params.scope, { withUser: false });
  const issued = await deps.tokens.issueClientToken({ appId: client.id, proof, scopes }, deps.clock());
  return issued && tokenResponse(deps, client, issued, null);
}
