import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TProperties, type TSchema, Type } from 'typebox';
import { captureRawBody } from './body-parsers.ts';
import { type Cors, corsHeaders, declarePreflight } from './cors.ts';
import { type ErrorStatus, errorStatusesOf } from './declared-statuses.ts';
import { checkedRateLimit, type RateLimit } from './rate-limit.ts';
import { envelopeErrors, type ReplyFormat, replyFormats } from './reply-formats.ts';
import type { MediaType } from './request-checks.ts';
import { ErrorBody, Ok } from './schemas.ts';

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

export type Schemas = {
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
   * `replyFormats.file` for stored bytes in their own media type,
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
  /**
   * The body may be left out (a token in the Authorization header instead of the form, a page's
   * button that posts nothing the handler needs): `schema.body` is documented as optional and not
   * validated, so the handler reads what arrived as `unknown`.
   */
  optionalBody?: boolean;
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
  /**
   * Error statuses the handler raises (its services' AppErrors: a 404 for an id in the body, a 409
   * for a name taken, a 400 for a rule about the input), answered in the route's error format.
   * The kernel's own are derived from the rest of the declaration (declared-statuses.ts); an
   * answer of another shape is a `responses` entry.
   */
  errors?: readonly ErrorStatus[];
  /**
   * The route reads neither the database nor the cache (the document, its pages, static protocol
   * metadata): no dependency can fail under it, so it answers no 503 (and, as a write, no 409).
   */
  stateless?: true;
  /** answers besides the success and the kernel's errors, for the document (an HTML error page, a redirect) */
  responses?: Record<number, ExtraResponse>;
  schema: S;
  handler: (
    req: RouteRequest<S> & (R extends true ? { rawBody: Buffer } : unknown),
    reply: FastifyReply,
  ) => Promise<unknown>;
};

/** An answer a route gives besides its success and the kernel's errors. */
export type ExtraResponse = {
  description: string;
  /** the body's schema by media type; absent: the answer has no body (a redirect) */
  content?: Record<string, TSchema | { $ref: string }>;
  /** response headers the caller reads (a redirect's Location) */
  headers?: Record<string, TSchema>;
};

/**
 * An error status of the route's own that the kernel does not list (410, 422, 423…), in the
 * envelope; `extra` names the fields the error adds (AppError `extra`): the serializer drops any
 * field the schema does not name.
 */
export function envelopeError(description: string, extra?: TProperties): ExtraResponse {
  const schema = extra ? Type.Object({ ...ErrorBody.properties, ...extra }) : envelopeErrors.schema;
  return { description, content: { 'application/json': schema } };
}

/** The media types each documented status of a route answers with (`[]`: no body), for checks. */
export type DocumentedAnswers = Readonly<Record<number, readonly string[]>>;

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
  /** a body the handler reads itself (multipart, octet-stream) or may be left out: shown in the document only */
  documentedBody?: TSchema;
  /** the documented body is optional (route `optionalBody`) */
  optionalBody?: boolean;
  /** what the document says the route answers */
  answers: DocumentedAnswers;
};

/**
 * Answered before any route runs, always in the envelope whatever the route's format: 408 and
 * 431 by Node's clientError (any operation), 414 by the router (an over-long path parameter).
 */
const beforeRouting = [408, 431] as const;
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
  const answers: Record<number, readonly string[]> = {
    [status]: noContent ? [] : [format.success.mediaType ?? JSON_TYPE],
  };
  // what the declaration can answer (declared-statuses.ts), as the route's error format answers it
  const mapped = errorStatusesOf(def).map((code) =>
    format.error.statusOf && !def.errors?.includes(code as ErrorStatus) ? format.error.statusOf(code) : code,
  );
  for (const code of new Set(mapped)) {
    responses[code] = documented(format.error.schema, format.error.mediaType);
    answers[code] = [format.error.mediaType ?? JSON_TYPE];
  }
  for (const code of def.url.includes(':') ? [...beforeRouting, 414] : beforeRouting) {
    responses[code] = documented(envelopeErrors.schema, undefined);
    answers[code] = [JSON_TYPE];
  }
  for (const [code, r] of Object.entries(def.responses ?? {})) {
    responses[Number(code)] = extraResponse(r);
    answers[Number(code)] = Object.keys(r.content ?? {});
  }
  const consumes = def.consumes ?? (body ? ['application/json' as const] : undefined);
  const readsItself = consumes?.some((m) => READS_ITSELF.includes(m)) ?? false;
  if (def.optionalBody && !body) throw new Error(`${def.operation}: optionalBody documents schema.body: declare it`);
  const documentsOnly = readsItself || def.optionalBody === true;
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
    documentedBody: documentsOnly ? body : undefined,
    optionalBody: def.optionalBody,
    answers,
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
      ...(def.auth === 'user' ? {} : { security: securityOf(def.auth, def.scopes) }),
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
      ...(body && !documentsOnly ? { body } : {}),
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
      // a range (`*/*`) documents what the handler sets; it is no type to send
      if (format.success.mediaType && !format.success.mediaType.includes('*')) reply.type(format.success.mediaType);
      return reply.send(format.success.body(data, reply));
    },
  });
}

const OK = { ok: true } as const;

/**
 * The operation's `security` (no entry: the document's global BearerAuth): none for public
 * routes; for optional ones none or a bearer token, an empty requirement making it optional
 * (OpenAPI 3.1, Operation Object `security`); an application's OAuth 2 token with its scopes.
 */
function securityOf(auth: Exclude<AuthMode, 'user'>, scopes: string[] | undefined): Record<string, string[]>[] {
  if (auth === 'app') return [{ OAuth2: scopes ?? [] }];
  return auth === 'optional' ? [{}, { BearerAuth: [] }] : [];
}

const JSON_TYPE = 'application/json';

/** An extra answer as Fastify and the document take it: `content` by media type, or no body. */
function extraResponse(r: ExtraResponse): Record<string, unknown> {
  const body = r.content
    ? { content: Object.fromEntries(Object.entries(r.content).map(([type, schema]) => [type, { schema }])) }
    : { type: 'null' };
  return { description: r.description, ...body, ...(r.headers ? { headers: r.headers } : {}) };
}

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
