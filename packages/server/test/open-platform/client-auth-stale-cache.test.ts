import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, newClientSecret } from '../../src/modules/open-platform/apps/secrets.ts';
import { call, createTwoInstances, type TestApp } from '../helpers/app.ts';
import { accessToken, type CreatedApp, clientCredentials, confidentialBody, createApp } from './apps-helpers.ts';

/**
 * Instance b keeps client records in memory. Whatever b's cache holds, a change to an application
 * must hold on b at once — on the very next request, with no waiting for pub/sub — because the
 * statement that issues the token (or answers the introspection) re-checks the application's row.
 * The changes are made in the database directly where the point is that no message ever arrives
 * (a lost pub/sub message), and through instance a's API otherwise.
 */
describe('client authentication against a stale cached record', () => {
  let close: () => Promise<void>;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const env = { SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}` };
    ({ a, b, close } = await createTwoInstances({ env }));
  });
  afterAll(async () => close?.());

  /** a confidential application whose record instance b has cached (b issued it a token) */
  async function cachedOnB(name: string) {
    const app = await createApp(a, a.demoAdminToken, confidentialBody(name));
    const secret = app.clientSecret as string;
    await accessToken(b, app.clientId, secret);
    return { app, secret };
  }
  /** an UPDATE no instance hears of */
  const silently = (app: CreatedApp, set: ReturnType<typeof sql>) =>
    a.database.db.execute(sql`UPDATE open_apps SET ${set} WHERE id = ${app.id}`);

  const introspect = (t: TestApp, clientId: string, secret: string, token: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/oauth2/token/introspect',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      },
      payload: new URLSearchParams({ token }).toString(),
    });
  const refusedAsClient = (res: { statusCode: number; json: () => { error?: string } }) =>
    res.statusCode === 400 && res.json().error === 'invalid_client';
  const tokenCount = async (appId: number) =>
    Number(
      (
        (await a.database.db.execute(
          sql`SELECT count(*)::int AS n FROM oauth_tokens WHERE app_id = ${appId}`,
        )) as unknown as {
          rows: { n: number }[];
        }
      ).rows[0]?.n,
    );

  it('a secret rotated without grace through the other instance is refused at once, the new one works at once', async () => {
    const { app, secret } = await cachedOnB('stale-api-rotate');
    const rot = await call(a.app, 'POST', `/api/open-platform/apps/${app.id}/secret`, {
      token: a.demoAdminToken,
      body: { graceSeconds: 0 },
    });
    expect(rot.statusCode, rot.body).toBe(200);
    const fresh = rot.json().data.clientSecret as string;
    // no polling: the next request on b
    expect(refusedAsClient(await clientCredentials(b, app.clientId, secret))).toBe(true);
    await accessToken(b, app.clientId, fresh);
  });

  it('with no message at all: a rotated secret mints nothing on b and introspects nothing; the new secret works', async () => {
    const { app, secret } = await cachedOnB('stale-silent-rotate');
    const token = await accessToken(b, app.clientId, secret);
    const before = await tokenCount(app.id);
    const fresh = newClientSecret();
    await silently(
      app,
      sql`secret_hash = ${hashSecret(fresh)}, previous_secret_hash = NULL, previous_secret_expires_at = NULL`,
    );
    expect(refusedAsClient(await clientCredentials(b, app.clientId, secret))).toBe(true);
    expect(refusedAsClient(await introspect(b, app.clientId, secret, token))).toBe(true);
    expect(await tokenCount(app.id)).toBe(before);
    await accessToken(b, app.clientId, fresh);
    const answer = await introspect(b, app.clientId, fresh, token);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().active).toBe(true);
  });

  it('with no message at all: the previous secret works during its grace and is refused once the grace ended', async () => {
    const { app, secret } = await cachedOnB('stale-silent-grace');
    const fresh = newClientSecret();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await silently(
      app,
      sql`previous_secret_hash = secret_hash, previous_secret_expires_at = ${later}::timestamptz,
          secret_hash = ${hashSecret(fresh)}`,
    );
    await accessToken(b, app.clientId, secret);
    await accessToken(b, app.clientId, fresh);
    await silently(app, sql`previous_secret_expires_at = now() - interval '1 second'`);
    expect(refusedAsClient(await clientCredentials(b, app.clientId, secret))).toBe(true);
    await accessToken(b, app.clientId, fresh);
  });

  it('with no message at all: a disabled application mints nothing and introspects nothing; enabled again it works', async () => {
    const { app, secret } = await cachedOnB('stale-silent-disable');
    const token = await accessToken(b, app.clientId, secret);
    await silently(app, sql`status = 'disabled'`);
    expect(refusedAsClient(await clientCredentials(b, app.clientId, secret))).toBe(true);
    expect(refusedAsClient(await introspect(b, app.clientId, secret, token))).toBe(true);
    await silently(app, sql`status = 'active'`);
    await accessToken(b, app.clientId, secret);
  });

  it('with no message at all: a scope no longer allowed is refused as invalid_scope', async () => {
    const { app, secret } = await cachedOnB('stale-silent-scopes');
    await silently(app, sql`allowed_scopes = ARRAY['drive:read']::text[]`);
    const res = await clientCredentials(b, app.clientId, secret, 'drive:write');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toBe('invalid_scope');
    await accessToken(b, app.clientId, secret, 'drive:read');
  });

  it('concurrent requests of several applications share statements, each answered for itself', async () => {
    const good = await cachedOnB('batch-good');
    const gone = await cachedOnB('batch-disabled');
    await silently(gone.app, sql`status = 'disabled'`);
    const before = await tokenCount(good.app.id);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 4 === 0
          ? clientCredentials(b, gone.app.clientId, gone.secret)
          : clientCredentials(b, good.app.clientId, good.secret),
      ),
    );
    const issued = answers.filter((_, i) => i % 4 !== 0).map((r) => r.json().access_token as string);
    expect(answers.filter((_, i) => i % 4 === 0).every(refusedAsClient)).toBe(true);
    expect(new Set(issued).size).toBe(30);
    expect(await tokenCount(good.app.id)).toBe(before + 30);
    expect(await tokenCount(gone.app.id)).toBe(1);
    for (const token of issued.slice(0, 5)) {
      const res = await introspect(a, good.app.clientId, good.secret, token);
      expect(res.json().active, res.body).toBe(true);
    }
  });
});
