import { eq } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { hashSecret, newClientId, newClientSecret, secretHint } from '../../src/modules/open-platform/apps/secrets.ts';
import { openApps } from '../../src/modules/open-platform/apps/tables.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import { freeLoopbackPort } from '../../src/platform/net/free-port.ts';
import { call, createTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';

/** oauth4webapi refuses http:// unless told; the test server listens on loopback http. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export type OAuthServer = TestApp & { issuer: string; as: oauth.AuthorizationServer };

/**
 * The service listening on a real loopback port with PUBLIC_BASE_URL = its address, so the
 * issuer in discovery, tokens and redirects is what a client actually talks to. Clients discover
 * it the standard way (RFC 8414).
 */
export async function startOAuthServer(opts: TestAppOptions = {}): Promise<OAuthServer> {
  const port = await freeLoopbackPort();
  const issuer = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...opts, env: { PUBLIC_BASE_URL: issuer, ...opts.env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const url = new URL(issuer);
  const as = await oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { algorithm: 'oauth2', ...insecure }),
  );
  return { ...t, issuer, as };
}

export type SeededClient = { id: number; clientId: string; clientSecret: string | null; client: oauth.Client };

/** An application row written straight into the module's table (the admin API is tested on its own). */
export async function seedClient(
  t: TestApp,
  opts: {
    tenantId: number | null;
    clientType?: 'confidential' | 'public';
    grantTypes?: ('authorization_code' | 'client_credentials' | 'refresh_token')[];
    redirectUris?: string[];
    allowedScopes?: string[];
    name?: string;
  },
): Promise<SeededClient> {
  const clientType = opts.clientType ?? 'confidential';
  const clientId = newClientId();
  const clientSecret = clientType === 'confidential' ? newClientSecret() : null;
  const [row] = await t.app.ctx.db
    .insert(openApps)
    .values({
      tenantId: platformKey(opts.tenantId),
      name: opts.name ?? `app ${clientId}`,
      clientId,
      clientType,
      secretHash: clientSecret ? hashSecret(clientSecret) : null,
      secretHint: clientSecret ? secretHint(clientSecret) : null,
      grantTypes: opts.grantTypes ?? ['authorization_code', 'refresh_token', 'client_credentials'],
      redirectUris: opts.redirectUris ?? ['https://client.example/cb'],
      allowedScopes: opts.allowedScopes ?? ['openid', 'profile', 'email', 'offline_access', 'drive:read'],
    })
    .returning({ id: openApps.id });
  if (!row) throw new Error('no app row');
  return { id: row.id, clientId, clientSecret, client: { client_id: clientId } };
}

export function clientAuth(c: SeededClient, method: 'basic' | 'post' = 'basic'): oauth.ClientAuth {
  if (!c.clientSecret) return oauth.None();
  return method === 'basic' ? oauth.ClientSecretBasic(c.clientSecret) : oauth.ClientSecretPost(c.clientSecret);
}

export type AuthorizationStart = {
  verifier: string;
  state: string;
  nonce: string;
  params: Record<string, string>;
};

/** What a client puts in its authorization URL (PKCE S256, state, nonce). */
export async function startAuthorization(
  c: SeededClient,
  scope: string,
  redirectUri = 'https://client.example/cb',
): Promise<AuthorizationStart> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const params = {
    client_id: c.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope,
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  };
  return { verifier, state, nonce, params };
}

/** The consent page approving the request as the signed-in user; answers the redirect the browser would follow. */
export async function approve(t: TestApp, userToken: string, params: Record<string, string>): Promise<URL> {
  const res = await call(t.app, 'POST', '/api/oauth2/authorize', { token: userToken, body: params });
  if (res.statusCode !== 200) throw new Error(`authorize failed: ${res.statusCode} ${res.body}`);
  return new URL(res.json().data.redirectUrl);
}

