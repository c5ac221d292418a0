import { ApiCallError, api } from '../../api/client';

/**
 * The consent page's calls. Their errors are RFC 6749 bodies `{ error, error_description,
 * redirectUrl? }` rather than the envelope (docs/decisions/0009), read here into an ApiCallError
 * that also keeps `redirectUrl`: present only once the client and its redirect URI are proven.
 */
const FIELDS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
] as const;

export type AuthorizationRequest = { client_id: string; redirect_uri: string } & Partial<
  Record<(typeof FIELDS)[number], string>
>;

/** The standard query of the authorization endpoint; a missing client_id or redirect_uri is the server's to refuse. */
export function readRequest(params: URLSearchParams): AuthorizationRequest {
  const request: AuthorizationRequest = { client_id: '', redirect_uri: '' };
  for (const field of FIELDS) {
    const value = params.get(field);
    if (value !== null) request[field] = value;
  }
  return request;
}

export class OAuthCallError extends ApiCallError {
  readonly redirectUrl: string | undefined;
  constructor(
    status: number,
    body: { error?: string; error_description?: string; redirectUrl?: string },
    requestId?: string,
  ) {
    super({
      code: status,
      error: body.error ?? 'http.error',
      message: body.error_description ?? '',
      requestId,
    });
    this.redirectUrl = body.redirectUrl;
  }
}

type Answer<T> = { data?: { data: T }; error?: unknown; response: Response };

async function unwrapOAuth<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (data) return data.data;
  const body = (error && typeof error === 'object' ? error : {}) as Record<string, string | undefined>;
  throw new OAuthCallError(response.status, body, response.headers.get('x-request-id') ?? undefined);
}

/** Before sign-in: the application and its tenant's code (docs/decisions/0033). */
export const fetchClient = (r: AuthorizationRequest) =>
  unwrapOAuth(
    api.GET('/api/oauth2/authorize/client', {
      params: { query: { client_id: r.client_id, redirect_uri: r.redirect_uri } },
    }),
  );

/** Signed in: the scopes asked for, those granted before. */
export const fetchInfo = (r: AuthorizationRequest) =>
  unwrapOAuth(api.GET('/api/oauth2/authorize/info', { params: { query: r } }));

/** The person's answer: where to send the browser (a code, or access_denied), both as redirectUrl. */
export async function decide(r: AuthorizationRequest, decision: 'approve' | 'deny'): Promise<string> {
  try {
    return (await unwrapOAuth(api.POST('/api/oauth2/authorize', { body: { ...r, decision } }))).redirectUrl;
  } catch (err) {
    // a refusal (access_denied) or a proven client's bad request is an error body by the protocol,
    // and still goes back to the client (RFC 6749 §4.1.2.1)
    if (err instanceof OAuthCallError && err.redirectUrl) return err.redirectUrl;
    throw err;
  }
}

export type ConsentClient = Awaited<ReturnType<typeof fetchClient>>;
export type ConsentInfo = Awaited<ReturnType<typeof fetchInfo>>;

/** The host a URL points to, or null for an empty or malformed one (an application's homepage). */
export function hostOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.host : null;
  } catch {
    return null;
  }
}
