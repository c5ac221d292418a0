import { oauthError } from '../../../../platform/http/errors.ts';
import type { ClientRecord } from '../../apps/client-repository.ts';
import { parseScope } from '../../scopes.ts';
import { checkGrantAllowed } from '../checks.ts';
import type { OAuthDeps } from '../deps.ts';
import { findToken, revokeFamily } from '../token-repository.ts';
import { type TokenResponse, tokenResponse } from './token-response.ts';

/** The parameters this grant reads (RFC 6749 §6). */
export type RefreshTokenParams = { refresh_token?: string; scope?: string };

/**
 * refresh_token (RFC 6749 §6, OAuth 2.1 §4.3.1): the client must allow both authorization_code
 * and refresh_token, the grant must include offline_access. Each refresh token is used once and
 * replaced by a new one of the same family (rotation, RFC 9700 §4.14.2). A used one presented
 * again means it leaked: the whole family is revoked (spec §4.1 rule 3, §7.2). A narrower
 * `scope` narrows the new access token only; the refresh token keeps the original grant.
 */
export async function refreshTokenGrant(
  deps: OAuthDeps,
  client: ClientRecord,
  params: RefreshTokenParams,
): Promise<TokenResponse> {
  checkGrantAllowed(client, 'authorization_code');
  checkGrantAllowed(client, 'refresh_token');
  if (!params.refresh_token) throw oauthError('invalid_request', 'refresh_token is required');
  const requested = parseScope(params.scope);
  if (requested === null) throw oauthError('invalid_scope', 'scope is malformed');
  const now = deps.clock();

  const known = await findToken(deps.db, params.refresh_token);
  // another client's token is reported exactly like an unknown one
  if (known?.kind !== 'refresh' || known.appId !== client.id || !known.familyId || known.userId === null) {
    throw oauthError('invalid_grant', 'refresh token is invalid, expired or revoked');
  }
  const familyId = known.familyId;
  if (known.usedAt) return replayed();
  if (known.revokedAt || known.expiresAt <= now) {
    throw oauthError('invalid_grant', 'refresh token is invalid, expired or revoked');
  }
  if (!known.scopes.includes('offline_access'))
    throw oauthError('invalid_grant', 'the grant does not include offline_access');
  const refused = requested.filter((s) => !known.scopes.includes(s));
  if (refused.length) throw oauthError('invalid_scope', `scope exceeds the original grant: ${refused.join(' ')}`);
  const user = await deps.user(known.userId);
  if (!user?.active) throw oauthError('invalid_grant', 'the user who granted access is disabled or gone');

  const issued = await deps.tokens.rotateRefreshToken(
    params.refresh_token,
    { appId: client.id, familyId, requested },
    now,
  );
  if (!issued) return replayed();
  return tokenResponse(deps, client, issued, { userId: known.userId, nonce: null });

  async function replayed(): Promise<never> {
    await revokeFamily(deps.db, familyId, deps.clock());
    throw oauthError('invalid_grant', 'refresh token was already used; every token of its grant is revoked');
  }
}
