import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import type { MediaType } from './request-checks.ts';
import { Envelope } from './schemas.ts';

/** Longest path parameter the router takes: signed tokens in links run to 2,000 characters. */
export const MAX_PARAM_LENGTH = 2048;

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
  /** HTTP status of success; default 200 (202: accepted for processing) */
  status?: 200 | 201 | 202;
  /**
   * Media types of the request body; default `application/json` when there is a body schema.
   * Another type is refused with 415. For `multipart/form-data` and `application/octet-stream`
   * the handler reads the body itself and `schema.body` only documents it.
   */
  consumes?: MediaType[];
  /** answers besides the success and the kernel's errors, for the document (an HTML error page) */
  responses?: Record<number, { description: string; produces?: string; schema?: TSchema }>;
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
  consumes?: MediaType[];
  /** a body the handler reads itself (multipart, octet-stream): shown in the document only */
  documentedBody?: TSchema;
};

/**
 * The kernel's errors, on every operation that can produce them: 408 and 431 come from the
 * socket before routing (any operation), 414 from an over-long path parameter, 415 from a body
 * of another media type (docs/api-conventions.md).
 */
const errorStatuses = [400, 401, 403, 404, 408, 409, 413, 429, 431, 500, 503] as const;
const READS_ITSELF: MediaType[] = ['multipart/form-data', 'application/octet-stream'];

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
  const statuses: number[] = [...errorStatuses];
  if (def.url.includes(':')) statuses.push(414);
  if (def.method !== 'GET') statuses.push(415);
  for (const code of statuses) responses[code] = { $ref: errorBody };
  for (const [code, r] of Object.entries(def.responses ?? {})) {
    const schema = r.schema ?? Type.String();
    responses[Number(code)] = r.produces
      ? { description: r.description, content: { [r.produces]: { schema } } }
      : schema;
  }
  const consumes = def.consumes ?? (body ? ['application/json' as const] : undefined);
  const readsItself = consumes?.some((m) => READS_ITSELF.includes(m)) ?? false;
  for (const [part, schema] of Object.entries({ params, querystring, body })) {
    if (schema) assertBounded(def.operation, part, schema);
  }
  if (body && (def.method === 'PUT' || def.method === 'PATCH')) assertNoDefaults(def.operation, body);

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
    consumes,
    documentedBody: readsItself ? body : undefined,
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
      ...(body && !readsItself ? { body } : {}),
      ...(consumes ? { consumes } : {}),
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

/**
 * Every number a request may carry has a maximum, so no value past a column's range reaches the
 * database (INT4_MAX, INT8_SAFE_MAX in schemas.ts). A declaration without one stops the start.
 */
function assertBounded(operation: string, part: string, schema: TSchema): void {
  const walk = (s: Record<string, unknown>, path: string): void => {
    const types = ([] as unknown[]).concat(s.type);
    if ((types.includes('integer') || types.includes('number')) && s.maximum === undefined && s.const === undefined)
      throw new Error(`${operation}: ${path} is a number without a maximum (give it its column's range)`);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      for (const sub of (s[key] as Record<string, unknown>[] | undefined) ?? []) walk(sub, path);
    }
    const props = s.properties as Record<string, Record<string, unknown>> | undefined;
    for (const [k, sub] of Object.entries(props ?? {})) walk(sub, `${path}.${k}`);
    if (s.items && typeof s.items === 'object') walk(s.items as Record<string, unknown>, `${path}[]`);
    if (s.additionalProperties && typeof s.additionalProperties === 'object')
      walk(s.additionalProperties as Record<string, unknown>, `${path}.*`);
    if (s.patternProperties && typeof s.patternProperties === 'object')
      for (const sub of Object.values(s.patternProperties as Record<string, Record<string, unknown>>))
        walk(sub, `${path}.*`);
  };
  walk(schema as unknown as Record<string, unknown>, part);
}

/**
 * A default in an update body is filled in for every field the caller left out (Ajv
 * `useDefaults`), so a partial update would silently reset those fields: refused at start.
 */
function assertNoDefaults(operation: string, schema: TSchema): void {
  const walk = (s: unknown, path: string): void => {
    if (!s || typeof s !== 'object') return;
    for (const [k, v] of Object.entries(s)) {
      if (k === 'default')
        throw new Error(`${operation}: ${path} has a default in an update body (it would overwrite stored values)`);
      walk(v, k === 'properties' ? path : `${path}.${k}`);
    }
  };
  walk(schema, 'body');
}

/** A declaration mistake stops the start, rather than quietly limiting nothing (or everything). */
function checkedRateLimit(operation: string, limit: RateLimit | undefined): RateLimit | undefined {
  const whole = (n: number) => Number.isInteger(n) && n >= 1;
  if (limit && !(whole(limit.max) && whole(limit.windowSeconds))) {
    throw new Error(`${operation}: rateLimit.max and rateLimit.windowSeconds must be whole numbers ≥ 1`);
  }
  return limit;
}
