import type { FastifyRequest } from 'fastify';
import type { AppPrincipal, Principal } from '../auth/principal.ts';
import { AppError, httpErrors } from './errors.ts';
import type { RouteConfig } from './route.ts';

/**
 * Turns a bearer token into a principal and the tenant the request acts in, or null when the
 * token is not valid. Provided by the identity module; the kernel knows no module.
 */
export type AuthResolver = (
  token: string,
  req: FastifyRequest,
) => Promise<{ principal: Principal; tenantId: number | null } | null>;

/** Turns an OAuth 2 access token into the application calling (route `auth: 'app'`), or null. */
export type AppAuthResolver = (token: string) => Promise<AppPrincipal | null>;

type Guard = Partial<Pick<RouteConfig, 'auth' | 'permission' | 'scopes'>>;

/**
 * The credentials a route's `auth` asks for, checked in onRequest: a console or member token
 * (`user`, `optional`), or an open-platform application's OAuth 2 access token (`app`).
 * `public` routes check nothing. On success `req.scope` carries the principal and tenant.
 */
export function authenticator(resolveAuth: AuthResolver, resolveAppAuth: AppAuthResolver) {
  /** `user` and `optional`: a token from POST /api/auth/login; `user` also checks the permission. */
  async function userToken(req: FastifyRequest, cfg: Guard) {
    const token = bearer(req.headers.authorization);
    const resolved = token ? await resolveAuth(token, req) : null;
    if (resolved) {
      req.scope.principal = resolved.principal;
      req.scope.tenantId = resolved.tenantId;
    }
    if (cfg.auth !== 'user') return;
    if (!token) throw httpErrors.unauthenticated();
    if (resolved?.principal.kind !== 'user') {
      throw new AppError(401, 'auth.invalid_token', 'The access token is invalid or expired', {
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      });
    }
    if (cfg.permission) {
      const code = fillParams(cfg.permission, req.params as Record<string, string>);
      const p = resolved.principal;
      if (!p.isSuper && !p.permissions.has(code)) throw httpErrors.forbidden(code);
    }
  }

  /** RFC 6750 §3: a missing token gets a bare challenge, a bad one `invalid_token`, too few scopes 403. */
  async function appToken(req: FastifyRequest, cfg: Guard) {
    const token = bearer(req.headers.authorization);
    if (!token) {
      throw new AppError(401, 'auth.unauthenticated', 'An OAuth 2 access token is required', {
        headers: { 'www-authenticate': 'Bearer realm="atrium"' },
      });
    }
    const principal = await resolveAppAuth(token);
    if (!principal) {
      throw new AppError(401, 'auth.invalid_token', 'The access token is invalid, expired or revoked', {
        headers: { 'www-authenticate': 'Bearer realm="atrium", error="invalid_token"' },
      });
    }
    req.scope.principal = principal;
    req.scope.tenantId = principal.tenantId;
    const missing = (cfg.scopes ?? []).filter((s) => !principal.scopes.has(s));
    if (missing.length) {
      const needed = (cfg.scopes ?? []).join(' ');
      throw new AppError(403, 'auth.insufficient_scope', `The access token lacks the scope ${missing.join(' ')}`, {
        headers: { 'www-authenticate': `Bearer realm="atrium", error="insufficient_scope", scope="${needed}"` },
      });
    }
  }

  return async (req: FastifyRequest, cfg: Guard): Promise<void> => {
    if (cfg.auth === 'public') return;
    if (cfg.auth === 'app') await appToken(req, cfg);
    else await userToken(req, cfg);
  };
}

function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  return m?.[1] ?? null;
}

function fillParams(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');
}
