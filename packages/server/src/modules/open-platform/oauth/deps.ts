import type { AppContext } from '../../../platform/context.ts';
import type { OAuthSubject } from '../../identity/index.ts';
import type { ClientCache } from '../apps/client-cache.ts';
import type { ScopeRegistry } from '../scopes.ts';
import type { SigningKeys } from './signing-keys.ts';
import type { TokenStore } from './tokens.ts';

/** A user as the OAuth server sees them (the identity module's view). */
export type OAuthUser = OAuthSubject;

/** What the protocol code is built with. */
export type OAuthDeps = {
  ctx: AppContext;
  /** the `iss` of this server (PUBLIC_BASE_URL without a trailing slash) */
  issuer: string;
  scopes: ScopeRegistry;
  store: TokenStore;
  keys: SigningKeys;
  /** client records for client authentication (kept in memory, dropped on every change) */
  clients: ClientCache;
  /** identity's view of a user; null when unknown */
  user: (userId: number) => Promise<OAuthUser | null>;
};
