import type { ClientRecord } from '../../apps/client-repository.ts';
import type { OAuthDeps } from '../deps.ts';
import type { Issued } from '../token-service.ts';

/** RFC 6749 §5.1 token response (plus the OIDC Core §3.1.3.3 id_token when openid was granted). */
export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
};

export async function tokenResponse(
  deps: OAuthDeps,
  client: ClientRecord,
  issued: Issued,
  idToken: { userId: number; nonce: string | null } | null,
): Promise<TokenResponse> {
  const now = deps.clock();
  return {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    expires_in: issued.expiresIn,
    scope: issued.scopes.join(' '),
    ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
    ...(idToken && issued.scopes.includes('openid')
      ? {
          id_token: await deps.keys.sign(
            {
              iss: deps.issuer,
              sub: String(idToken.userId),
              aud: client.clientId,
              azp: client.clientId,
              ...(idToken.nonce ? { nonce: idToken.nonce } : {}),
            },
            now,
            issued.expiresIn,
          ),
        }
      : {}),
  };
}
