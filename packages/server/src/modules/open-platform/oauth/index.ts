import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import type { ClientCache } from '../apps/client-cache.ts';
import type { ScopeRegistry } from '../scopes.ts';
import { appAuthResolver } from './app-auth.ts';
import { createAuthorizeService } from './authorize-service.ts';
import { connectedAppsRoutes } from './connected-apps-routes.ts';
import { createConnectedAppsService } from './connected-apps-service.ts';
import type { FindOAuthUser, OAuthDeps, TenantCodeOf } from './deps.ts';
import { createProtocolService } from './protocol-service.ts';
import { oauthRoutes } from './routes.ts';
import { signingKeys } from './signing-keys.ts';
import { createTokenService } from './token-service.ts';

export type { FindOAuthUser, TenantCodeOf } from './deps.ts';

/** The OAuth 2.1 authorization server: its endpoints, bearer access for applications, connected apps. */
export function createOAuth(
  ctx: AppContext,
  deps: { scopes: ScopeRegistry; clients: ClientCache; user: FindOAuthUser; tenantCode: TenantCodeOf },
) {
  const { db, clock, config } = ctx;
  const tokens = createTokenService({
    db,
    lifetimes: { accessSeconds: config.oauthAccessTokenTtlSeconds, refreshSeconds: config.oauthRefreshTokenTtlSeconds },
  });
  const oauth: OAuthDeps = {
    ...deps,
    db,
    clock,
    // the issuer identifier is the service's public base URL (PUBLIC_BASE_URL, else its own address)
    issuer: ctx.links.base,
    tokens,
    keys: signingKeys({ db, secrets: ctx.secrets }),
  };
  const authorize = createAuthorizeService({ ...oauth, codeTtlSeconds: config.oauthCodeTtlSeconds });
  const endpoints = createProtocolService({ ...oauth, consentUrl: config.oauthConsentUrl });
  const connectedApps = createConnectedAppsService({ db, clock });
  return {
    tokens,
    /** for the kernel: resolves `auth: 'app'` bearer tokens */
    resolveAppAuth: appAuthResolver(oauth),
    /** RFC 8414 metadata: the absolute endpoints the API description's OAuth2 scheme names too */
    metadata: endpoints.metadata,
    register(app: FastifyInstance) {
      oauthRoutes(app, authorize, endpoints);
      connectedAppsRoutes(app, connectedApps);
    },
  };
}
