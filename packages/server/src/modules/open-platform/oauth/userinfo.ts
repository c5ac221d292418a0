import { oauthError } from '../../../platform/http/errors.ts';
import type { OAuthDeps } from './deps.ts';
import { findLiveToken } from './token-repository.ts';

const challenge = (error: string, description: string) =>
  `Bearer realm="atrium", error="${error}", error_description="${description}"`;

/**
 * OIDC Core §5.3 UserInfo: a live access token bound to a user (spec §4.1 rule 4: a
 * client_credentials token has no user) and granted `openid`. Claims by scope (§5.4):
 * profile → name, preferred_username, updated_at; email → email, email_verified.
 */
export async function userinfo(
  deps: OAuthDeps,
  authorization: string | undefined,
  /** OIDC Core §5.3.1 POST: the token may come as the RFC 6750 §2.2 form parameter instead */
  formToken?: unknown,
): Promise<Record<string, unknown>> {
  const m = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  const invalid = (description: string) =>
    oauthError('invalid_token', description, {
      headers: { 'www-authenticate': challenge('invalid_token', description) },
    });
  const fromForm = formToken === undefined ? undefined : typeof formToken === 'string' && !m ? formToken : null;
  if (fromForm === null) {
    // RFC 6750 §2: one method only, and one token
    const description = 'send one access token, in the Authorization header or the access_token form field';
    throw oauthError('invalid_request', description, {
      headers: { 'www-authenticate': challenge('invalid_request', description) },
    });
  }
  const token = m?.[1] ?? fromForm;
  if (!token) {
    throw oauthError('invalid_token', 'an access token is required', {
      headers: { 'www-authenticate': 'Bearer realm="atrium"' },
    });
  }
  const live = await findLiveToken(deps.db, token, deps.clock(), 'access');
  if (!live) throw invalid('the access token is invalid, expired or revoked');
  const t = live.token;
  if (t.userId === null) throw invalid('the access token is not bound to a user (client_credentials)');
  if (!t.scopes.includes('openid')) {
    const description = 'the access token was not granted the openid scope';
    throw oauthError('insufficient_scope', description, {
      headers: { 'www-authenticate': `${challenge('insufficient_scope', description)}, scope="openid"` },
    });
  }
  const user = await deps.user(t.userId);
  if (!user?.active) throw invalid('the user is disabled or gone');
  return {
    sub: String(user.id),
    ...(t.scopes.includes('profile')
      ? { name: user.name, preferred_username: user.username, updated_at: Math.floor(user.updatedAt.getTime() / 1000) }
      : {}),
    ...(t.scopes.includes('email') && user.email ? { email: user.email, email_verified: false } : {}),
  };
}
