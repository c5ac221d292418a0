import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { call, type TestApp } from '../helpers/app.ts';

/** Applications through the admin API, and the OAuth calls a real client makes with them. */
export type CreatedApp = { id: number; clientId: string; clientSecret?: string; [k: string]: unknown };

export const confidentialBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  clientType: 'confidential',
  grantTypes: ['client_credentials'],
  redirectUris: [],
  allowedScopes: ['drive:read', 'drive:write'],
  ...extra,
});

export async function createApp(t: TestApp, token: string, body: object): Promise<CreatedApp> {
  const res = await call(t.app, 'POST', '/api/open-platform/apps', { token, body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

/** RFC 6749 §2.3.1: `Basic base64(urlencode(client_id):urlencode(secret))`. */
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

function formPost(t: TestApp, url: string, form: Record<string, string>, auth?: { id: string; secret: string }) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(auth ? { authorization: basic(auth.id, auth.secret) } : {}),
    },
    payload: new URLSearchParams(form).toString(),
  });
}

/** POST /api/oauth2/token with grant_type=client_credentials, authenticating with HTTP Basic. */
export function clientCredentials(
  t: TestApp,
  clientId: string,
  secret: string,
  scope?: string,
): Promise<LightMyRequestResponse> {
  return formPost(
    t,
    '/api/oauth2/token',
    { grant_type: 'client_credentials', ...(scope ? { scope } : {}) },
    { id: clientId, secret },
  );
}

/** An access token, asserting the grant succeeded. */
export async function accessToken(t: TestApp, clientId: string, secret: string, scope?: string): Promise<string> {
  const res = await clientCredentials(t, clientId, secret, scope);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().access_token;
}

/** RFC 7662 introspection by a confidential client of the token's tenant: whether the token is active. */
export async function isActive(t: TestApp, inspector: CreatedApp, token: string): Promise<boolean> {
  const res = await formPost(
    t,
    '/api/oauth2/token/introspect',
    { token },
    { id: inspector.clientId, secret: inspector.clientSecret as string },
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json().active;
}

/** Every row of every table (all schemas) whose text contains `needle`: where a secret might have leaked. */
export async function tablesContaining(t: TestApp, needle: string): Promise<string[]> {
  const rows = async (q: ReturnType<typeof sql>) =>
    ((await t.database.db.execute(q)) as unknown as { rows: Record<string, unknown>[] }).rows;
  const tables = (await rows(sql`
    SELECT table_schema AS s, table_name AS n FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`)) as {
    s: string;
    n: string;
  }[];
  const found: string[] = [];
  for (const { s, n } of tables) {
    const [hit] = await rows(
      sql`SELECT 1 AS x FROM ${sql.identifier(s)}.${sql.identifier(n)} r WHERE position(${needle} in r::text) > 0 LIMIT 1`,
    );
    if (hit) found.push(`${s}.${n}`);
  }
  return found;
}
