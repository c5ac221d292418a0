import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { License } from '../auth/license.ts';
import type { AppPrincipal, Principal, Scope } from '../auth/principal.ts';
import type { Cache } from '../cache/cache.ts';
import { sha256 } from '../crypto/digest.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { handleClientError, handleError, handleFrameworkError } from './error-handler.ts';
import { AppError, httpErrors, OAuthErrorBody } from './errors.ts';
import { lazySerializerFactory, lazyValidator, type Validate } from './lazy-compilers.ts';
import { checkMediaType, checkText } from './request-checks.ts';
import { MAX_PARAM_LENGTH, type RateLimit, type RouteConfig } from './route.ts';
import { ErrorBody } from './schemas.ts';

declare module 'fastify' {
  interface FastifyRequest {
    scope: Scope;
  }
  interface FastifyContextConfig extends Partial<RouteConfig> {}
}

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

export type HttpServerOptions = {
  config: Pick<Config, 'trustProxy' | 'bodyLimitBytes'>;
  logger: FastifyBaseLogger;
  metrics: Metrics;
  license: License;
  resolveAuth: AuthResolver;
  resolveAppAuth: AppAuthResolver;
  /** rate-limit counters (route `rateLimit`) */
  cache: Pick<Cache, 'incr'>;
};

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

export function createHttpServer(opts: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: opts.logger,
    trustProxy: opts.config.trustProxy,
    bodyLimit: opts.config.bodyLimitBytes,
    // A caller's request id is kept (tracing across services) when it looks like one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // unsubscribe tokens and other signed path values run to 2,000 characters (default 100)
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
  });
  // Bodies are JSON, forms, or what a route's own plugin parses (multipart, octet-stream);
  // text/plain would reach JSON routes as a string and be refused as the wrong type, not a 415.
  app.removeContentTypeParser('text/plain');
  app.addSchema(ErrorBody);
  app.addSchema(OAuthErrorBody);
  app.setValidatorCompiler(createValidatorCompiler());
  // HTML forms and protocol endpoints (RFC 8058 one-click unsubscribe, OAuth token requests)
  // post application/x-www-form-urlencoded: one string per name; a repeated name becomes an
  // array, which a string schema then rejects (RFC 6749 §3.2: parameters must not repeat).
  // Own properties only: a field named `constructor` or `toString` must not pick up
  // Object.prototype's, and `__proto__` is dropped rather than set as the prototype.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(body as string)) {
      if (name === '__proto__') continue;
      const seen = Object.hasOwn(out, name) ? out[name] : undefined;
      out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
    done(null, out);
  });
  app.decorateRequest('scope', null as unknown as Scope);

  // Before schema validation: the media type the route declares, and text no column can hold.
  app.addHook('preValidation', async (req) => {
    const cfg = req.routeOptions.config;
    if (cfg.consumes) checkMediaType(req, cfg.consumes);
    checkText(req);
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    req.scope = { tenantId: null, principal: null, requestId: req.id, ip: req.ip };
    const cfg = req.routeOptions.config;
    if (!cfg.operation) return; // unknown route: the not-found handler answers

    if (cfg.feature && !opts.license.enabled(cfg.feature)) throw httpErrors.featureDisabled(cfg.feature);
    const limit = cfg.rateLimit;
    // An IP limit is checked first, so a flood is refused before any token work.
    if (limit?.key === 'ip') await enforceRateLimit(req, cfg.operation, limit);
    if (cfg.auth === 'app') await authenticateApp(req, cfg);
    else if (cfg.auth !== 'public') await authenticate(req, cfg);
    if (limit && limit.key !== 'ip') await enforceRateLimit(req, cfg.operation, limit);
  });

  async function enforceRateLimit(req: FastifyRequest, operation: string, limit: RateLimit) {
    const key = `ratelimit:${operation}:${rateLimitSubject(req, limit)}`;
    const { count, ttl } = await opts.cache.incr(key, limit.windowSeconds);
    if (count > limit.max) throw httpErrors.rateLimited(Math.max(1, ttl));
  }

  async function authenticate(req: FastifyRequest, cfg: Partial<RouteConfig>) {
    const token = bearer(req.headers.authorization);
    const resolved = token ? await opts.resolveAuth(token, req) : null;
    if (resolved) {
      req.scope.principal = resolved.principal;
      req.scope.tenantId = resolved.tenantId;
    }
    if (cfg.auth === 'user') {
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
  }

  /** RFC 6750 §3: a missing token gets a bare challenge, a bad one `invalid_token`, too few scopes 403. */
  async function authenticateApp(req: FastifyRequest, cfg: Partial<RouteConfig>) {
    const token = bearer(req.headers.authorization);
    if (!token) {
      throw new AppError(401, 'auth.unauthenticated', 'An OAuth 2 access token is required', {
        headers: { 'www-authenticate': 'Bearer realm="atrium"' },
      });
    }
    const principal = await opts.resolveAppAuth(token);
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

  app.addHook('onResponse', async (req, reply) => {
    const operation = req.routeOptions.config.operation ?? 'unmatched';
    opts.metrics.observeRequest(operation, req.method, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.setNotFoundHandler(async (req) => {
    throw httpErrors.routeNotFound(req.method, req.url.split('?')[0] ?? req.url);
  });

  app.setErrorHandler(handleError);

  return app;
}

/**
 * Two validators: query strings, params and headers arrive as text, so their scalars are coerced
 * ("5" → 5); JSON bodies are typed already and are checked strictly, so `0` or `""` is never
 * quietly turned into `null` or a number. Every bad field is reported (allErrors). Each is
 * compiled on the route's first request (lazy-compilers.ts).
 */
function createValidatorCompiler() {
  const make = (coerceTypes: boolean | 'array') => {
    const ajv = new Ajv({ allErrors: true, coerceTypes, useDefaults: true, removeAdditional: false, strict: false });
    addFormats.default(ajv);
    return ajv;
  };
  const strict = make(false);
  const coercing = make('array');
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    lazyValidator(() => (httpPart === 'body' ? strict : coercing).compile(schema) as Validate);
}

function rateLimitSubject(req: FastifyRequest, limit: RateLimit): string {
  // hashed: a computed key may carry caller input of any length
  if (typeof limit.key === 'function') return `key:${sha256(limit.key(req))}`;
  const p = req.scope.principal;
  if (limit.key === 'user' && p?.kind === 'user') return `user:${p.userId}`;
  if (limit.key === 'user' && p?.kind === 'member') return `member:${p.memberId}`;
  if (limit.key === 'user' && p?.kind === 'app') return `app:${p.appId}`;
  return `ip:${req.ip}`;
}

function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  return m?.[1] ?? null;
}

function fillParams(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');
}