/** Full authorization-code flow as a standard client does it: tokens for `scope`. */
export async function codeFlow(
  s: OAuthServer,
  c: SeededClient,
  userToken: string,
  scope: string,
): Promise<oauth.TokenEndpointResponse & { start: AuthorizationStart }> {
  const start = await startAuthorization(c, scope);
  const callback = await approve(s, userToken, start.params);
  const params = oauth.validateAuthResponse(s.as, c.client, callback, start.state);
  const res = await oauth.authorizationCodeGrantRequest(
    s.as,
    c.client,
    clientAuth(c),
    params,
    start.params.redirect_uri as string,
    start.verifier,
    insecure,
  );
  // an expectedNonce makes oauth4webapi demand an id_token: only with openid
  const tokens = await oauth.processAuthorizationCodeResponse(
    s.as,
    c.client,
    res,
    scope.split(' ').includes('openid') ? { expectedNonce: start.nonce, requireIdToken: true } : {},
  );
  // the same object: oauth4webapi remembers the validated id_token claims by identity
  return Object.assign(tokens, { start });
}

/** A clock the test moves (code and token expiry); starts at real time. */
export function movableClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(seconds: number) {
      offset += seconds * 1000;
    },
    reset() {
      offset = 0;
    },
  };
}

/** `Authorization: Basic` per RFC 6749 §2.3.1 (each part form-urlencoded first). */
export function basicHeader(clientId: string, secret: string): string {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(secret)}`).toString('base64')}`;
}

export type RawResponse = { status: number; headers: Headers; body: Record<string, unknown> };

/**
 * A POST a standard client would never send (repeated parameters, JSON, bad verifiers), over the
 * real port. An object or URLSearchParams body is form-encoded; a string is sent as it is.
 */
export async function rawPost(
  s: OAuthServer,
  path: string,
  body: string | URLSearchParams | Record<string, string>,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const form = typeof body === 'string' ? body : new URLSearchParams(body).toString();
  const res = await fetch(`${s.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: form,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** The token endpoint through rawPost. */
export const rawTokenRequest = (
  s: OAuthServer,
  body: string | URLSearchParams | Record<string, string>,
  headers: Record<string, string> = {},
) => rawPost(s, '/api/oauth2/token', body, headers);

/**
 * Awaits an oauth4webapi call that must fail with an RFC 6749 §5.2 error body: the exact `error`,
 * the HTTP status and the public error_description (exact string, or a pattern).
 */
export async function expectOAuthError(
  pending: Promise<unknown>,
  error: string,
  description: string | RegExp,
  status = 400,
): Promise<oauth.ResponseBodyError> {
  const err = await pending.then(
    () => {
      throw new Error(`expected ${error}, the request succeeded`);
    },
    (e: unknown) => e,
  );
  if (!(err instanceof oauth.ResponseBodyError)) throw err;
  if (err.error !== error || err.status !== status) {
    throw new Error(`expected ${status} ${error}, got ${err.status} ${err.error}: ${err.error_description}`);
  }
  if (
    typeof description === 'string'
      ? err.error_description !== description
      : !description.test(err.error_description ?? '')
  ) {
    throw new Error(`expected error_description ${description}, got "${err.error_description}"`);
  }
  return err;
}

/** Whether a token is live, asked as a standard client does it (RFC 7662) with a confidential client of the token's tenant. */
export async function isActive(s: OAuthServer, by: SeededClient, token: string): Promise<boolean> {
  const res = await oauth.introspectionRequest(s.as, by.client, clientAuth(by), token, insecure);
  return (await oauth.processIntrospectionResponse(s.as, by.client, res)).active;
}

/** Steps 1–2 of the flow: the user approves and the client validates the callback (state, iss). */
export async function authorizeCode(
  s: OAuthServer,
  c: SeededClient,
  userToken: string,
  scope: string,
  redirectUri?: string,
): Promise<{ start: AuthorizationStart; callback: URLSearchParams; code: string }> {
  const start = await startAuthorization(c, scope, redirectUri);
  const callback = oauth.validateAuthResponse(s.as, c.client, await approve(s, userToken, start.params), start.state);
  return { start, callback, code: callback.get('code') as string };
}

/**
 * Puts an application into a state straight in its table (also states the admin API refuses),
 * then tells the client cache, as the apps service does after each change.
 */
export async function changeApp(t: TestApp, c: SeededClient, values: Partial<typeof openApps.$inferInsert>) {
  await t.app.ctx.db.update(openApps).set(values).where(eq(openApps.id, c.id));
  await t.app.openPlatform.clients.changed(c.clientId);
}
