import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTwoInstances, type TestApp, usingRedis } from '../helpers/app.ts';
import { eventually } from '../helpers/assert.ts';
import { accessToken, clientCredentials, confidentialBody, createApp } from './apps-helpers.ts';

/**
 * Client authentication reads client records from a per-instance cache. A change made through one
 * instance must reach client authentication on the other: disabling, rotating without grace,
 * deleting. The change travels by Redis pub/sub, which several instances need (REDIS_URL): without
 * TEST_REDIS_URL each instance has a cache of its own and there is nothing to test.
 */
describe.runIf(usingRedis)('application changes on two instances', () => {
  let close: () => Promise<void>;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const env = { SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}` };
    ({ a, b, close } = await createTwoInstances({ env }));
  });
  afterAll(async () => close?.());

  const refused = async (clientId: string, secret: string) => {
    const res = await clientCredentials(b, clientId, secret);
    return res.statusCode === 400 && res.json().error === 'invalid_client';
  };

  it('disabling on one instance refuses client authentication on the other; enabling restores it', async () => {
    const app = await createApp(a, a.demoAdminToken, confidentialBody('two-disable'));
    const secret = app.clientSecret as string;
    await accessToken(b, app.clientId, secret); // b now holds the record
    const put = (status: string) =>
      call(a.app, 'PUT', `/api/open-platform/apps/${app.id}/status`, { token: a.demoAdminToken, body: { status } });
    expect((await put('disabled')).statusCode).toBe(200);
    expect(await eventually(() => refused(app.clientId, secret))).toBe(true);
    expect((await put('active')).statusCode).toBe(200);
    expect(await eventually(async () => !(await refused(app.clientId, secret)))).toBe(true);
  });

  it('a rotation without grace and a deletion on one instance end the old credentials on the other', async () => {
    const app = await createApp(a, a.demoAdminToken, confidentialBody('two-rotate'));
    const old = app.clientSecret as string;
    await accessToken(b, app.clientId, old);
    const rot = await call(a.app, 'POST', `/api/open-platform/apps/${app.id}/secret`, {
      token: a.demoAdminToken,
      body: { graceSeconds: 0 },
    });
    expect(rot.statusCode, rot.body).toBe(200);
    const fresh = rot.json().data.clientSecret as string;
    expect(await eventually(() => refused(app.clientId, old))).toBe(true);
    await accessToken(b, app.clientId, fresh);
    const del = await call(a.app, 'DELETE', `/api/open-platform/apps/${app.id}`, { token: a.demoAdminToken });
    expect(del.statusCode, del.body).toBe(200);
    expect(await eventually(() => refused(app.clientId, fresh))).toBe(true);
  });
});
