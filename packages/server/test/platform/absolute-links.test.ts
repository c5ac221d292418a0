import { and, eq } from 'drizzle-orm';
import jsqr from 'jsqr';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realtimeEvents } from '../../src/platform/realtime/tables.ts';
import { createLink, type LinkCast, linkCast } from '../drive/shares-helpers.ts';
import { pngBytes, uploadFile } from '../files/files-helpers.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { waitForTask } from '../tasks/tasks-helpers.ts';

/**
 * Every link the service hands out over HTTP is absolute (decision 0028): under PUBLIC_BASE_URL
 * (its path kept), and without it under the development address http://HOST:PORT. Each kind is
 * asserted exactly, for both. The links inside notifications: test/messaging/absolute-links.test.ts.
 */
const setups: { name: string; env: Record<string, string>; base: string }[] = [
  {
    name: 'PUBLIC_BASE_URL with a path',
    env: { PUBLIC_BASE_URL: 'https://atrium.example/office/' },
    base: 'https://atrium.example/office',
  },
  { name: 'the development default', env: { PORT: '4321' }, base: 'http://127.0.0.1:4321' },
];

// jsqr is CommonJS typed as an ES module: its function is the module itself under Node
const jsQR = jsqr as unknown as typeof jsqr.default;
async function decodeQr(png: Buffer): Promise<string | null> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data ?? null;
}

describe.each(setups)('absolute links: $name', ({ env, base }) => {
  let t: TestApp;
  let cast: LinkCast;
  beforeAll(async () => {
    t = await createTestApp({ env });
    cast = await linkCast(t);
  });
  afterAll(async () => t?.close());

  it('share links: url and shortUrl; the short link redirects (302 Location, or JSON) to the full URL', async () => {
    const created = await createLink(t, cast.u.creator.token, { nodeId: cast.doc.id });
    expect(created.statusCode, created.body).toBe(201);
    const link = created.json().data as { id: number; token: string; url: string };
    expect(link.url).toBe(`${base}/s/${link.token}`);

    const made = await call(t.app, 'POST', `/api/drive/share-links/${link.id}/short-link`, {
      token: cast.u.creator.token,
    });
    const shortUrl = made.json().data.shortUrl as string;
    const code = shortUrl.slice(`${base}/api/drive/public/s/`.length);
    expect(code).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(shortUrl).toBe(`${base}/api/drive/public/s/${code}`);
    const got = await call(t.app, 'GET', `/api/drive/share-links/${link.id}`, { token: cast.u.creator.token });
    expect(got.json().data).toMatchObject({ url: link.url, shortUrl });

    const redirect = await call(t.app, 'GET', `/api/drive/public/s/${code}`);
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe(`${base}/s/${link.token}`);
    const asJson = await call(t.app, 'GET', `/api/drive/public/s/${code}`, { headers: { accept: 'application/json' } });
    expect(asJson.json().data).toEqual({ url: `${base}/s/${link.token}` });

    // the QR codes read as the same absolute URLs
    const qr = (target: string) =>
      call(t.app, 'GET', `/api/drive/share-links/${link.id}/qr?format=png&target=${target}`, {
        token: cast.u.creator.token,
      });
    expect(await decodeQr((await qr('full')).rawPayload)).toBe(`${base}/s/${link.token}`);
    expect(await decodeQr((await qr('short')).rawPayload)).toBe(`${base}/api/drive/public/s/${code}`);
  });

  it("a task's resultUrl, in its view and in the realtime push to its owner", async () => {
    const started = await call(t.app, 'POST', '/api/export-jobs/operation-logs', { token: t.demoAdminToken, body: {} });
    expect(started.statusCode, started.body).toBe(201);
    const id = started.json().data.id as number;
    const done = await waitForTask(t, t.demoAdminToken, id);
    expect(done.resultUrl).toBe(`${base}/api/tasks/${id}/result`);
    // the push follows the task's last write: wait for it rather than race it
    const pushOf = async () =>
      (
        await t.database.db
          .select()
          .from(realtimeEvents)
          .where(and(eq(realtimeEvents.topic, 'task.finished'), eq(realtimeEvents.tenantId, t.demoTenantId)))
      ).find((p) => (p.payload as { taskId: number }).taskId === id)?.payload;
    await expect.poll(pushOf, { timeout: 10_000 }).toMatchObject({ resultUrl: `${base}/api/tasks/${id}/result` });
  });

  it("a managed file's url", async () => {
    const res = await uploadFile(t, t.demoAdminToken, { name: 'a.png', data: pngBytes(), contentType: 'image/png' });
    expect(res.statusCode, res.body).toBe(201);
    const file = res.json().data as { id: number; url: string };
    expect(file.url).toBe(`${base}/api/files/${file.id}/content`);
  });

  it("a payment channel configuration's effectiveNotifyUrl", async () => {
    const res = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token: t.demoAdminToken,
      body: { channel: 'sandbox', name: 'links' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.effectiveNotifyUrl).toBe(`${base}/api/public/payment/notify/sandbox`);
  });

  it("the OAuth server's metadata and the API description's OAuth2 scheme", async () => {
    const meta = (await call(t.app, 'GET', '/.well-known/oauth-authorization-server')).json();
    expect(meta).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth2/authorize`,
      token_endpoint: `${base}/api/oauth2/token`,
      revocation_endpoint: `${base}/api/oauth2/token/revoke`,
      introspection_endpoint: `${base}/api/oauth2/token/introspect`,
      userinfo_endpoint: `${base}/api/oauth2/userinfo`,
      jwks_uri: `${base}/api/oauth2/jwks`,
    });
    const { flows } = (await call(t.app, 'GET', '/api/openapi.json')).json().components.securitySchemes.OAuth2;
    expect(flows.clientCredentials.tokenUrl).toBe(`${base}/api/oauth2/token`);
    expect(flows.authorizationCode).toMatchObject({
      authorizationUrl: `${base}/oauth2/authorize`,
      tokenUrl: `${base}/api/oauth2/token`,
      refreshUrl: `${base}/api/oauth2/token`,
    });
  });
});
