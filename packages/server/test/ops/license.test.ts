import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';

describe('GET /api/license with a licence', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      license: '{"licensee":"Acme","features":["payment","drive"],"expiresAt":"2099-12-31T00:00:00Z"}',
    });
  });
  afterAll(async () => t?.close());

  it('shows licensee, features and expiry to the platform administrator', async () => {
    const res = await call(t.app, 'GET', '/api/license', { token: t.adminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      licensee: 'Acme',
      features: ['drive', 'payment'],
      expiresAt: '2099-12-31T00:00:00.000Z',
      expired: false,
    });
  });

  it('answers 403 to a tenant user without platform:license:view', async () => {
    const user = await createUserWithPermissions(t, ['monitor:server:view', 'dashboard:stats:view']);
    const res = await call(t.app, 'GET', '/api/license', { token: user.token });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'auth.permission_denied' });
  });

  it('answers 401 without a token', async () => {
    const res = await call(t.app, 'GET', '/api/license');
    expect(res.statusCode).toBe(401);
  });
});
