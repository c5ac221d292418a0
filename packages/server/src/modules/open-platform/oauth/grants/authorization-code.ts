import { oauthError } from '../../../../platform/http/errors.ts';
import type { ClientRecord } from '../../apps/client-repository.ts';
import { checkCodeVerifier, checkGrantAllowed, verifyPkce } from '../checks.ts';
import { findCode } from '../code-repository.ts';
import type { OAuthDeps } from '../deps.ts';
import { revokeFamily } from '../token-repository.ts';
import { type TokenResponse, tokenResponse } from './token-response.ts';

/** The parameters this grant reads (RFC 6749 §4.1.3, RFC 7636 §4.5); others are ignored (§3.2). */
export type AuthorizationCodeParams = { code?: string; redirect_uri?: string; code_verifier?: string };

/**
 * authorization_code (RFC 6749 §4.1.3, OAuth 2.1 §4.1.3): the code is single use, unexpired,
 * issued to this client for this redirect_uri, and PKCE S256 verifies. A code presented again
 * revokes every token its first redemption issued (RFC 6749 §4.1.2, RFC 9700 §4.5).
 */
export async function authorizationCodeGrant(
  deps: OAuthDeps,
  client: ClientRecord,
  params: AuthorizationCodeParams,
): Promise<TokenResponse> {
  checkGrantAllowed(client, 'authorization_code');
  if (!params.code) throw oauthError('invalid_request', 'code is required');
  if (!params.redirect_uri) throw oauthError('invalid_request', 'redirect_uri is required');
  const verifier = checkCodeVerifier(params.code_verifier);
  const now = deps.clock();

  const code = await findCode(deps.db, params.code);
  // another client's code is reported exactly like an unknown one
  if (!code || code.appId !== client.id) throw oauthError('invalid_grant', 'authorization code is invalid');
  if (code.usedAt) return reused(code.familyId);
  if (code.expiresAt <= now) throw oauthError('invalid_grant', 'authorization code has expired');
  if (code.redirectUri !== params.redirect_uri) {
    throw oauthError('invalid_grant', 'redirect_uri does not match the authorization request');
  }
  verifyPkce(verifier, code.codeChallenge);
  const user = await deps.user(code.userId);
  if (!user?.active) throw oauthError('invalid_grant', 'the user who granted access is disabled or gone');

  const withRefresh = client.grantTypes.includes('refresh_token') && code.scopes.includes('offline_access');
  const issued = await deps.tokens.redeemCode(
    code.id,
    {
      tenantId: code.tenantId,
      appId: client.id,
      userId: code.userId,
      scopes: code.scopes,
      familyId: code.familyId,
      withRefresh,
    },
    now,
  );
  if (!issued) return reused(code.familyId);
  return tokenResponse(deps, client, issued, { userId: code.userId, nonce: code.nonce });

  async function reused(familyId: string): Promise<never> {
    await revokeFamily(deps.db, familyId, deps.clock());
    throw oauthError('invalid_grant', 'authorization code has already been used');
  }
}
