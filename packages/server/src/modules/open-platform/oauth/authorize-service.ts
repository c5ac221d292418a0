import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import { randomToken, sha256 } from '../../../platform/crypto/digest.ts';
import { AppError, oauthError } from '../../../platform/http/errors.ts';
import { type ClientRecord, findClient } from '../apps/client-repository.ts';
import { checkCodeChallenge, checkGrantAllowed, checkRedirectUri, checkResponseType, checkScopes } from './checks.ts';
import { insertCode } from './code-repository.ts';
import { findConsentScopes, mergeConsent } from './consent-repository.ts';
import type { OAuthDeps } from './deps.ts';

export type AuthorizationRequest = {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  nonce?: string;
};

type Checked = { client: ClientRecord; redirectUri: string; scopes: string[]; challenge: string | null };

/**
 * The authorization endpoint as a JSON API for the console's consent page (spec §4.1).
 * RFC 6749 §4.1.2.1: while the client or redirect_uri is unproven nothing is redirected to; once
 * both are, an error also carries `redirectUrl` (error, error_description, state, iss) for the
 * page to send the browser back to the client.
 */
export function createAuthorizeService(
  deps: Pick<OAuthDeps, 'db' | 'clock' | 'issuer' | 'scopes' | 'tenantCode'> & { codeTtlSeconds: number },
) {
  const { db, clock } = deps;

  async function check(scope: Scope, q: AuthorizationRequest, pkce: 'required' | 'if-sent'): Promise<Checked> {
    const client = q.client_id ? await findClient(db, q.client_id) : null;
    // another tenant's application is reported like an unknown one: nothing leaks across tenants
    if (client?.status !== 'active' || client.tenantId !== scope.tenantId) {
      throw oauthError('invalid_client', 'unknown client');
    }
    const redirectUri = checkRedirectUri(client.redirectUris, q.redirect_uri);
    try {
      checkResponseType(q.response_type);
      checkGrantAllowed(client, 'authorization_code');
      const scopes = checkScopes(deps.scopes, client, q.scope, { withUser: true });
      const challenge =
        pkce === 'required' || q.code_challenge !== undefined || q.code_challenge_method !== undefined
          ? checkCodeChallenge(q.code_challenge, q.code_challenge_method)
          : null;
      return { client, redirectUri, scopes, challenge };
    } catch (err) {
      if (err instanceof AppError) throw withRedirect(err, redirectUri, q.state);
      throw err;
    }
  }

  /** RFC 6749 §4.1.2.1 error response, plus RFC 9207 `iss`. */
  function withRedirect(err: AppError, redirectUri: string, state: string | undefined): AppError {
    const url = responseUrl(redirectUri, { error: err.key, error_description: err.message, state });
    return oauthError(err.key as 'invalid_request', err.message, { extra: { redirectUrl: url } });
  }

  /** Appends parameters, keeping the registered URI's own query (RFC 6749 §3.1.2). */
  function responseUrl(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
    url.searchParams.append('iss', deps.issuer);
    return url.toString();
  }

  function signedInUser(scope: Scope) {
    const user = userOf(scope);
    if (!user) throw oauthError('access_denied', 'only signed-in users can authorize applications');
    return user;
  }

  return {
    /**
     * Before sign-in (docs/decisions/0033): who is asking and which tenant's people may answer,
     * for a client_id with one of its registered redirect URIs. Unproven, it says what the
     * signed-in checks say and nothing more (RFC 6749 §4.1.2.1): no name, no tenant.
     */
    async client(q: Pick<AuthorizationRequest, 'client_id' | 'redirect_uri'>) {
      const client = q.client_id ? await findClient(db, q.client_id) : null;
      if (client?.status !== 'active') throw oauthError('invalid_client', 'unknown client');
      checkRedirectUri(client.redirectUris, q.redirect_uri);
      return {
        clientId: client.clientId,
        name: client.name,
        homepageUrl: client.homepageUrl,
        logoUrl: client.logoUrl,
        // null: a platform application, answered by platform users (no tenant code at sign-in)
        tenantCode: client.tenantId === null ? null : await deps.tenantCode(client.tenantId),
      };
    },

    /** What the consent page shows: the application, the scopes asked for, what was granted before. */
    async info(scope: Scope, q: AuthorizationRequest) {
      const user = signedInUser(scope);
      const { client, redirectUri, scopes } = await check(scope, q, 'if-sent');
      const previouslyGranted = await findConsentScopes(db, user.userId, client.id);
      return {
        client: {
          clientId: client.clientId,
          name: client.name,
          description: client.description,
          homepageUrl: client.homepageUrl,
          logoUrl: client.logoUrl,
        },
        redirectUri,
        responseType: 'code' as const,
        scopes: scopes.map((name) => ({ name, description: deps.scopes.get(name)?.description ?? name })),
        previouslyGranted: previouslyGranted ?? [],
        state: q.state ?? null,
        requiresPkce: true as const,
        codeChallengeMethods: ['S256'],
      };
    },

    /** The user's answer: a code on approval, `access_denied` on refusal; both as a redirectUrl. */
    async decide(
      scope: Scope,
      q: AuthorizationRequest,
      decision: 'approve' | 'deny',
    ): Promise<{ redirectUrl: string }> {
      const user = signedInUser(scope);
      const { client, redirectUri, scopes, challenge } = await check(scope, q, 'required');
      if (decision === 'deny') {
        throw oauthError('access_denied', 'the user denied the request', {
          extra: {
            redirectUrl: responseUrl(redirectUri, {
              error: 'access_denied',
              error_description: 'the user denied the request',
              state: q.state,
            }),
          },
        });
      }
      const now = clock();
      const code = randomToken();
      await db.transaction(async (tx) => {
        await insertCode(tx, {
          codeHash: sha256(code),
          tenantId: client.tenantId,
          appId: client.id,
          userId: user.userId,
          redirectUri,
          scopes,
          codeChallenge: challenge as string,
          nonce: q.nonce ?? null,
          expiresAt: new Date(now.getTime() + deps.codeTtlSeconds * 1000),
        });
        // the consent grows: scopes granted before stay granted
        await mergeConsent(
          tx,
          { tenantId: client.tenantId, userId: user.userId, appId: client.id, scopes: [...scopes].sort() },
          now,
        );
      });
      return { redirectUrl: responseUrl(redirectUri, { code, state: q.state }) };
    },
  };
}

export type AuthorizeService = ReturnType<typeof createAuthorizeService>;
