import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.d.ts';

/**
 * The one client: every call of the console goes through it, typed by the committed snapshot of
 * /api/openapi.json (schema.d.ts), so a changed operation fails the console's type check.
 */
export const api = createClient<paths>({
  baseUrl: '',
  // `fetch` as it is at each call, not as it was at load: the error reporter, which loads later,
  // wraps it to report 5xx answers with their request id (app/error-reporting)
  fetch: (request) => globalThis.fetch(request),
});

/** The server's error body (docs/api-conventions.md). */
/** The error envelope (requestId optional: an answer that never reached the service has none). */
export type ApiError = Omit<components['schemas']['ErrorBody'], 'requestId'> & { requestId?: string };

let accessToken: string | null = null;
let onUnauthorized: (() => Promise<string | null>) | null = null;

/** The access token lives in memory only (CONSOLE.md: tokens out of reach of scripts). */
export function setAccessToken(token: string | null) {
  accessToken = token;
}

/** The current access token, for what cannot send a header: the live socket's URL (/api/ws). */
export const currentAccessToken = () => accessToken;

/** What to do when a call answers 401: refresh the session once, or give up (sign-in page). */
export function handleUnauthorized(refresh: () => Promise<string | null>) {
  onUnauthorized = refresh;
}

const auth: Middleware = {
  onRequest({ request }) {
    // a request a cross-site form cannot send: the server asks it of calls that carry a credential cookie
    request.headers.set('x-requested-with', 'atrium-console');
    if (accessToken && !request.headers.has('authorization'))
      request.headers.set('authorization', `Bearer ${accessToken}`);
    return request;
  },
  // An access token that expired under a sleeping laptop: refresh once and repeat a read. A write
  // is not repeated (its body is spent, and repeating it is the caller's decision).
  async onResponse({ request, response }) {
    if (response.status !== 401 || !onUnauthorized) return response;
    const path = new URL(request.url).pathname;
    // a share link's 401 is about its password, not the sign-in (its save is a write: never repeated)
    if (path.startsWith('/api/auth/') || path.startsWith('/api/drive/public/')) return response;
    const token = await onUnauthorized();
    if (!token || (request.method !== 'GET' && request.method !== 'HEAD')) return response;
    const headers = new Headers(request.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(request.url, { method: request.method, headers });
  },
};
api.use(auth);

/** A failed call as an Error that keeps the server's body (key, field errors, request id). */
export class ApiCallError extends Error {
  readonly body: ApiError;
  /**
   * The error reporter's mark of an error the console handles (@atrium/error-reporter: not an
   * unhandled rejection worth a report): a 5xx is reported from the answer itself, with its
   * request id; a 4xx is the person's input.
   */
  readonly isBusinessError = true;
  constructor(body: ApiError) {
    super(body.message);
    this.body = body;
  }
}

/** Unwraps `{ data }` of a success, throws ApiCallError with the server's body otherwise. */
export async function unwrap<T>(
  call: Promise<{ data?: { data: T }; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (data) return data.data;
  const body = (error ?? {}) as Partial<ApiError>;
  throw new ApiCallError({
    code: body.code ?? response.status,
    error: body.error ?? 'http.error',
    message: body.message ?? response.statusText,
    details: body.details,
    requestId: body.requestId ?? response.headers.get('x-request-id') ?? undefined,
  });
}
