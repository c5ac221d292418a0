import type { Db } from '../../../platform/db/client.ts';
import type { ClientCache } from '../apps/client-cache.ts';
import type { ScopeRegistry } from '../scopes.ts';
import type { SigningKeys } from './signing-keys.ts';
import type { TokenService } from './token-service.ts';

/** A user as the OAuth server needs them (from identity): who signed, whether still active (tenant included), the OIDC claims. */
export type OAuthUser = {
  id: number;
  tenantId: number | null;
  username: string;
  name: string;
  email: string | null;
  active: boolean;
  updatedAt: Date;
};

/** identity's view of a user; null when unknown */
export type FindOAuthUser = (userId: number) => Promise<OAuthUser | null>;

/** identity's code of a tenant (what people sign in with); null when unknown */
export type TenantCodeOf = (tenantId: number) => Promise<string | null>;

/** What the protocol code is built with. */
export type OAuthDeps = {
  db: Db;
  clock: () => Date;
  /** the `iss` of this server (PUBLIC_BASE_URL without a trailing slash) */
  issuer: string;
  scopes: ScopeRegistry;
  tokens: TokenService;
  keys: SigningKeys;
  /** client records for client authentication (kept in memory, dropped on every change) */
  clients: ClientCache;
  user: FindOAuthUser;
  tenantCode: TenantCodeOf;
};
