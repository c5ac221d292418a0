import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { captureRawBody } from './body-parsers.ts';
import { type Cors, corsHeaders, declarePreflight } from './cors.ts';
import { checkedRateLimit, type RateLimit } from './rate-limit.ts';
import { type ReplyFormat, replyFormats } from './reply-formats.ts';
import type { MediaType } from './request-checks.ts';
import { Ok } from './schemas.ts';

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

type Schemas = {
  tags: string[];
  summary: string;
  description?: string;
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  /**
   * The `data` of the envelope, or what the route's reply format makes of it (the whole body for
   * `replyFormats.body` and `replyFormats.oauth`); `Type.Null()` for a 204 or 205.
   */
  response: TSchema;
};

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

export type RouteRequest<S extends Schemas> = Omit<FastifyRequest, 'body' | 'query' | 'params'> & {
  body: StaticOr<S['body'], undefined>;
  query: StaticOr<S['querystring'], Record<string, never>>;
  params: StaticOr<S['params'], Record<string, never>>;
};

/** HTTP statuses of success a route may declare (RFC 9110 §15.3). */
export type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206 | 207 | 208 | 226;

export type RouteDef<S extends Schemas, R extends boolean = false> = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** dotted `<module>.<resource>.<verb>`: logs, metrics, audit, OpenAPI operationId */
  operation: string;
  auth: AuthMode;
  /** permission code; `{name}` is filled from the path params (`{module}:setting:view`) */
  permission?: string;
  /** `auth: 'app'` only: scopes the access token must hold (all of them) */
  scopes?: string[];
  /** licence feature the route needs */
  feature?: string;
  /** requests per caller and window; shown in OpenAPI as x-rate-limit */
  rateLimit?: RateLimit;
  /** record successful calls in the operation log; default: every non-GET user route */
  audit?: boolean;
  /**
   * HTTP status of success, any 2xx; default 200 (201: created, 202: accepted for processing).
   * A 204 or 205 answers no body whatever the handler returns.
   */
  status?: SuccessStatus;
  /**
   * How success and every error of the route are answered (reply-formats.ts): default the
   * envelope; `replyFormats.body(mediaType)` for a document or page of the route's own,
   * `replyFormats.oauth` for OAuth 2 protocol endpoints, or a format of the route's own (a
   * payment channel's acknowledgement).
   */
  reply?: ReplyFormat;
  /**
   * Media types of the request body; default `application/json` when there is a body schema.
   * Another type is refused with 415. For `multipart/form-data` and `application/octet-stream`
   * the handler reads the body itself and `schema.body` only documents it; XML arrives as a string.
   */
  consumes?: MediaType[];
  /** largest request body in bytes, below the service's BODY_LIMIT_BYTES (413 past it) */
  bodyLimit?: number;
  /**
   * The exact bytes of the request body as `req.rawBody`, besides the parsed body: for
   * signatures computed over what was sent (payment notifications, webhooks).
   */
  rawBody?: R;
  /** which web pages may read the answers, and the OPTIONS preflight of the URL (cors.ts) */
  cors?: Cors;
  /**
   * Credential cookies (credential-cookies.ts), for the document: `reads`, the cookies the route
   * takes (name → description), as cookie parameters; `sets`, what the Set-Cookie header of its
   * success answer holds.
   */
  cookies?: { reads?: Record<string, string>; sets?: string };
  /** answers besides the success and the kernel's errors, for the document (an HTML error page) */
  responses?: Record<number, { description: string; produces?: string; schema?: TSchema }>;
  schema: S;
  handler: (
    req: RouteRequest<S> & (R extends true ? { rawBody: Buffer } : unknown),
    reply: FastifyReply,
  ) => Promise<unknown>;
};

