import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Envelope } from './schemas.ts';

/**
 * One declaration per route (ARCHITECTURE §3): it drives validation, serialization, OpenAPI,
 * authentication, the permission check, the licence gate, metrics and the operation log.
 */
export type AuthMode =
  /** no credentials; a token, if sent, is ignored */
  | 'public'
  /** no credentials needed, but a valid user token attaches the user */
  | 'optional'
  /** a signed-in admin user */
  | 'user'
  /** an open-platform application's OAuth 2 access token holding the route's `scopes` (RFC 6750) */
  | 'app';

/**
 * At most `max` requests per `windowSeconds` (a fixed window that starts at the first request)
 * for each caller of one operation; over it the kernel answers 429 `request.rate_limited` with
 * `Retry-After`. Counters live in the cache: Redis when REDIS_URL is set, so every instance counts
 * together. `key` says who a caller is: the client IP (checked before authentication), the
 * signed-in principal (the IP for anonymous calls), or a key the route computes (after
 * authentication, so it may use `req.scope`; it runs in onRequest, before the body is parsed).
 */
export type RateLimit = {
  max: number;
  windowSeconds: number;
  key: 'ip' | 'user' | ((req: FastifyRequest) => string);
};

type Schemas = {
  tags: string[];
  summary: string;
  description?: string;
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  /** The `data` of the envelope (or the whole body when `envelope` is false). */
  response: TSchema;
};

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

export type RouteRequest<S extends Schemas> = Omit<FastifyRequest, 'body' | 'query' | 'params'> & {
  body: StaticOr<S['body'], undefined>;
  query: StaticOr<S['querystring'], Record<string, never>>;
  params: StaticOr<S['params'], Record<string, never>>;
};

export type RouteDef<S extends Schemas> = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** dotted `<module>.<resource>.<verb>`: logs, metrics, audit, OpenAPI operationId */
  operation: string;
  auth: AuthMode;
  /** permission code; `{name}` is filled from the path params (`{module}:setting:view`) */
  permission?: string;
  /** `auth: 'app'` only: scopes the access token must hold (all of them) */
  scopes?: string[];
  /**
   * `oauth` for OAuth 2 protocol endpoints: every error, the kernel's own included, is answered
   * as RFC 6749 §5.2 `{ error, error_description }` (spec §7.1). Default `envelope`.
   */
  errorFormat?: ErrorFormat;
  /** licence feature the route needs */
  feature?: string;
  /** requests per caller and window; shown in OpenAPI as x-rate-limit */
  rateLimit?: RateLimit;
  /** record successful calls in the operation log; default: every non-GET user route */
  audit?: boolean;
  /** HTTP status of success; default 200 */
  status?: 200 | 201;
  /** false for protocol endpoints that answer their own shape; default true */
  envelope?: boolean;
  /** content type of a non-envelope response (text/html, text/plain) */
  produces?: string;
  schema: S;
  handler: (req: RouteRequest<S>, reply: FastifyReply) => Promise<unknown>;
};

export type ErrorFormat = 'envelope' | 'oauth';

export type RouteConfig = {
  operation: string;
  auth: AuthMode;
  permission?: string;
  scopes?: string[];
  errorFormat: ErrorFormat;
  feature?: string;
  rateLimit?: RateLimit;
  audit: boolean;
  envelope: boolean;
};

const errorStatuses = [400, 401, 403, 404, 409, 413, 429, 500, 503] as const;

export function route<S extends Schemas>(app: FastifyInstance, def: RouteDef<S>): void {
  const envelope = def.envelope ?? true;
  const status = def.status ?? 200;
  const { tags, summary, description, params, querystring, body, response } = def.schema;
  const limit = checkedRateLimit(def.operation, def.rateLimit);
  if (def.scopes && def.auth !== 'app') throw new Error(`${def.operation}: scopes apply to auth 'app' routes only`);
  const success = envelope ? Envelope(response) : response;
  const responses: Record<number, unknown> = {
    [status]: def.produces ? { content: { [def.produces]: { schema: success } } } : success,
  };
  const errorBody = def.errorFormat === 'oauth' ? 'OAuthErrorBody#' : 'ErrorBody#';
  for (const code of errorStatuses) responses[code] = { $ref: errorBody };

  const config: RouteConfig = {
    operation: def.operation,
    auth: def.auth,
    permission: def.permission,
    scopes: def.scopes,
    errorFormat: def.errorFormat ?? 'envelope',
    feature: def.feature,
    rateLimit: limit,
    audit: def.audit ?? (def.method !== 'GET' && def.auth === 'user'),
    envelope,
  };

  app.route({
    method: def.method,
    url: def.url,
    config,
    schema: {
      tags,
      summary,
      description,
      operationId: def.operation,
      ...(def.auth === 'user' ? {} : { security: def.auth === 'app' ? [{ OAuth2: def.scopes ?? [] }] : [] }),
      ...(def.scopes ? { 'x-scopes': def.scopes } : {}),
      ...(def.permission ? { 'x-permission': def.permission } : {}),
      ...(def.feature ? { 'x-feature': def.feature } : {}),
      ...(limit
        ? {
            'x-rate-limit': {
              max: limit.max,
              windowSeconds: limit.windowSeconds,
              key: typeof limit.key === 'function' ? 'custom' : limit.key,
            },
          }
        : {}),
      ...(params ? { params } : {}),
      ...(querystring ? { querystring } : {}),
      ...(body ? { body } : {}),
      response: responses,
    },
    handler: async (req, reply) => {
      const data = await def.handler(req as unknown as RouteRequest<S>, reply);
      if (reply.sent) return reply;
      reply.code(status);
      if (def.produces) reply.type(def.produces);
      return envelope ? { code: 0, message: 'ok', data } : data;
    },
  });
}

/** A declaration mistake stops the start, rather than quietly limiting nothing (or everything). */
function checkedRateLimit(operation: string, limit: RateLimit | undefined): RateLimit | undefined {
  const whole = (n: number) => Number.isInteger(n) && n >= 1;
  if (limit && !(whole(limit.max) && whole(limit.windowSeconds))) {
    throw new Error(`${operation}: rateLimit.max and rateLimit.windowSeconds must be whole numbers ≥ 1`);
  }
  return limit;
}
