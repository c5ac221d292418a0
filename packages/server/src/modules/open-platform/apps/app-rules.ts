import { type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import { redirectUriProblem } from '../oauth/checks.ts';
import type { ScopeRegistry } from '../scopes.ts';
import { httpUrlProblem } from '../url-rules.ts';
import type { ClientType, GrantType } from './tables.ts';

/** An application's settings as they will be stored (a create, or an update merged with the row). */
export type AppSettings = {
  clientType: ClientType;
  grantTypes: GrantType[];
  redirectUris: string[];
  allowedScopes: string[];
  homepageUrl: string;
  logoUrl: string;
};

/**
 * The rules between fields that the schema cannot express, checked before anything is written.
 * Every problem is reported, each naming its field (`redirectUris.1`, `allowedScopes.0`).
 */
export function checkAppSettings(scopes: ScopeRegistry, s: AppSettings): void {
  const details: FieldError[] = [];
  const has = (g: GrantType) => s.grantTypes.includes(g);
  // RFC 6749 §4.4 / spec §4.1 rule 2: a client that cannot keep a secret cannot authenticate alone
  if (s.clientType === 'public' && has('client_credentials')) {
    details.push({ field: 'grantTypes', message: 'a public client cannot use client_credentials' });
  }
  // spec §4.1 rule 3: refresh tokens are only issued from an authorization code
  if (has('refresh_token') && !has('authorization_code')) {
    details.push({ field: 'grantTypes', message: 'refresh_token needs authorization_code' });
  }
  if (has('authorization_code') && s.redirectUris.length === 0) {
    details.push({ field: 'redirectUris', message: 'authorization_code needs at least one redirect URI' });
  }
  for (const [i, uri] of s.redirectUris.entries()) {
    const problem = redirectUriProblem(uri);
    if (problem) details.push({ field: `redirectUris.${i}`, message: problem });
  }
  for (const [i, name] of s.allowedScopes.entries()) {
    if (!scopes.has(name)) details.push({ field: `allowedScopes.${i}`, message: `unknown scope "${name}"` });
  }
  for (const field of ['homepageUrl', 'logoUrl'] as const) {
    const problem = webUrlProblem(s[field]);
    if (problem) details.push({ field, message: problem });
  }
  if (details.length) throw httpErrors.validation(details);
}

/** Why a homepage or logo URL cannot be shown to users (empty means none), or null. */
function webUrlProblem(value: string): string | null {
  return value === '' ? null : httpUrlProblem(value);
}