export type RouteConfig = {
  operation: string;
  auth: AuthMode;
  permission?: string;
  scopes?: string[];
  reply: ReplyFormat;
  feature?: string;
  rateLimit?: RateLimit;
  audit: boolean;
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

export function route<S extends Schemas, R extends boolean = false>(app: FastifyInstance, def: RouteDef<S, R>): void {
  const format = def.reply ?? replyFormats.envelope;
  const status = checkedStatus(def.operation, def.status ?? 200);
  const noContent = status === 204 || status === 205;
  const { tags, summary, description, params, querystring, body, response } = def.schema;
  const limit = checkedRateLimit(def.operation, def.rateLimit);
  if (def.scopes && def.auth !== 'app') throw new Error(`${def.operation}: scopes apply to auth 'app' routes only`);
  if (noContent && (response as { type?: unknown }).type !== 'null') {
    throw new Error(`${def.operation}: a ${status} answers no body: its response schema is Type.Null()`);
  }
  const success = noContent
    ? { type: 'null', description: 'No Content' }
    : documented(format.success.schema(response), format.success.mediaType);
  const responses: Record<number, unknown> = {
    [status]: def.cookies?.sets ? withSetCookie(success, def.cookies.sets) : success,
  };
  const statuses: number[] = [...errorStatuses];
  if (def.url.includes(':')) statuses.push(414);
  if (def.method !== 'GET') statuses.push(415);
  for (const code of statuses) responses[code] = documented(format.error.schema, format.error.mediaType);
  for (const [code, r] of Object.entries(def.responses ?? {})) {
    const schema = r.schema ?? Type.String();
    responses[Number(code)] = r.produces
      ? { description: r.description, content: { [r.produces]: { schema } } }
      : schema;
  }
  const consumes = def.consumes ?? (body ? ['application/json' as const] : undefined);
  const readsItself = consumes?.some((m) => READS_ITSELF.includes(m)) ?? false;
  if (def.rawBody && readsItself) throw new Error(`${def.operation}: rawBody needs a body the kernel parses`);
  if (def.bodyLimit !== undefined && !(Number.isInteger(def.bodyLimit) && def.bodyLimit >= 1)) {
    throw new Error(`${def.operation}: bodyLimit must be a whole number of bytes ≥ 1`);
  }
  for (const [part, schema] of Object.entries({ params, querystring, body })) {
    if (schema) assertBounded(def.operation, part, schema);
  }
  if (body && (def.method === 'PUT' || def.method === 'PATCH')) assertNoDefaults(def.operation, body);
  if (def.cors)
    declarePreflight(app, { method: def.method, url: def.url, operation: def.operation, tags, cors: def.cors });

  const config: RouteConfig = {
    operation: def.operation,
    auth: def.auth,
    permission: def.permission,
    scopes: def.scopes,
    reply: format,
    feature: def.feature,
    rateLimit: limit,
    audit: def.audit ?? (def.method !== 'GET' && def.auth === 'user'),
    consumes,
    documentedBody: readsItself ? body : undefined,
  };

  app.route({
    method: def.method,
    url: def.url,
    config,
    ...(def.bodyLimit !== undefined ? { bodyLimit: def.bodyLimit } : {}),
    ...(def.rawBody ? { preParsing: captureRawBody } : {}),
    ...(def.cors ? { onSend: corsHeaders(def.cors) } : {}),
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
      // not validated by Fastify: read by the handler, shown as `in: cookie` parameters
      ...(def.cookies?.reads ? { cookies: cookieParameters(def.cookies.reads) } : {}),
      ...(body && !readsItself ? { body } : {}),
      ...(consumes ? { consumes } : {}),
      response: responses,
    },
    handler: async (req, reply) => {
      if (def.rawBody) req.rawBody ??= Buffer.alloc(0); // no body was sent
      let data = await def.handler(req as never, reply);
      if (reply.sent) return reply;
      // a route answering `Ok` has nothing to say but that it is done
      if (data === undefined && response === Ok) data = OK;
      reply.code(status);
      if (noContent) return reply.send();
      if (format.success.mediaType) reply.type(format.success.mediaType);
      return reply.send(format.success.body(data, reply));
    },
  });
}

const OK = { ok: true } as const;

/** A schema for the document: as is for JSON, under `content` for another media type. */
function documented(schema: unknown, mediaType: string | undefined): unknown {
  return mediaType ? { content: { [mediaType]: { schema } } } : schema;
}

/** The success answer with its Set-Cookie header described (OpenAPI's response `headers`). */
function withSetCookie(success: unknown, description: string): unknown {
  const header = {
    type: 'string',
    description: `${description}. Always HttpOnly and SameSite=Strict; Secure over HTTPS.`,
  };
  return { ...(success as object), headers: { 'Set-Cookie': header } };
}

function cookieParameters(reads: Record<string, string>) {
  const properties = Object.fromEntries(
    Object.entries(reads).map(([name, description]) => [name, Type.Optional(Type.String({ description }))]),
  );
  return Type.Object(properties);
}

function checkedStatus(operation: string, status: number): number {
  if (!Number.isInteger(status) || status < 200 || status > 299) {
    throw new Error(`${operation}: status ${status} is not a success (2xx)`);
  }
  return status;
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
