import { oauthError } from '../../../../platform/http/errors.ts';
import type { ClientRecord } from '../../apps/clients.ts';
import { checkGrantAllowed, checkScopes } from '../checks.ts';
import type { OAuthDeps } from '../deps.ts';
import { type TokenResponse, tokenResponse } from './token-response.ts';

/** The parameters this grant reads (RFC 6749 §4.4.2). */
export type ClientCredentialsParams = { scope?: string };

/**
 * client_credentials (RFC 6749 §4.4): confidential clients only (§4.4: "MUST only be used by
 * confidential clients"), scope ⊆ allowedScopes (identity scopes excluded), and never a refresh
 * token (§4.4.3). The token acts for the application's tenant, with no user.
 */
export async function clientCredentialsGrant(
  deps: OAuthDeps,
  client: ClientRecord,
  params: ClientCredentialsParams,
): Promise<TokenResponse> {
  if (client.clientType !== 'confidential') {
    throw oauthError('unauthorized_client', 'client_credentials is for confidential clients only');
  }
  checkGrantAllowed(client, 'client_credentials');
  const scopes = checkScopes(deps.scopes, client, params.scope, { withUser: false });
  const issued = await deps.store.issue(
    deps.ctx.db,
    { tenantId: client.tenantId, appId: client.id, userId: null, scopes, familyId: null, withRefresh: false },
    deps.ctx.clock(),
  );
  return tokenResponse(deps, client, issued, null);
}
