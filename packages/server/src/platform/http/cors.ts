import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Route `cors`: which web pages may read the route's answers (the Fetch standard's CORS). Every
 * answer of the route, errors included, names the caller's `Origin` when it is allowed, and an
 * `OPTIONS` preflight for the URL is answered with the methods declaring `cors` there, the
 * request headers a page may send, and how long the browser may keep that answer. CORS only
 * lets a page read an answer; a check that matters (an allow-list of origins) belongs to the
 * handler too, since a non-browser caller sends any Origin it likes.
 */
export type Cors = {
  /**
   * The origins allowed, or a function deciding per request and answer (`status` is the
   * answer's HTTP status, 200 on the preflight).
   */
  origins: readonly string[] | ((origin: string, req: FastifyRequest, status: number) => boolean);
  /** request headers a page may send besides the CORS-safelisted ones (Access-Control-Allow-Headers) */
  allowHeaders?: readonly string[];
  /** seconds a browser may keep the preflight's answer; default 86,400 */
  maxAgeSeconds?: number;
};

const DEFAULT_MAX_AGE = 86_400;

/** A route-level onSend hook: `Access-Control-Allow-Origin` on every answer to an allowed origin. */
export function corsHeaders(cors: Cors) {
  return async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const origin = req.headers.origin;
    if (origin === undefined) return payload;
    const allowed =
      typeof cors.origins === 'function' ? cors.origins(origin, req, reply.statusCode) : cors.origins.includes(origin);
    if (allowed) reply.header('access-control-allow-origin', origin);
    addVary(reply, 'Origin'); // the answer depends on the Origin: caches must keep one per origin
    return payload;
  };
}

type Preflight = { cors: Cors; methods: Set<string> };
const preflights = new WeakMap<FastifyInstance, Map<string, Preflight>>();

/**
 * Declares the preflight of a URL the first time a route there declares `cors`; a later method on
 * the same URL joins its Access-Control-Allow-Methods and must declare the same policy.
 */
export function declarePreflight(
  app: FastifyInstance,
  route: { method: string; url: string; operation: string; tags: string[]; cors: Cors },
): void {
  const byUrl = preflights.get(app) ?? new Map<string, Preflight>();
  preflights.set(app, byUrl);
  const known = byUrl.get(route.url);
  if (known) {
    if (!samePolicy(known.cors, route.cors)) {
      throw new Error(`${route.operation}: the routes of ${route.url} declare different cors policies`);
    }
    known.methods.add(route.method);
    return;
  }
  const preflight: Preflight = { cors: route.cors, methods: new Set([route.method]) };
  byUrl.set(route.url, preflight);
  // `<module>.<resource>.<verb>` → `<module>.<resource>.preflight`
  const operation = route.operation.replace(/\.[^.]+$/, '.preflight');
  const { cors } = route;
  app.route({
    method: 'OPTIONS',
    url: route.url,
    config: { operation, auth: 'public', audit: false },
    schema: {
      tags: route.tags,
      summary: `CORS preflight of ${route.url}: the origins, methods and request headers a web page may use`,
      operationId: operation,
      security: [],
      // 200 with an empty body rather than 204: every documented operation carries a success schema
      response: { 200: { content: { 'text/plain': { schema: { type: 'string', maxLength: 0 } } } } },
    },
    onSend: corsHeaders(cors),
    handler: async (_req, reply) => {
      reply
        .code(200)
        .type('text/plain')
        .header('access-control-allow-methods', [...preflight.methods].join(', '))
        .header('access-control-max-age', String(cors.maxAgeSeconds ?? DEFAULT_MAX_AGE));
      if (cors.allowHeaders?.length) reply.header('access-control-allow-headers', cors.allowHeaders.join(', '));
      return reply.send('');
    },
  });
}

function samePolicy(a: Cors, b: Cors): boolean {
  const list = (v: readonly string[] | undefined) => JSON.stringify(v ?? []);
  const sameOrigins =
    typeof a.origins === 'function' || typeof b.origins === 'function'
      ? a.origins === b.origins
      : list(a.origins) === list(b.origins);
  return sameOrigins && list(a.allowHeaders) === list(b.allowHeaders) && a.maxAgeSeconds === b.maxAgeSeconds;
}

function addVary(reply: FastifyReply, field: string): void {
  const vary = reply.getHeader('vary');
  const fields = typeof vary === 'string' ? vary.split(',').map((f) => f.trim().toLowerCase()) : [];
  if (fields.includes('*') || fields.includes(field.toLowerCase())) return;
  reply.header('vary', typeof vary === 'string' && vary ? `${vary}, ${field}` : field);
}
