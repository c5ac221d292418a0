import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../../../platform/crypto/digest.ts';
import { oauthError } from '../../../platform/http/errors.ts';
import type { GrantType } from '../apps/tables.ts';
import { parseScope, type ScopeRegistry } from '../scopes.ts';
import { httpUrlProblem } from '../url-rules.ts';

/**
 * Protocol checks, one small function per rule, each naming the RFC section it enforces.
 * They throw the exact §7.1 error; callers decide whether it may be redirected.
 */

type Client = { clientType: 'confidential' | 'public'; grantTypes: GrantType[]; allowedScopes: string[] };

/** RFC 6749 §4.1.1 / OAuth 2.1 §4.1.1: the only response type is `code`. */
export function checkResponseType(responseType: string | undefined): void {
  if (responseType === undefined || responseType === '')
    throw oauthError('invalid_request', 'response_type is required');
  if (responseType !== 'code') {
    throw oauthError('unsupported_response_type', 'only response_type=code is supported');
  }
}

/** RFC 6749 §5.2 unauthorized_client: the client must be registered for the grant. */
export function checkGrantAllowed(client: Client, grant: GrantType): void {
  if (!client.grantTypes.includes(grant)) {
    throw oauthError('unauthorized_client', `the client is not allowed to use the ${grant} grant`);
  }
}

/** RFC 7636 §4.3, §4.4.1 and OAuth 2.1 §4.1.1: a S256 challenge is mandatory; `plain` is refused. */
export function checkCodeChallenge(challenge: string | undefined, method: string | undefined): string {
  if (challenge === undefined || challenge === '') {
    throw oauthError('invalid_request', 'code_challenge is required (PKCE with S256)');
  }
  if (method !== 'S256') {
    throw oauthError(
      'invalid_request',
      method === undefined || method === ''
        ? 'code_challenge_method is required (S256)'
        : 'code_challenge_method must be S256',
    );
  }
  // BASE64URL(SHA256(verifier)) is always 43 characters
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    throw oauthError('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the verifier');
  }
  return challenge;
}

/** RFC 7636 §4.1: code_verifier = 43*128 unreserved characters. */
export function checkCodeVerifier(verifier: string | undefined): string {
  if (verifier === undefined || verifier === '') throw oauthError('invalid_request', 'code_verifier is required');
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) {
    throw oauthError('invalid_request', 'code_verifier must be 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]');
  }
  return verifier;
}

/** RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) must equal the stored challenge. */
export function verifyPkce(verifier: string, challenge: string): void {
  const computed = createHash('sha256').update(verifier).digest('base64url');
  if (!constantTimeEqual(computed, challenge)) throw oauthError('invalid_grant', 'PKCE verification failed');
}

/**
 * OAuth 2.1 §2.3.1 / RFC 9700 §4.1.1: the redirect URI is compared to the registered ones by
 * exact string match. Failing it is never redirected to (RFC 6749 §4.1.2.1).
 */
export function checkRedirectUri(registered: string[], redirectUri: string | undefined): string {
  if (redirectUri === undefined || redirectUri === '') throw oauthError('invalid_request', 'redirect_uri is required');
  if (!registered.includes(redirectUri)) {
    throw oauthError('invalid_request', 'redirect_uri is not registered for this client');
  }
  return redirectUri;
}

/**
 * Whether a callback URL may be registered: absolute, no fragment (RFC 6749 §3.1.2), https
 * except on a loopback host for native apps (RFC 8252 §7.3, OAuth 2.1 §1.5). Returns why not.
 */
export function redirectUriProblem(uri: string): string | null {
  const problem = httpUrlProblem(uri);
  if (problem) return problem;
  const url = new URL(uri);
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  return url.protocol === 'https:' || loopback ? null : 'must use https (http only on a loopback host)';
}

/**
 * RFC 6749 §3.3: requested scopes must be known and allowed for the client. For
 * client_credentials, identity scopes (openid, profile, email, offline_access) make no sense.
 */
export function checkScopes(
  registry: ScopeRegistry,
  client: Client,
  raw: string | undefined,
  opts: { withUser: boolean },
): string[] {
  const requested = parseScope(raw);
  if (requested === null) throw oauthError('invalid_scope', 'scope is malformed');
  const allowed = client.allowedScopes.filter((s) => opts.withUser || !registry.get(s)?.userOnly);
  if (requested.length === 0) {
    // RFC 6749 §3.3: an omitted scope means the client's pre-defined default (client_credentials only)
    if (opts.withUser) throw oauthError('invalid_scope', 'scope is required');
    if (allowed.length === 0) throw oauthError('invalid_scope', 'the client has no scopes it may request');
    return allowed;
  }
  const refused = requested.filter((s) => !allowed.includes(s));
  if (refused.length) {
    throw oauthError('invalid_scope', `scope not allowed for this client: ${refused.join(' ')}`);
  }
  return requested;
}
