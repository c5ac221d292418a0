import type { TSchema } from 'typebox';
import type { RouteDef, Schemas } from './route.ts';

/** Error statuses a handler may raise in the route's error format (route `errors`). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503;

/** What of a route's declaration decides the statuses it answers. */
export type Declaration = Pick<
  RouteDef<Schemas>,
  'method' | 'auth' | 'permission' | 'feature' | 'scopes' | 'rateLimit' | 'cookies' | 'errors' | 'stateless'
> & { schema: Pick<Schemas, 'params' | 'querystring' | 'body'> };

/**
 * The error statuses an operation can answer, derived from its declaration (docs/decisions/
 * 0038-declared-statuses.md) in the envelope's terms, before a reply format maps them:
 * - 400: a part the schema validates (path, query, body), a body (any method but GET is read by
 *   the parser: malformed JSON), or a signed-in caller (an X-Tenant-Id naming no tenant);
 * - 401: credentials required (`user`, `app`); 403: a permission, a licence feature, scopes, or a
 *   credential cookie on a write without the script header;
 * - 404: a path parameter naming something that may not exist (not a closed set of values);
 * - 409: a write that uses the store (a deadlock answers request.concurrent_update);
 * - 413, 415: a body (too large; a media type the route does not take);
 * - 429: a rate limit; 503: the store (database, cache) unreachable; 500: always, the envelope
 *   of a failure nobody foresaw;
 * - and what the handler raises (`errors`).
 */
export function errorStatusesOf(def: Declaration): number[] {
  const { params, querystring, body } = def.schema;
  const readsBody = def.method !== 'GET';
  const statuses = new Set<number>([500, ...(def.errors ?? [])]);
  const add = (when: unknown, ...codes: number[]) => {
    if (when) for (const code of codes) statuses.add(code);
  };
  add(params || querystring || body || readsBody || def.auth === 'user' || def.auth === 'optional', 400);
  add(def.auth === 'user' || def.auth === 'app', 401);
  add(def.permission || def.feature || def.scopes?.length || (readsBody && def.cookies?.reads), 403);
  add(params && !closedSet(params), 404);
  add(readsBody, 413, 415);
  add(readsBody && !def.stateless, 409);
  add(def.rateLimit, 429);
  add(!def.stateless, 503);
  return [...statuses].sort((a, b) => a - b);
}

/** Every path parameter is one of listed values (an enum the schema checks): none can be missing. */
function closedSet(params: TSchema): boolean {
  const props = Object.values((params as { properties?: Record<string, TSchema> }).properties ?? {});
  const listed = (s: TSchema): boolean => {
    const x = s as { const?: unknown; enum?: unknown[]; anyOf?: TSchema[] };
    return x.const !== undefined || Array.isArray(x.enum) || (Array.isArray(x.anyOf) && x.anyOf.every(listed));
  };
  return props.length > 0 && props.every(listed);
}
